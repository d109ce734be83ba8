import { decisionRaiser, subjectsFromHostState } from '@media-agent/host-adapter-kit';
import type { RaiseDecisionInput } from '@media-agent/sdk';
import type { DecisionSubjects } from '@media-agent/sdk/decisions';
import type { V2HostClient } from './client';
import type { V2Downloading, V2TransferHistory } from './mapping';

/** Actor the adapter raises decisions as. @public */
export const V2_DECISION_ACTOR = 'system:moviepilot-v2';

async function hostState(client: V2HostClient, signal?: AbortSignal) {
  const [active, transfers] = await Promise.all([
    client.call<V2Downloading[]>('download.list', signal ? { signal } : {}),
    client.call<{ list?: V2TransferHistory[] }>('history.transfer', {
      query: { page: 1, count: 100 },
      ...(signal ? { signal } : {}),
    }),
  ]);
  return { active: Array.isArray(active) ? active : [], transfers: transfers?.list ?? [] };
}

/**
 * The decisions the MoviePilot 2.x host's state calls for, as of now (contract-checked reads of `download.list` and
 * `history.transfer`): a downloader task in state `error` or `missingFiles` → `download_failed`; `paused`, `stalled`
 * or `stalledDL` → `download_stalled` (both offer a ready-to-choose `download.recheck`); a failed transfer of a
 * download → `download_failed`; a downloader task whose torrent name the host's recognition (`media.recognize`) binds
 * to another title than the downloader's, or to none → `identity_ambiguous` with an option per title
 * (`organize.plan` as that title). Each occurrence has its own dedupe key; the root cause is `<kind>:<download hash>`.
 * @param client - the host client
 * @param signal - aborts the reads
 * @param options - `recognize: false` skips the recognition requests (one per downloader task)
 * @returns inputs for `host.raiseDecision`
 * @throws the client's errors (`HOST_UNREACHABLE`, `HOST_AUTH_FAILED`, …)
 * @public
 */
export async function v2DecisionInputs(
  client: V2HostClient,
  signal?: AbortSignal,
  options: { recognize?: boolean } = {},
): Promise<RaiseDecisionInput[]> {
  const { active, transfers } = await hostState(client, signal);
  const out: RaiseDecisionInput[] = [];
  for (const a of active) {
    if (!a.hash) continue;
    const state = String(a.state ?? '').toLowerCase();
    const kind = ['error', 'missingfiles'].includes(state)
      ? 'download_failed'
      : ['paused', 'stalled', 'stalleddl'].includes(state)
        ? 'download_stalled'
        : undefined;
    if (!kind) continue;
    const title = a.title ?? a.name ?? a.hash;
    out.push({
      kind,
      subject: { type: 'download', id: a.hash },
      reason: `the downloader reports ${title} as ${a.state}`,
      raisedBy: V2_DECISION_ACTOR,
      evidence: { downloader: { state: a.state ?? null, progress: a.progress ?? null }, title },
      options: [
        {
          id: 'recheck',
          label: `Force a recheck of download ${a.hash}`,
          capabilityId: 'download.recheck',
          input: { downloadId: a.hash, action: kind === 'download_stalled' ? 'resume' : 'recheck' },
        },
        { id: 'ignore', label: 'Leave it as it is' },
      ],
      dedupeKey: `${kind}:${a.hash}:${state}`,
      rootCause: `${kind}:${a.hash}`,
    });
  }
  if (options.recognize !== false) {
    for (const a of active) {
      const declared = a.media?.tmdbid;
      if (!a.hash || !a.name || typeof declared !== 'number') continue;
      const r = await client.call<{ media_info?: { tmdb_id?: unknown; en_title?: unknown; title?: unknown } | null }>(
        'media.recognize',
        { query: { title: a.name }, ...(signal ? { signal } : {}) },
      );
      const info = r?.media_info ?? null;
      const recognized = typeof info?.tmdb_id === 'number' ? info.tmdb_id : undefined;
      if (recognized === declared) continue;
      const candidates = [
        { mediaEntityId: `tmdb:${declared}`, title: a.title ?? a.name, by: 'downloader' },
        ...(recognized !== undefined
          ? [
              {
                mediaEntityId: `tmdb:${recognized}`,
                title: String(info?.en_title ?? info?.title ?? a.name),
                by: 'recognition',
              },
            ]
          : []),
      ];
      out.push({
        kind: 'identity_ambiguous',
        subject: { type: 'download', id: a.hash },
        reason:
          recognized !== undefined
            ? `${a.name} is tmdb:${declared} for the downloader but recognized as tmdb:${recognized}`
            : `${a.name} is tmdb:${declared} for the downloader but recognition finds no title`,
        raisedBy: V2_DECISION_ACTOR,
        evidence: { name: a.name, candidates },
        // A download is re-identified when it is organized: each option plans the organize as that title.
        options: candidates.map((c) => ({
          id: `organize-as-${c.mediaEntityId.replace(':', '-')}`,
          label: `Organize it as ${c.title} (${c.mediaEntityId})`,
          capabilityId: 'organize.plan',
          input: { downloadId: a.hash!, mediaSource: 'tmdb', mediaId: c.mediaEntityId.slice('tmdb:'.length) },
        })),
        dedupeKey: `identity_ambiguous:${a.hash}:${recognized ?? 'none'}`,
        rootCause: `identity_ambiguous:${a.hash}`,
      });
    }
  }
  for (const t of transfers) {
    if (t.status || !t.download_hash) continue;
    out.push({
      kind: 'download_failed',
      subject: { type: 'download', id: t.download_hash },
      reason: `organizing ${t.title ?? t.src ?? t.download_hash} failed: ${t.errmsg || 'transfer failed'}`,
      raisedBy: V2_DECISION_ACTOR,
      evidence: { transfer: { id: t.id, src: t.src ?? null, errmsg: t.errmsg ?? null, date: t.date ?? null } },
      options: [{ id: 'ignore', label: 'Leave it as it is' }],
      dedupeKey: `download_failed:${t.download_hash}:transfer-${t.id}`,
      rootCause: `download_failed:${t.download_hash}`,
    });
  }
  return out;
}

/**
 * Raises what {@link v2DecisionInputs} finds on the host now (a failed transfer, a download the downloader and recognition name differently); an occurrence raised
 * again creates nothing. Poll it, e.g. `setInterval(() => void raiseV2Decisions(host, client), 60_000)`.
 * Arguments: the SDK host, the host client, an optional abort signal; returns the decisions as stored.
 * @public
 */
export const raiseV2Decisions = decisionRaiser(v2DecisionInputs);

/**
 * The MoviePilot 2.x host as the SDK's `DecisionSubjects`: a download is known when the downloader or the transfer
 * history has its hash.
 * @param client - the host client
 * @public
 */
export function v2DecisionSubjects(client: V2HostClient): DecisionSubjects {
  return subjectsFromHostState(async () => {
    const { active, transfers } = await hostState(client);
    return { download: [...active.map((a) => a.hash), ...transfers.map((t) => t.download_hash)] };
  });
}
