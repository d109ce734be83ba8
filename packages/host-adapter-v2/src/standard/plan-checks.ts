// What the execute handlers check in a plan payload before sending it: a payload may have been edited by an
// approver (a new revision), so it must hang together and name what the host really has.
import { MediaStateError } from '@media-agent/sdk/media';
import { hashOfEnclosure, releaseIdOf } from '../mapping';
import { type DownloadPayload, type OrganizePayload, TRANSFER_MODE } from './payloads';
import type { V2StandardHelpers } from './services';

const conflict = (planId: string, what: string) =>
  new MediaStateError(
    'MEDIA_PLAN_CONFLICT',
    `plan ${planId} does not hang together: ${what}; nothing was sent (re-plan, or edit these fields together)`,
    { planId },
  );

/** The media entity a V2 `MediaInfo`/`ManualTransferItem` names by its TMDB or Douban id, when any. */
const entityOfIds = (tmdb: unknown, douban: unknown): string | undefined =>
  typeof tmdb === 'number' && tmdb > 0
    ? `tmdb:${tmdb}`
    : typeof douban === 'string' && douban
      ? `douban:${douban}`
      : undefined;

/**
 * Checks a download payload before `POST /api/v1/download/`: its release id, name, size and hash are those
 * of its `torrent_in`, its `media_in` names its title; and for an edited plan (revision above 1) the
 * release is one the host found for that title (its search results), with the same torrent.
 * @throws `MEDIA_PLAN_CONFLICT` when the payload does not hang together or the torrent is not the host's;
 *   `MEDIA_NOT_FOUND` when the host has no such release
 * @internal
 */
export async function checkDownloadPayload(
  p: DownloadPayload,
  plan: { id: string; revision: number },
  h: V2StandardHelpers,
  signal: AbortSignal,
): Promise<void> {
  const t = p.torrent_in;
  if (releaseIdOf(t) !== p.releaseId)
    throw conflict(plan.id, `releaseId ${p.releaseId} is not the release of its torrent_in`);
  if (t.title !== p.releaseName) throw conflict(plan.id, 'releaseName is not the title of its torrent_in');
  if (Math.round(t.size ?? -1) !== p.sizeBytes) throw conflict(plan.id, 'sizeBytes is not the size of its torrent_in');
  if (p.hash !== null && p.hash !== hashOfEnclosure(t.enclosure))
    throw conflict(plan.id, 'hash is not the info hash of its torrent_in');
  const named = entityOfIds(p.media_in.tmdb_id, p.media_in.douban_id);
  if (named !== undefined && named !== p.mediaEntityId)
    throw conflict(plan.id, `media_in names ${named}, not ${p.mediaEntityId}`);
  if (plan.revision <= 1) return; // frozen by download.plan from the host's own search result
  const r = await h.findRelease(p.releaseId, signal);
  if (r.entity !== p.mediaEntityId)
    throw conflict(plan.id, `release ${p.releaseId} is a release of ${r.entity}, not ${p.mediaEntityId}`);
  if (r.torrent.enclosure !== t.enclosure || r.torrent.title !== t.title)
    throw conflict(plan.id, `torrent_in is not the host's torrent of release ${p.releaseId}`);
}

/**
 * Checks an organize payload before `POST /api/v1/transfer/manual`: its transfer type is its mode's, the
 * files it sends are the download's own (the host's download history path), and the title it names is the
 * payload's.
 * @param historyPath - the download's path in the host's download history
 * @throws `MEDIA_PLAN_CONFLICT` when they differ
 * @internal
 */
export function checkOrganizePayload(
  p: OrganizePayload,
  plan: { id: string },
  historyPath: string | null | undefined,
): void {
  const transfer = p.transfer as {
    transfer_type?: string;
    fileitem?: { path?: string };
    tmdbid?: number;
    doubanid?: string;
  };
  if (transfer.transfer_type !== TRANSFER_MODE[p.mode])
    throw conflict(
      plan.id,
      `mode ${p.mode} is sent as transfer_type ${TRANSFER_MODE[p.mode]}, not ${transfer.transfer_type}`,
    );
  if (!historyPath || transfer.fileitem?.path !== historyPath)
    throw conflict(
      plan.id,
      `the files sent are not those of download ${p.downloadId} (${historyPath ?? 'no path on the host'})`,
    );
  if (p.files.some((f) => f.from !== historyPath))
    throw conflict(plan.id, `files must come from the download's path ${historyPath}`);
  const named = entityOfIds(transfer.tmdbid, transfer.doubanid);
  if (named !== p.mediaEntityId)
    throw conflict(plan.id, `the transfer names ${named ?? 'no title'}, not ${p.mediaEntityId}`);
}
