import type { RunEventRecord } from '../../core/run-records';
import type { StorageSession } from '../../ports/storage-adapter';
import { copy, type MemoryTables, type SyncRepository } from './memory-tables';

/** The run events repository. Synchronous; writes register their undo on `t`. @internal */
export function memoryRunEventRepository(t: MemoryTables): SyncRepository<StorageSession['events']> {
  /** Every run event, in `globalSeq` order (append-only; a rollback pops its own appends). */
  const eventLog = t.eventLog;
  /** Run id → its events, index `seq - 1`. */
  const eventsByRun = t.eventsByRun;
  /** Last global event sequence handed out; never lowered, so a rolled-back append leaves a gap, never a reuse. */
  let globalSeq = 0;
  return {
    append: (event) => {
      const seq = (eventsByRun.get(event.runId)?.length ?? 0) + 1;
      // The global counter is never lowered on rollback: a rolled-back append leaves a gap, never a reuse.
      // The event's fields (copied in) but `messageCount`, then `seq`, `globalSeq` and `messageCount`: absent,
      // not undefined, on events that mark no step boundary (as SQL's NULL reads back).
      const fields: Record<string, unknown> = {};
      for (const key in event) {
        if (key === 'messageCount' || !Object.hasOwn(event, key)) continue;
        const value = copy((event as unknown as Record<string, unknown>)[key]);
        if (key === '__proto__')
          Object.defineProperty(fields, key, { value, enumerable: true, writable: true, configurable: true });
        else fields[key] = value;
      }
      fields.seq = seq;
      fields.globalSeq = ++globalSeq;
      const { messageCount } = event;
      if (messageCount !== undefined && messageCount !== null) fields.messageCount = messageCount;
      const stored = fields as unknown as RunEventRecord;
      t.appendIndexed(eventsByRun, event.runId, stored, eventLog);
      return copy(stored);
    },
    listByRun: (runId, options = {}) => {
      const list = eventsByRun.get(runId) ?? [];
      const after = Math.max(0, Math.floor(options.afterSeq ?? 0));
      return list.slice(after, after + Math.max(0, options.limit ?? 100)).map((e) => copy(e));
    },
    listAfter: (after = 0, limit = 100) => {
      const log = eventLog;
      let lo = 0;
      let hi = log.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (log[mid]!.globalSeq <= after) lo = mid + 1;
        else hi = mid;
      }
      return log.slice(lo, lo + Math.max(0, limit)).map((e) => copy(e));
    },
  };
}
