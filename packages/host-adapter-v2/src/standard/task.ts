import { defineStandardCapability, MediaStateError, type Task } from '@media-agent/sdk/media';
import { HostOperationError } from '../errors';
import { kindOf, organizeRecord } from '../mapping';
import { downloadSpace } from './host-space';
import { cancelImpact } from './impact-rules';
import type { DownloadPayload } from './payloads';
import type { V2StandardDeps, V2StandardHelpers } from './services';

/**
 * Task views over the downloader and the transfer history, retries and cancels.
 * @param deps - the host view and plan service
 * @param h - the shared reads and checks
 * @returns `task.inspect`, `task.retry`, `task.cancel` by id
 * @internal
 */
export function v2TaskCapabilities(deps: V2StandardDeps, h: V2StandardHelpers) {
  const { view, plans } = deps;
  const { client, tracking } = view;
  const { taskOf, downloadOrThrow } = h;
  return {
    'task.inspect': defineStandardCapability('task.inspect', async (input, ctx) => {
      const downloads = input.type === 'organize' ? [] : await view.downloads(ctx.signal);
      let tasks: Task[] = downloads.map(taskOf);
      if (input.planId !== undefined && !tasks.some((t) => t.planId === input.planId)) {
        // a plan whose submit answer was lost: find its download by hash, else title + size
        const plan = await plans.get(input.planId).catch(() => undefined);
        if (plan?.type === 'download') {
          const match = await view.downloadForPlan(plan.payload as unknown as DownloadPayload, plan.id, ctx.signal);
          if (match)
            tasks = tasks.map((t) =>
              t.id === match.job.id
                ? { ...t, planId: plan.id, download: t.download ? { ...t.download, planId: plan.id } : null }
                : t,
            );
        }
      }
      if (input.type !== 'download') {
        for (const t of await view.transfers(ctx.signal)) {
          const org = organizeRecord(t, null);
          tasks.push({
            id: org.id,
            type: 'organize',
            status: org.status,
            mediaEntityId: org.mediaEntityId,
            title: org.title,
            planId: null,
            idempotencyKey: null,
            updatedAt: org.createdAt,
            download: null,
            organize: org,
          });
        }
      }
      tasks = tasks.filter(
        (t) =>
          (input.taskId === undefined || t.id === input.taskId) &&
          (input.planId === undefined || t.planId === input.planId) &&
          (input.mediaEntityId === undefined || t.mediaEntityId === input.mediaEntityId) &&
          (input.idempotencyKey === undefined || t.idempotencyKey === input.idempotencyKey) &&
          (input.type === undefined || t.type === input.type) &&
          (input.status === undefined || t.status === input.status),
      );
      return { tasks: tasks.slice(0, input.limit ?? 20) };
    }),
    'task.retry': defineStandardCapability('task.retry', async (input, ctx) => {
      const d = await downloadOrThrow(input.taskId, ctx.signal);
      if (
        d.job.status !== 'stalled' &&
        d.job.status !== 'failed' &&
        d.job.status !== 'downloading' &&
        d.job.status !== 'queued'
      )
        throw new MediaStateError(
          'MEDIA_INVALID_STATE',
          `download ${d.job.id} is ${d.job.status}; only stalled or failed downloads are retried`,
          { taskId: d.job.id },
        );
      await client.call('download.start', { pathParams: { hashString: d.job.id }, signal: ctx.signal });
      await tracking.touch(ctx.runId, { downloads: [d.job.id] });
      return { task: taskOf(await downloadOrThrow(d.job.id, ctx.signal)) };
    }),
    'task.cancel': defineStandardCapability(
      'task.cancel',
      async (input, ctx) => {
        const d = await downloadOrThrow(input.taskId, ctx.signal);
        if (d.job.status === 'imported')
          throw new MediaStateError(
            'MEDIA_INVALID_STATE',
            `download ${d.job.id} is already imported; the library is not touched`,
            { taskId: d.job.id },
          );
        if (d.job.status !== 'removed') {
          try {
            await client.call('download.delete', { pathParams: { hashString: d.job.id }, signal: ctx.signal });
          } catch (error) {
            if (!(error instanceof HostOperationError)) throw error; // already gone from the downloader
          }
          await tracking.update((s) => {
            const t = s.downloads[d.job.id];
            if (t) t.cancelled = true;
            else
              s.downloads[d.job.id] = {
                hash: d.job.id,
                planId: '',
                releaseId: '',
                releaseName: d.job.releaseName,
                mediaEntityId: d.job.mediaEntityId,
                title: d.job.title,
                sizeBytes: d.job.sizeBytes,
                submittedAt: d.job.submittedAt,
                idempotencyKey: null,
                cancelled: true,
              };
          });
        }
        await tracking.touch(ctx.runId, { downloads: [d.job.id] });
        return { task: taskOf(await downloadOrThrow(d.job.id, ctx.signal)) };
      },
      {
        // The downloader delete (`DELETE /api/v1/download/{hash}`) removes the torrent with its files: the
        // bytes downloaded so far (size × progress from the downloader) are deleted from the download's path
        // (the host's download history), and the downloader's free space grows by them.
        impact: async (input, ctx) => {
          const d = await downloadOrThrow(input.taskId, ctx.signal);
          const gone = d.job.status === 'imported' || d.job.status === 'removed';
          const space = await downloadSpace(client, kindOf(d.history?.type), ctx.signal, d.history?.path ?? undefined);
          if (gone)
            space.notes.push(
              d.job.status === 'imported'
                ? `download ${d.job.id} is already imported: the cancel is refused and deletes nothing`
                : `download ${d.job.id} is already removed: nothing is deleted`,
            );
          return cancelImpact(gone ? 0 : d.job.sizeBytes * d.job.progress, space);
        },
      },
    ),
  };
}
