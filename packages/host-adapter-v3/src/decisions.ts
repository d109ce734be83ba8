import { decisionRaiser, subjectsFromHostState } from '@media-agent/host-adapter-kit';
import type { RaiseDecisionInput } from '@media-agent/sdk';
import type { DecisionSubjects } from '@media-agent/sdk/decisions';
import type { V3Client } from './client';
import { fromV3Identity } from './identity';
import { readHostState } from './standard/host-state';

/** Actor the adapter raises decisions as. @public */
export const V3_DECISION_ACTOR = 'system:moviepilot-v3';

/**
 * The decisions the MoviePilot 3.x host's state calls for, as of now (every read is a contract-checked
 * request: `download.tasks.active`, `transfer.history`): a downloader task in state `error`/`failed`/`missingFiles`
 * → `download_failed`; `stalled`/`stalledDL` → `download_stalled`; a failed transfer of a download (the files could
 * not be organized) → `download_failed` with a ready-to-choose option to redo it (`task.retry` on `th-<id>`, the
 * only recovery the V3 operation catalog offers: torrent recheck left it); a downloader task whose title the host's
 * recognition (`media.recognize`) binds to another title than the downloader's, or to none → `identity_ambiguous`
 * with an option per identity (`organize.plan` as that title: a download is re-identified when it is organized).
 * Each occurrence has its own dedupe key; the root cause is `<kind>:<download hash>`.
 * @param client - the host client
 * @param signal - aborts the reads
 * @param options - `recognize: false` skips the recognition requests (one per downloader task with a title)
 * @returns inputs for `host.raiseDecision`
 * @throws the client's errors (`HOST_UNREACHABLE`, `HOST_AUTH_FAILED`, …)
 * @public
 */
export async function v3DecisionInputs(
  client: V3Client,
  signal?: AbortSignal,
  options: { recognize?: boolean } = {},
): Promise<RaiseDecisionInput[]> {
  const { tasks, transfers } = await readHostState(client, signal);
  const out: RaiseDecisionInput[] = [];
  for (const task of tasks) {
    const state = String(task.state ?? '').toLowerCase();
    const kind = ['error', 'failed', 'missingfiles'].includes(state)
      ? 'download_failed'
      : ['stalled', 'stalleddl'].includes(state)
        ? 'download_stalled'
        : undefined;
    if (!kind) continue;
    out.push({
      kind,
      subject: { type: 'download', id: task.hash },
      reason: `the downloader reports ${task.title} as ${task.state}`,
      raisedBy: V3_DECISION_ACTOR,
      evidence: { downloader: { state: task.state ?? null, progress: task.progress ?? null }, title: task.title },
      options: [{ id: 'ignore', label: 'Leave it as it is' }],
      dedupeKey: `${kind}:${task.hash}:${state}`,
      rootCause: `${kind}:${task.hash}`,
    });
  }
  if (options.recognize !== false) {
    for (const task of tasks) {
      const declared = fromV3Identity(str(task.media?.media_source), str(task.media?.media_id));
      if (!declared) continue;
      const r = await client.ok<{ media_info?: Record<string, unknown> | null }>('media.recognize', {
        query: { title: task.title },
        ...(signal ? { signal } : {}),
      });
      const info = r.data?.media_info ?? null;
      const recognized = info ? fromV3Identity(str(info.media_source), str(info.media_id)) : undefined;
      if (recognized?.mediaEntityId === declared.mediaEntityId) continue;
      const candidates = [
        { mediaEntityId: declared.mediaEntityId, title: str(task.media?.title) ?? task.title, by: 'downloader' },
        ...(recognized
          ? [{ mediaEntityId: recognized.mediaEntityId, title: str(info?.title) ?? task.title, by: 'recognition' }]
          : []),
      ];
      out.push({
        kind: 'identity_ambiguous',
        subject: { type: 'download', id: task.hash },
        reason: recognized
          ? `${task.title} is ${declared.mediaEntityId} for the downloader but recognized as ${recognized.mediaEntityId}`
          : `${task.title} is ${declared.mediaEntityId} for the downloader but recognition finds no title`,
        raisedBy: V3_DECISION_ACTOR,
        evidence: { title: task.title, candidates },
        // A download is re-identified when it is organized: each option plans the organize as that title.
        options: candidates.map((c) => {
          const id = c.mediaEntityId.split(':');
          return {
            id: `organize-as-${c.mediaEntityId.replace(':', '-')}`,
            label: `Organize it as ${c.title} (${c.mediaEntityId})`,
            capabilityId: 'organize.plan',
            input: { downloadId: task.hash, mediaSource: id[0]!, mediaId: id[1]! },
          };
        }),
        dedupeKey: `identity_ambiguous:${task.hash}:${recognized?.mediaEntityId ?? 'none'}`,
        rootCause: `identity_ambiguous:${task.hash}`,
      });
    }
  }
  for (const t of transfers) {
    const state = t.state ?? (t.status ? 'completed' : 'failed');
    if (state !== 'failed' || !t.download_hash) continue;
    const id = fromV3Identity(t.media_source, t.media_id);
    out.push({
      kind: 'download_failed',
      subject: { type: 'download', id: t.download_hash },
      reason: `organizing ${t.title ?? t.src} failed: ${t.errmsg || 'transfer failed'}`,
      raisedBy: V3_DECISION_ACTOR,
      evidence: {
        transfer: { taskId: `th-${t.id}`, src: t.src, errmsg: t.errmsg ?? null, date: t.date ?? null },
        mediaEntityId: id?.mediaEntityId ?? null,
      },
      options: [
        {
          id: 'retry',
          label: `Redo the transfer th-${t.id}`,
          capabilityId: 'task.retry',
          input: { taskId: `th-${t.id}` },
        },
      ],
      dedupeKey: `download_failed:${t.download_hash}:th-${t.id}:${t.date ?? ''}`,
      rootCause: `download_failed:${t.download_hash}`,
    });
  }
  return out;
}

/**
 * Raises what {@link v3DecisionInputs} finds on the host now (a failed transfer the host can redo, an identity it could not settle); an occurrence raised
 * again creates nothing. Poll it, e.g. `setInterval(() => void raiseV3Decisions(host, client), 60_000)`.
 * Arguments: the SDK host, the host client, an optional abort signal; returns the decisions as stored.
 * @public
 */
export const raiseV3Decisions = decisionRaiser(v3DecisionInputs);

/**
 * The MoviePilot 3.x host as the SDK's `DecisionSubjects`: a download is known when the downloader or the transfer
 * history has its hash; a task (`th-<id>`) when the transfer history has the record.
 * @param client - the host client
 * @public
 */
export function v3DecisionSubjects(client: V3Client): DecisionSubjects {
  return subjectsFromHostState(async () => {
    const { tasks, transfers } = await readHostState(client);
    return {
      download: [...tasks.map((t) => t.hash), ...transfers.map((t) => t.download_hash)],
      task: transfers.map((t) => `th-${t.id}`),
    };
  });
}

/** A string field, or undefined. */
function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}
