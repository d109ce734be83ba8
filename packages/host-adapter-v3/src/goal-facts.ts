import { parseMediaEntityId } from '@media-agent/sdk/media';
import type { GoalFacts, GoalFactsSnapshot } from '@media-agent/sdk';
import type { RunEventRecord } from '@media-agent/sdk/storage';
import type { V3Client } from './client';
import { toV3Identity } from './identity';
import type { V3RunJournal } from './journal';
import { restoreRunJournal } from './journal-restore';
import { readHostState } from './standard/host-state';
import { downloadStatusOf, organizeStatusOf } from './standard/mapping';

/**
 * `GoalFacts` from the MoviePilot 3.x host: for what a run touched (the adapter's
 * {@link V3RunJournal}), reads the downloader's task list, the transfer history and `library.exists`,
 * so a report says "imported" only when the host's library says so. With `runEvents`, the journal is
 * first completed from the run's stored `tool_call` receipts, so a process that did not make the calls
 * (it resumed the run after another process stopped or was killed, or polls the goal of a run another
 * process drove) reports the same facts.
 * @public
 */
export class V3GoalFacts implements GoalFacts {
  /**
   * @param client - the host client
   * @param journal - what each run touched
   * @param runEvents - reads a run's stored events (`createV3AgentHost` passes the host storage's); without it only this process's journal counts
   */
  constructor(
    private readonly client: V3Client,
    private readonly journal: V3RunJournal,
    private readonly runEvents?: (runId: string) => Promise<readonly RunEventRecord[]>,
  ) {}

  /**
   * The facts about one run, as of now ({@link GoalFacts.forRun}).
   * @param runId - the run id (the `runId` its capability calls carried)
   * @param signal - aborts the read
   * @returns a snapshot; empty arrays when the run touched nothing
   */
  async forRun(runId: string, signal?: AbortSignal): Promise<GoalFactsSnapshot> {
    if (this.runEvents) restoreRunJournal(this.journal, runId, await this.runEvents(runId));
    const j = this.journal.forRun(runId);
    if (j.touched.length === 0 && j.downloads.length === 0 && j.plans.length === 0)
      return { plans: [], downloads: [], organizes: [], library: [] };
    const { tasks, transfers } = await readHostState(this.client, signal);
    const hashes = new Set(j.downloads.map((d) => d.hash));
    const organizeDownloads = new Set(j.organizes.map((o) => o.downloadId));
    const downloads = j.downloads.map((d) => ({
      id: d.hash,
      mediaEntityId: d.mediaEntityId,
      title: d.title,
      status: downloadStatusOf(
        tasks.find((t) => t.hash === d.hash),
        transfers.filter((t) => t.download_hash === d.hash),
      ),
    }));
    const organizes = transfers
      .filter((t) => t.download_hash && (hashes.has(t.download_hash) || organizeDownloads.has(t.download_hash)))
      .map((t) => {
        const status = organizeStatusOf(t);
        const d = j.downloads.find((x) => x.hash === t.download_hash) ?? this.journal.download(t.download_hash!);
        return {
          id: `th-${t.id}`,
          downloadId: t.download_hash ?? null,
          mediaEntityId:
            d?.mediaEntityId ?? `${t.media_source === 'themoviedb' ? 'tmdb' : t.media_source}:${t.media_id}`,
          status,
          libraryPath: status === 'succeeded' ? t.dest : null,
        };
      });
    const plans = j.plans.map((p) => {
      let status: 'draft' | 'submitted' | 'done' | 'failed' = 'draft';
      if (p.type === 'download') {
        const d = downloads.find((x) => j.downloads.find((y) => y.hash === x.id)?.planId === p.id);
        if (d)
          status =
            d.status === 'imported'
              ? 'done'
              : ['failed', 'removed', 'stalled'].includes(d.status)
                ? 'failed'
                : 'submitted';
      } else {
        const o = j.organizes.find((x) => x.planId === p.id);
        const recs = o ? organizes.filter((x) => x.downloadId === o.downloadId) : [];
        if (recs.length)
          status = recs.every((r) => r.status === 'succeeded')
            ? 'done'
            : recs.some((r) => r.status === 'running')
              ? 'submitted'
              : 'failed';
      }
      return { id: p.id, type: p.type, mediaEntityId: p.mediaEntityId, status };
    });
    const entities = new Map<string, string>();
    for (const t of j.touched) entities.set(t.mediaEntityId, t.title);
    for (const d of j.downloads) entities.set(d.mediaEntityId, d.title);
    const library: GoalFactsSnapshot['library'] = [];
    for (const [mediaEntityId, title] of entities) {
      const ref = parseMediaEntityId(mediaEntityId);
      if (!ref) continue;
      const r = await this.client.ok<{ item?: { id?: unknown } }>('library.exists', {
        query: toV3Identity(ref),
        ...(signal ? { signal } : {}),
      });
      library.push({ mediaEntityId, title, present: r.data?.item?.id !== undefined });
    }
    return { plans, downloads, organizes, library };
  }
}
