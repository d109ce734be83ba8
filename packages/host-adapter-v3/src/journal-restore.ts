import type { RunEventRecord, StorageAdapter } from '@media-agent/sdk/storage';
import type { V3RunJournal } from './journal';

/** The fields of a `tool_call` event this file reads. */
interface ToolCallData {
  capabilityId?: string;
  phase?: string;
  idempotencyKey?: string;
  output?: unknown;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' ? (v as Obj) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Puts back into `journal` what run `runId` touched, from the run's stored `tool_call` events: the
 * receipts of the calls that succeeded (or are pending) in any process — entities looked up, download
 * and organize plans, submitted downloads, executed organizes. Another process that resumes the run
 * (after this one was stopped or killed, or because the run waited and any process may poll its goal)
 * then reports the same goal facts as the process that made the calls. Adding what the journal already
 * holds changes nothing.
 * @param journal - this process's journal
 * @param runId - the run
 * @param events - the run's events, any types (others are skipped)
 * @internal
 */
export function restoreRunJournal(journal: V3RunJournal, runId: string, events: readonly RunEventRecord[]): void {
  for (const e of events) {
    if (e.type !== 'tool_call') continue;
    const data = e.data as ToolCallData;
    if (data.phase !== 'succeeded' && data.phase !== 'pending') continue;
    const out = obj(data.output);
    if (!out) continue;
    switch (data.capabilityId) {
      case 'catalog.lookup': {
        const items = Array.isArray(out.items) ? out.items.map(obj) : [];
        const only = items.length === 1 ? items[0] : undefined;
        const id = str(only?.mediaEntityId);
        if (id) journal.touch(runId, id, str(only?.title) ?? id);
        break;
      }
      case 'release.search': {
        const id = str(out.mediaEntityId);
        if (id) journal.touch(runId, id, id);
        break;
      }
      case 'download.plan':
      case 'organize.plan': {
        const plan = obj(out.plan);
        const planId = str(plan?.id);
        const entity = str(plan?.mediaEntityId) ?? null;
        const title = str(obj(out.download)?.title) ?? str(obj(out.organize)?.title);
        if (entity) journal.touch(runId, entity, title ?? entity);
        if (planId)
          journal.addPlan(runId, {
            id: planId,
            type: data.capabilityId === 'download.plan' ? 'download' : 'organize',
            mediaEntityId: entity,
          });
        break;
      }
      case 'download.submit': {
        const d = obj(out.download);
        const hash = str(d?.id);
        const planId = str(d?.planId);
        const entity = str(d?.mediaEntityId);
        if (!d || !hash || !planId || !entity) break;
        journal.addPlan(runId, { id: planId, type: 'download', mediaEntityId: entity });
        journal.addDownload(runId, {
          hash,
          planId,
          releaseId: str(d.releaseId) ?? '',
          releaseName: str(d.releaseName) ?? '',
          mediaEntityId: entity,
          title: str(d.title) ?? entity,
          sizeBytes: typeof d.sizeBytes === 'number' ? d.sizeBytes : 0,
          idempotencyKey: data.idempotencyKey ?? null,
          submittedAt: typeof d.submittedAt === 'number' ? d.submittedAt : e.at,
        });
        break;
      }
      case 'organize.execute': {
        const o = obj(out.organize);
        const planId = str(o?.planId);
        const downloadId = str(o?.downloadId);
        const entity = str(o?.mediaEntityId);
        if (!planId || !downloadId || !entity) break;
        journal.addPlan(runId, { id: planId, type: 'organize', mediaEntityId: entity });
        journal.addOrganize(runId, {
          planId,
          downloadId,
          mediaEntityId: entity,
          idempotencyKey: data.idempotencyKey ?? null,
        });
        break;
      }
      case 'task.retry': {
        // A redone transfer (an automatic recovery or a person's choice): its download's organize facts count for the run.
        const task = obj(out.task);
        const o = obj(task?.organize);
        const downloadId = str(o?.downloadId);
        const entity = str(o?.mediaEntityId);
        if (!task || !downloadId || !entity) break;
        journal.touch(runId, entity, str(o?.title) || entity);
        journal.addOrganize(runId, {
          planId: `task:${str(task.id) ?? ''}`,
          downloadId,
          mediaEntityId: entity,
          idempotencyKey: data.idempotencyKey ?? null,
        });
        break;
      }
      default:
        break;
    }
  }
}

/**
 * Every stored event of a run, oldest first (read in pages of 500).
 * @param storage - the host's storage
 * @param runId - the run
 * @internal
 */
export async function storedRunEvents(storage: StorageAdapter, runId: string): Promise<RunEventRecord[]> {
  const all: RunEventRecord[] = [];
  for (;;) {
    const page = await storage.events.listByRun(runId, { afterSeq: all[all.length - 1]?.seq ?? 0, limit: 500 });
    all.push(...page);
    if (page.length < 500) return all;
  }
}
