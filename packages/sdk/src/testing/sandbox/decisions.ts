import type { DecisionRecord } from '../../core/run-records';
import type { AgentHost } from '../../runtime/agent-host';
import type { RaiseDecisionInput } from '../../runtime/decisions/decision-service';
import type { DecisionSubjects } from '../../runtime/decisions/decision-settings';
import { dotted } from './data';
import { entityOf, type SandboxWorld } from './world';

/** Actor the sandbox raises its decisions as. @public */
export const SANDBOX_DECISION_ACTOR = 'system:sandbox-watch';

/**
 * The decisions the sandbox world's faults call for, as of now: a `failed` download (its files are missing) →
 * `download_failed`; a `stalled` one (no progress) → `download_stalled`; a release whose name matches two or more
 * catalog titles (recognition by name finds two identities) and was not resolved with `identity.resolve` →
 * `identity_ambiguous`. Each occurrence has its own dedupe key (a download failing again after a recheck is a new
 * decision of the same root cause `download_failed:<downloadId>`).
 * @param world - the sandbox world
 * @returns inputs for `host.raiseDecision`
 * @public
 */
export function sandboxDecisionInputs(world: SandboxWorld): RaiseDecisionInput[] {
  world.sync();
  const out: RaiseDecisionInput[] = [];
  for (const job of world.downloads()) {
    if (job.phase !== 'failed' && job.phase !== 'stalled') continue;
    const kind = job.phase === 'failed' ? 'download_failed' : 'download_stalled';
    const view = world.downloadView(job);
    out.push({
      kind,
      subject: { type: 'download', id: job.id },
      reason:
        job.phase === 'failed'
          ? `download ${job.id} (${view.title}) failed: the downloader reports missing files`
          : `download ${job.id} (${view.title}) makes no progress`,
      raisedBy: SANDBOX_DECISION_ACTOR,
      evidence: {
        downloader: { state: job.phase === 'failed' ? 'missingFiles' : 'stalledDL', progress: view.progress },
        releaseName: job.releaseName,
        mediaEntityId: job.mediaEntityId,
        since: job.updatedAt,
      },
      options: [{ id: 'ignore', label: 'Leave it as it is' }],
      dedupeKey: `${kind}:${job.id}:${job.updatedAt}`,
      rootCause: `${kind}:${job.id}`,
    });
  }
  const state = world.toJSON();
  for (const release of world.releases()) {
    if (state.identities[`release:${release.releaseId}`]) continue;
    const name = release.name.split(/\.(?:\d{4}|S\d{2})\./)[0] ?? release.name;
    const candidates = world.titles().filter((t) => dotted(t.title) === name);
    if (candidates.length < 2) continue;
    out.push({
      kind: 'identity_ambiguous',
      subject: { type: 'release', id: release.releaseId },
      reason: `release ${release.name} matches ${candidates.length} titles`,
      raisedBy: SANDBOX_DECISION_ACTOR,
      evidence: {
        releaseName: release.name,
        candidates: candidates.map((t) => ({ mediaEntityId: entityOf(t), title: t.title, year: t.year })),
      },
      options: candidates.map((t) => ({
        id: `title-${t.mediaId}`,
        label: `${t.title} (${t.year})`,
        capabilityId: 'identity.resolve',
        input: { subjectType: 'release', subjectId: release.releaseId, mediaSource: 'tmdb', mediaId: t.mediaId },
      })),
      dedupeKey: `identity_ambiguous:${release.releaseId}`,
      rootCause: `identity_ambiguous:${release.releaseId}`,
    });
  }
  return out;
}

/**
 * Raises every decision the sandbox world's faults call for now (see {@link sandboxDecisionInputs}); raising the
 * same occurrence again creates nothing.
 * @param host - the host
 * @param world - the sandbox world
 * @returns the decisions as stored
 * @throws what `host.raiseDecision` throws
 *
 * @example
 * ```ts
 * world.setFaults({ failDownloads: true }); // downloads lose their files
 * // … a download is submitted and fails …
 * const [decision] = await raiseSandboxDecisions(host, world); // download_failed about it
 * ```
 * @public
 */
export async function raiseSandboxDecisions(
  host: Pick<AgentHost, 'raiseDecision'>,
  world: SandboxWorld,
): Promise<DecisionRecord[]> {
  const out: DecisionRecord[] = [];
  for (const input of sandboxDecisionInputs(world)) out.push(await host.raiseDecision(input));
  return out;
}

/**
 * The sandbox world as the host's {@link DecisionSubjects}: downloads, organize tasks and releases it has.
 * @param world - the sandbox world
 * @public
 */
export function sandboxDecisionSubjects(world: SandboxWorld): DecisionSubjects {
  return {
    exists: async ({ type, id }) => {
      if (type === 'download') return world.downloads().some((d) => d.id === id);
      if (type === 'task') return world.tasks().some((t) => t.id === id);
      if (type === 'release') return world.releases().some((r) => r.releaseId === id);
      return false;
    },
  };
}
