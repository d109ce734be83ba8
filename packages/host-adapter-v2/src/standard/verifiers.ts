import type { StandardOutput } from '@media-agent/sdk/media';
import type { Verifier } from '@media-agent/sdk';

/**
 * The V2 verifier of `download.submit`: reads the downloader's task list through `task.inspect`
 * (by plan: the info hash, else torrent title + size). A matching download settles the unknown call
 * `succeeded`; none settles it `failed` (verifiably not added).
 * @public
 */
export const verifyV2DownloadSubmit: Verifier<{ planId: string }, StandardOutput<'download.submit'>> = async ({
  input,
  read,
}) => {
  const result = (await read('task.inspect', {
    planId: input.planId,
    type: 'download',
  })) as StandardOutput<'task.inspect'>;
  const job = result.tasks.find(
    (t) => t.type === 'download' && t.download !== null && t.download.status !== 'removed',
  )?.download;
  if (!job)
    return { status: 'failed', reason: `the downloader has no task for plan ${input.planId} (by hash, title or size)` };
  return { status: 'succeeded', output: { download: { ...job, planId: input.planId } } };
};

/**
 * The V2 verifier of `organize.execute`: reads the transfer history through `task.inspect`. A
 * succeeded transfer of the plan's download settles the call `succeeded`; none settles it `failed`.
 * @public
 */
export const verifyV2OrganizeExecute: Verifier<{ planId: string }, StandardOutput<'organize.execute'>> = async ({
  input,
  read,
}) => {
  const downloadId = await planDownload(read, input.planId);
  const history = (await read('task.inspect', { type: 'organize', limit: 100 })) as StandardOutput<'task.inspect'>;
  const record = history.tasks.find(
    (t) => t.organize !== null && t.organize.downloadId === downloadId && t.organize.status === 'succeeded',
  )?.organize;
  if (!record)
    return {
      status: 'failed',
      reason: `the transfer history has no successful transfer of ${downloadId ?? 'the plan'}`,
    };
  return { status: 'succeeded', output: { organize: { ...record, planId: input.planId, automatic: false } } };
};

/** The download an organize plan targets, through `moviepilot.plan.inspect`. */
async function planDownload(
  read: (id: string, input: unknown) => Promise<unknown>,
  planId: string,
): Promise<string | undefined> {
  const out = (await read('moviepilot.plan.inspect', { planId })) as { downloadId: string | null };
  return out.downloadId ?? undefined;
}
