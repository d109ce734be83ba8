import type { StandardInput, StandardOutput } from '@media-agent/sdk/media';
import type { Verifier } from '@media-agent/sdk';
import type { V3JournalDownload } from '../journal';
import { type V3DownloadTask, downloadStatusOf, type DownloadPlanPayload } from './mapping';
import type { V3Services } from './services';

/**
 * The read-only verifier of `download.submit` on V3: reads the downloader's task
 * list (`mp.download.tasks.active`, through the invocation path) and looks for the plan's torrent —
 * by hash when one is known, else by torrent title and size. Found: `succeeded` with that job (and
 * the job is journaled for the run). Not found: `failed` (verifiably not added, so the submit may run).
 * @internal
 */
export function verifyV3DownloadSubmit(
  s: V3Services,
): Verifier<StandardInput<'download.submit'>, StandardOutput<'download.submit'>> {
  return async ({ input, entry, read }) => {
    const plan = await s.plans.get(input.planId);
    const p = plan.payload as unknown as DownloadPlanPayload;
    const known = s.journal.downloads().find((d) => d.planId === plan.id);
    const r = (await read('mp.download.tasks.active', {})) as { data: V3DownloadTask[] };
    const tasks = Array.isArray(r.data) ? r.data : [];
    const size = Math.round(Number(p.torrent_in.size ?? p.sizeBytes));
    const match =
      (known && tasks.find((t) => t.hash === known.hash)) ??
      tasks.find((t) => t.title === p.torrent_in.title && Math.round(Number(t.size ?? -1)) === size);
    if (!match)
      return {
        status: 'failed',
        reason: `the downloader has no task ${known ? `with hash ${known.hash}` : `titled ${JSON.stringify(p.torrent_in.title)} of ${size} bytes`}`,
      };
    const d: V3JournalDownload = {
      hash: match.hash,
      planId: plan.id,
      releaseId: p.releaseId,
      releaseName: p.releaseName,
      mediaEntityId: p.mediaEntityId,
      title: p.title,
      sizeBytes: p.sizeBytes,
      idempotencyKey: entry.key,
      submittedAt: entry.claimedAt,
    };
    s.journal.addDownload(entry.runId ?? undefined, d);
    const status = downloadStatusOf(match, []);
    return {
      status: 'succeeded',
      output: {
        download: {
          id: d.hash,
          planId: d.planId,
          releaseId: d.releaseId,
          releaseName: d.releaseName,
          mediaEntityId: d.mediaEntityId,
          title: d.title,
          sizeBytes: d.sizeBytes,
          status,
          progress: Math.min(1, (match.progress ?? 0) / 100),
          submittedAt: d.submittedAt,
          updatedAt: entry.claimedAt,
          organizeId: null,
        },
      },
    };
  };
}
