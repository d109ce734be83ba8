import type { GoalFacts, GoalFactsSnapshot } from '@media-agent/sdk';
import type { PlanService } from '@media-agent/sdk/authorization';
import type { V2HostView } from './host-view';
import { organizeRecord } from './mapping';

/**
 * `GoalFacts` from the MoviePilot 2.x host: the downloads a run submitted (downloader list,
 * download history), their transfers (transfer history) and whether each title the run touched is
 * in the media server library (`GET /api/v1/mediaserver/exists`). A download counts as `imported`
 * only when its transfer succeeded and the library says the title is there.
 * @internal
 */
export class V2GoalFacts implements GoalFacts {
  constructor(
    private readonly view: V2HostView,
    private readonly plans: PlanService,
  ) {}

  async forRun(runId: string, signal?: AbortSignal): Promise<GoalFactsSnapshot> {
    const state = await this.view.tracking.read();
    const run = state.runs[runId];
    if (!run) return { plans: [], downloads: [], organizes: [], library: [] };
    const [all, transfers] = await Promise.all([this.view.downloads(signal), this.view.transfers(signal)]);
    const library = new Map<string, boolean>();
    const present = async (entity: string) => {
      if (!library.has(entity))
        library.set(entity, (await this.view.inLibrary(entity, this.view.kindOf(entity, runId), signal)).present);
      return library.get(entity)!;
    };
    const mine = all.filter(
      (d) => run.downloads.includes(d.job.id) || (d.job.planId !== '' && run.plans.includes(d.job.planId)),
    );
    const downloads: GoalFactsSnapshot['downloads'] = [];
    for (const d of mine) {
      let status = d.job.status;
      if (status === 'imported' && !(await present(d.job.mediaEntityId))) status = 'completed';
      downloads.push({ id: d.job.id, mediaEntityId: d.job.mediaEntityId, title: d.job.title, status });
    }
    const hashes = new Set(mine.map((d) => d.job.id));
    const organizes = transfers
      .filter((t) => (t.download_hash && hashes.has(t.download_hash)) || run.organizes.includes(String(t.id)))
      .map((t) => {
        const o = organizeRecord(t, null);
        return {
          id: o.id,
          downloadId: o.downloadId,
          mediaEntityId: o.mediaEntityId,
          status: o.status,
          libraryPath: o.libraryPath,
        };
      });
    const plans: GoalFactsSnapshot['plans'] = [];
    for (const id of run.plans) {
      const plan = await this.plans.get(id).catch(() => undefined);
      if (!plan || (plan.type !== 'download' && plan.type !== 'organize')) continue;
      const target =
        plan.type === 'download'
          ? mine.find((d) => d.job.planId === id)
          : mine.find((d) => d.job.id === (plan.payload as { downloadId?: string }).downloadId);
      const job = downloads.find((d) => d.id === target?.job.id);
      const status: GoalFactsSnapshot['plans'][number]['status'] = !job
        ? 'draft'
        : job.status === 'imported'
          ? 'done'
          : ['failed', 'removed', 'stalled'].includes(job.status)
            ? 'failed'
            : plan.type === 'organize' && job.status === 'completed'
              ? 'draft'
              : 'submitted';
      plans.push({ id, type: plan.type, mediaEntityId: plan.mediaEntityId, status });
    }
    const entities = [...new Set([...run.entities, ...mine.map((d) => d.job.mediaEntityId)])];
    const titles = new Map(mine.map((d) => [d.job.mediaEntityId, d.job.title]));
    const lib: GoalFactsSnapshot['library'] = [];
    for (const e of entities) lib.push({ mediaEntityId: e, title: titles.get(e) ?? e, present: await present(e) });
    return { plans, downloads, organizes, library: lib };
  }
}
