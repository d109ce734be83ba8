import type { V3Client } from '../client';
import type { V3DownloadTask, V3TransferRecord } from './mapping';

/** Reads the downloader's task list and the transfer history (used by task.inspect, verifiers and GoalFacts). @internal */
export async function readHostState(
  client: V3Client,
  signal?: AbortSignal,
): Promise<{ tasks: V3DownloadTask[]; transfers: V3TransferRecord[] }> {
  const [tasks, history] = await Promise.all([
    client.ok<V3DownloadTask[]>('download.tasks.active', signal ? { signal } : {}),
    client.ok<{ list: V3TransferRecord[]; total: number }>('transfer.history', {
      query: { page: 1, count: 200 },
      ...(signal ? { signal } : {}),
    }),
  ]);
  return { tasks: Array.isArray(tasks.data) ? tasks.data : [], transfers: history.data?.list ?? [] };
}
