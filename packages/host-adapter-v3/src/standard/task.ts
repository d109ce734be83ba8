import { MediaStateError, defineStandardCapability, type Task } from '@media-agent/sdk/media';
import { HostOperationError } from '@media-agent/host-adapter-kit';
import { v3Unsupported } from '../errors';
import { fromV3Identity } from '../identity';
import { organizeStatusOf } from './mapping';
import { readHostState } from './host-state';
import type { V3Services, V3StandardHelpers } from './services';
import { downloadSpace } from './host-space';
import { cancelImpact } from './impact-rules';
import { kindOf } from './mapping';

/** The downloader task fields the cancel impact reads. */
interface V3DownloadTaskLike {
  size?: number;
  progress?: number;
}

/**
 * Task views over the downloader and the transfer history, and redo of a transfer record.
 * @param s - the services of one host
 * @param h - the shared reads and views
 * @returns `task.inspect`, `task.retry`, `task.cancel` by id
 * @internal
 */
export function v3TaskCapabilities(s: V3Services, h: V3StandardHelpers) {
  const { client, journal } = s;
  const { jobView, synthetic } = h;
  /** `MEDIA_NOT_FOUND` for a transfer record the host does not have. */
  const transferNotFound = (taskId: string) =>
    new MediaStateError('MEDIA_NOT_FOUND', `no transfer record ${JSON.stringify(taskId)} on the MoviePilot host`, {
      taskId,
    });
  /** A download id the downloader, the transfer history or this adapter's submits know, else `MEDIA_NOT_FOUND`. */
  const downloadOrThrow = async (id: string, signal: AbortSignal) => {
    if (journal.download(id)) return;
    const { tasks, transfers } = await readHostState(client, signal);
    if (tasks.some((t) => t.hash === id) || transfers.some((t) => t.download_hash === id)) return;
    throw new MediaStateError(
      'MEDIA_NOT_FOUND',
      `no download ${JSON.stringify(id)} on the MoviePilot host: it is not in the downloader, the transfer history or this adapter's submits`,
      { taskId: id },
    );
  };
  const transferOrThrow = async (taskId: string, signal: AbortSignal) => {
    const { transfers } = await readHostState(client, signal);
    if (!transfers.some((t) => `th-${t.id}` === taskId)) throw transferNotFound(taskId);
  };
  return {
    'task.inspect': defineStandardCapability('task.inspect', async (input, ctx) => {
      const { tasks, transfers } = await readHostState(client, ctx.signal);
      const now = ctx.clock.now();
      const out: Task[] = [];
      const hashes = new Set([...tasks.map((t) => t.hash), ...journal.downloads().map((d) => d.hash)]);
      for (const hash of hashes) {
        const task = tasks.find((t) => t.hash === hash);
        const d = journal.download(hash) ?? synthetic(task!);
        if (!d) continue;
        const job = jobView(d, task, transfers, now);
        out.push({
          id: hash,
          type: 'download',
          status: job.status,
          mediaEntityId: job.mediaEntityId,
          title: job.title,
          planId: journal.download(hash)?.planId ?? null,
          idempotencyKey: d.idempotencyKey,
          updatedAt: now,
          download: job,
          organize: null,
        });
      }
      for (const t of transfers) {
        const id = fromV3Identity(t.media_source, t.media_id);
        if (!id) continue;
        const o = journal.organizes().find((x) => x.downloadId === t.download_hash);
        const status = organizeStatusOf(t);
        const createdAt = Date.parse(t.date ?? '') || now;
        out.push({
          id: `th-${t.id}`,
          type: 'organize',
          status,
          mediaEntityId: id.mediaEntityId,
          title: t.title ?? id.mediaEntityId,
          planId: o?.planId ?? null,
          idempotencyKey: o?.idempotencyKey ?? null,
          updatedAt: now,
          download: null,
          organize: {
            id: `th-${t.id}`,
            downloadId: t.download_hash ?? null,
            planId: o?.planId ?? null,
            mediaEntityId: id.mediaEntityId,
            title: t.title ?? '',
            status,
            mode: t.mode === 'copy' ? 'copy' : t.mode === 'move' ? 'move' : 'hardlink',
            libraryPath: status === 'succeeded' ? t.dest : null,
            automatic: !o,
            createdAt,
            error: t.errmsg || null,
          },
        });
      }
      const tasksOut = out
        .filter(
          (t) =>
            (input.taskId === undefined || t.id === input.taskId) &&
            (input.planId === undefined || t.planId === input.planId) &&
            (input.mediaEntityId === undefined || t.mediaEntityId === input.mediaEntityId) &&
            (input.idempotencyKey === undefined || t.idempotencyKey === input.idempotencyKey) &&
            (input.type === undefined || t.type === input.type) &&
            (input.status === undefined || t.status === input.status),
        )
        .slice(0, input.limit ?? 20);
      return { tasks: tasksOut };
    }),
    'task.retry': defineStandardCapability('task.retry', async (input, ctx) => {
      const m = /^th-(\d+)$/.exec(input.taskId);
      if (!m) {
        await downloadOrThrow(input.taskId, ctx.signal);
        throw v3Unsupported(
          'task.retry',
          'restarting a torrent left the V3 operation catalog; only organize records (th-<id>) can be redone',
        );
      }
      try {
        await client.ok('transfer.history.redo', { pathParams: { history_id: m[1]! }, signal: ctx.signal });
      } catch (error) {
        if (error instanceof HostOperationError && error.status === 404) throw transferNotFound(input.taskId);
        throw error;
      }
      const { transfers } = await readHostState(client, ctx.signal);
      const t = transfers.find((x) => String(x.id) === m[1]);
      const id = t ? fromV3Identity(t.media_source, t.media_id) : undefined;
      if (!t || !id) throw transferNotFound(input.taskId);
      const status = organizeStatusOf(t);
      return {
        task: {
          id: input.taskId,
          type: 'organize' as const,
          status,
          mediaEntityId: id.mediaEntityId,
          title: t.title ?? '',
          planId: null,
          idempotencyKey: ctx.idempotencyKey ?? null,
          updatedAt: ctx.clock.now(),
          download: null,
          organize: {
            id: input.taskId,
            downloadId: t.download_hash ?? null,
            planId: null,
            mediaEntityId: id.mediaEntityId,
            title: t.title ?? '',
            status,
            mode: 'hardlink' as const,
            libraryPath: status === 'succeeded' ? t.dest : null,
            automatic: false,
            createdAt: ctx.clock.now(),
            error: t.errmsg || null,
          },
        },
      };
    }),
    'task.cancel': defineStandardCapability(
      'task.cancel',
      async (input, ctx) => {
        if (/^th-\d+$/.test(input.taskId)) await transferOrThrow(input.taskId, ctx.signal);
        else await downloadOrThrow(input.taskId, ctx.signal);
        throw v3Unsupported(
          'task.cancel',
          'deleting a torrent (download.delete) left the V3 operation catalog for the downloader-operation skill',
        );
      },
      {
        // Nothing is deleted (the call is unsupported): what the download holds (downloader task: size ×
        // progress), where (download history path) and the downloader's free space, unchanged.
        impact: async (input, ctx) => {
          const { tasks } = await readHostState(client, ctx.signal);
          const task = tasks.find((t) => t.hash === input.taskId) as
            | (V3DownloadTaskLike & { media?: { type?: unknown } })
            | undefined;
          const history = await client.ok<Array<{ download_hash?: string; path?: string }>>('download.history.list', {
            query: { page: 1, count: 200 },
            signal: ctx.signal,
          });
          const path = (Array.isArray(history.data) ? history.data : []).find(
            (x) => x.download_hash === input.taskId,
          )?.path;
          const space = await downloadSpace(client, kindOf(task?.media?.type), ctx.signal, s.settings.savePath, path);
          return cancelImpact(Number(task?.size ?? 0) * (Number(task?.progress ?? 0) / 100), space);
        },
      },
    ),
  };
}
