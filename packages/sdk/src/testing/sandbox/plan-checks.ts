// What a (possibly edited) sandbox plan payload asks for, checked against the world: the release and episodes of a
// download plan, the files of an organize plan. Used by the execute handlers and by their impacts alike.
import { MediaStateError } from '../../media/errors';
import { SANDBOX_DOWNLOAD_ROOT, sandboxReleaseFiles, type SandboxRelease } from './data';
import { inQuarantine } from './disk';
import type { SandboxDownloadPlanPayload, SandboxOrganizePlanPayload } from './plan-payloads';
import type { SandboxDownload, SandboxOrganizeStep, SandboxWorld } from './world';

const conflict = (message: string, details: Record<string, unknown>) =>
  new MediaStateError('MEDIA_PLAN_CONFLICT', message, details);

/** Refuses step ids the plan does not have, naming the ones it has. */
function checkSteps(requested: readonly string[] | undefined, known: readonly string[], planId: string | null): void {
  if (requested === undefined) return;
  const unknown = requested.filter((id) => !known.includes(id));
  if (unknown.length > 0)
    throw conflict(
      `the plan has no step ${unknown.map((u) => JSON.stringify(u)).join(', ')}; its steps are ${known.length > 0 ? known.join(', ') : 'none (execute it whole)'}`,
      { planId, unknownSteps: unknown, steps: [...known] },
    );
}

/** A download plan as the world would execute it now. @internal */
export interface ResolvedDownloadPlan {
  /** The release (read again by the payload's `releaseId`). */
  release: SandboxRelease;
  /** The title it downloads. */
  mediaEntityId: string;
  /** Episodes to download (`S01E03`), or null for the whole release. */
  episodes: string[] | null;
  /** The files it writes (paths in the download folder) and their sizes. */
  files: Array<{ path: string; sizeBytes: number; episode: string | null }>;
  /** Bytes it downloads. */
  bytes: number;
}

/**
 * Resolves a download plan payload against the world: the release by its (possibly edited) `releaseId`, which must
 * belong to the plan's title; only the given steps (episodes of a season pack) when `steps` is given.
 * @throws `MEDIA_NOT_FOUND` for an unknown release; `MEDIA_PLAN_CONFLICT` for a release of another title or
 *   unknown step ids (naming the plan's steps)
 * @internal
 */
export function resolveDownloadPlan(
  world: SandboxWorld,
  payload: Pick<SandboxDownloadPlanPayload, 'releaseId' | 'mediaEntityId' | 'steps'>,
  steps: readonly string[] | undefined,
  planId: string | null = null,
): ResolvedDownloadPlan {
  const release = world.releases().find((r) => r.releaseId === payload.releaseId);
  if (!release)
    throw new MediaStateError('MEDIA_NOT_FOUND', `no release ${JSON.stringify(payload.releaseId)}`, {
      release: payload.releaseId,
    });
  const entity = payload.mediaEntityId ?? world.releaseEntity(release);
  if (world.releaseEntity(release) !== entity)
    throw conflict(`release ${release.releaseId} is not a release of ${entity}; a plan cannot switch title`, {
      planId,
      releaseId: release.releaseId,
      mediaEntityId: entity,
    });
  const all = sandboxReleaseFiles(release);
  const planned = payload.steps ? new Set(payload.steps.map((s) => s.id)) : null;
  const known = all.filter((f) => f.episode !== null && (planned === null || planned.has(f.episode)));
  checkSteps(
    steps,
    known.map((f) => f.episode!),
    planId,
  );
  const chosen =
    steps !== undefined
      ? known.filter((f) => steps.includes(f.episode!))
      : planned !== null && known.length > 0
        ? known
        : all;
  const episodes = chosen.length === all.length ? null : chosen.map((f) => f.episode!);
  const files = chosen.map((f) => ({
    path: `${SANDBOX_DOWNLOAD_ROOT}/${f.path}`,
    sizeBytes: f.sizeBytes,
    episode: f.episode,
  }));
  return { release, mediaEntityId: entity, episodes, files, bytes: files.reduce((s, f) => s + f.sizeBytes, 0) };
}

/** An organize plan as the world would execute it now. @internal */
export interface ResolvedOrganizePlan {
  /** The download it organizes. */
  job: SandboxDownload;
  /** The title it files the download under. */
  mediaEntityId: string;
  /** How files are put in place. */
  mode: 'hardlink' | 'copy' | 'move';
  /** Target directory. */
  targetPath: string;
  /** The files (steps) to put into the library. */
  files: SandboxOrganizeStep[];
}

const base = (path: string) => path.split('/').pop() ?? path;

/**
 * Resolves an organize plan payload (as frozen or as an approver edited it) against the world: its steps (or its
 * files, as steps `file-<n>`), only the given ones when `steps` is given; every source must be one of the download's
 * files and every target inside the library root.
 * @throws `MEDIA_NOT_FOUND` for an unknown download or title; `MEDIA_PLAN_CONFLICT` for unknown step ids, `files`
 *   and `steps` that disagree, a source that is not the download's or a target outside the library;
 *   `MEDIA_INVALID_STATE` for a hardlink across volumes
 * @internal
 */
export function resolveOrganizePlan(
  world: SandboxWorld,
  payload: SandboxOrganizePlanPayload,
  steps: readonly string[] | undefined,
  planId: string | null = null,
): ResolvedOrganizePlan {
  const job = world.downloads().find((d) => d.id === payload.downloadId);
  if (!job)
    throw new MediaStateError('MEDIA_NOT_FOUND', `no download ${JSON.stringify(payload.downloadId)}`, {
      download: payload.downloadId,
    });
  if (!world.resolveTitle(payload.mediaEntityId))
    throw new MediaStateError('MEDIA_NOT_FOUND', `no catalog title ${payload.mediaEntityId}`, {
      mediaEntityId: payload.mediaEntityId,
    });
  const list: SandboxOrganizeStep[] = payload.steps
    ? payload.steps.map((s) => ({ ...s, sizeBytes: s.sizeBytes ?? 0 }))
    : payload.files.map((f, i) => ({ id: `file-${i + 1}`, label: base(f.to), from: f.from, to: f.to, sizeBytes: 0 }));
  if (
    payload.steps &&
    (payload.steps.length !== payload.files.length ||
      payload.steps.some((s, i) => s.from !== payload.files[i]!.from || s.to !== payload.files[i]!.to))
  )
    throw conflict(`the plan's files and steps list different files`, { planId });
  checkSteps(
    steps,
    list.map((s) => s.id),
    planId,
  );
  const chosen = steps === undefined ? list : list.filter((s) => steps.includes(s.id));
  const sources = new Map(job.files.map((f) => [f.path, f.sizeBytes]));
  const root = `${world.libraryRoot}/`;
  const targets = new Set<string>();
  for (const s of chosen) {
    if (!sources.has(s.from))
      throw conflict(`${s.from} is not a file of download ${job.id}; the plan no longer applies, plan again`, {
        planId,
        step: s.id,
      });
    if (!s.to.startsWith(root) || s.to.split('/').includes('..') || inQuarantine(s.to) || targets.has(s.to))
      throw conflict(`target ${s.to} is not a distinct file inside the library (${world.libraryRoot})`, {
        planId,
        step: s.id,
      });
    targets.add(s.to);
    s.sizeBytes = sources.get(s.from)!;
  }
  if (payload.mode === 'hardlink' && chosen.some((s) => !world.sameVolume(s.from, s.to)))
    throw new MediaStateError('MEDIA_INVALID_STATE', 'a hardlink cannot cross volumes; organize by copy or move', {
      planId,
    });
  return {
    job,
    mediaEntityId: payload.mediaEntityId,
    mode: payload.mode,
    targetPath: payload.targetPath,
    files: chosen,
  };
}
