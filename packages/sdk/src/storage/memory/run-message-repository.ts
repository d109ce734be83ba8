import type { RunMessageRecord } from '../../core/run-records';
import type { StorageSession } from '../../ports/storage-adapter';
import { copy, type MemoryTables, type SyncRepository } from './memory-tables';

/** The run conversation repository. Synchronous; writes register their undo on `t`. @internal */
export function memoryRunMessageRepository(t: MemoryTables): SyncRepository<StorageSession['messages']> {
  /** Run id → its conversation, index `seq - 1`. */
  const messagesByRun = t.messagesByRun;
  return {
    append: (runId, message, at) => {
      const seq = (messagesByRun.get(runId)?.length ?? 0) + 1;
      const stored: RunMessageRecord = copy({ runId, seq, message, at });
      t.appendIndexed(messagesByRun, runId, stored);
      return copy(stored);
    },
    list: (runId) => (messagesByRun.get(runId) ?? []).map((m) => copy(m)),
  };
}
