// What the execute handlers check in a plan payload before sending it: a payload may have been edited by an
// approver (a new revision), so it must hang together and name what the host really has.
import { MediaStateError } from '@media-agent/sdk/media';
import { fromV3Identity } from '../identity';
import {
  type DownloadPlanPayload,
  type OrganizePlanPayload,
  type V3Context,
  releaseIdOf,
  TRANSFER_TYPE,
} from './mapping';
import type { V3Services } from './services';

const conflict = (planId: string, what: string) =>
  new MediaStateError(
    'MEDIA_PLAN_CONFLICT',
    `plan ${planId} does not hang together: ${what}; nothing was sent (re-plan, or edit these fields together)`,
    { planId },
  );

/**
 * Checks a download payload before `download.add`: its release id, name and size are those of its
 * `torrent_in` and its identity is its title's; for an edited plan (revision above 1) the release is one the
 * host found for that title (this adapter's searches, else `search.results`), with the same torrent.
 * @throws `MEDIA_PLAN_CONFLICT` when the payload does not hang together or the torrent is not the host's;
 *   `MEDIA_NOT_FOUND` when the host has no such release
 * @internal
 */
export async function checkDownloadPayload(
  p: DownloadPlanPayload & { kind?: string },
  plan: { id: string; revision: number },
  s: V3Services,
  signal: AbortSignal,
): Promise<void> {
  const t = p.torrent_in as { title?: string; enclosure?: string; size?: number; site_name?: string };
  if (releaseIdOf({ torrent_info: t } as V3Context) !== p.releaseId)
    throw conflict(plan.id, `releaseId ${p.releaseId} is not the release of its torrent_in`);
  if (t.title !== p.releaseName) throw conflict(plan.id, 'releaseName is not the title of its torrent_in');
  if (Math.max(0, Math.round(t.size ?? -1)) !== p.sizeBytes)
    throw conflict(plan.id, 'sizeBytes is not the size of its torrent_in');
  if (fromV3Identity(p.identity.media_source, p.identity.media_id)?.mediaEntityId !== p.mediaEntityId)
    throw conflict(plan.id, `its identity is not ${p.mediaEntityId}`);
  if (plan.revision <= 1) return; // frozen by download.plan from the host's own search result
  let known = s.releases.get(p.releaseId);
  if (!known) {
    const r = await s.client.ok<V3Context[]>('search.results', { signal });
    const c = (Array.isArray(r.data) ? r.data : []).find((x) => x.torrent_info && releaseIdOf(x) === p.releaseId);
    const id = c ? fromV3Identity(c.media_info?.media_source, c.media_info?.media_id) : undefined;
    if (c && id) known = { context: c, mediaEntityId: id.mediaEntityId };
  }
  if (!known)
    throw new MediaStateError(
      'MEDIA_NOT_FOUND',
      `no release ${JSON.stringify(p.releaseId)} among the host's search results: search again and re-plan`,
      { releaseId: p.releaseId, planId: plan.id },
    );
  if (known.mediaEntityId !== p.mediaEntityId)
    throw conflict(plan.id, `release ${p.releaseId} is a release of ${known.mediaEntityId}, not ${p.mediaEntityId}`);
  if (known.context.torrent_info.enclosure !== t.enclosure || known.context.torrent_info.title !== t.title)
    throw conflict(plan.id, `torrent_in is not the host's torrent of release ${p.releaseId}`);
}

/**
 * Checks an organize payload before `transfer.file`: its transfer type is its mode's and the identity it
 * sends is the payload's title.
 * @throws `MEDIA_PLAN_CONFLICT` when they differ
 * @internal
 */
export function checkOrganizePayload(p: OrganizePlanPayload, plan: { id: string }): void {
  if (p.request.transfer_type !== TRANSFER_TYPE[p.mode])
    throw conflict(
      plan.id,
      `mode ${p.mode} is sent as transfer_type ${TRANSFER_TYPE[p.mode]}, not ${p.request.transfer_type}`,
    );
  if (fromV3Identity(p.request.media_source, p.request.media_id)?.mediaEntityId !== p.mediaEntityId)
    throw conflict(plan.id, `the transfer names another title than ${p.mediaEntityId}`);
}
