import type { InboxRecord } from '../../core/run-records';
import type { StorageSession } from '../../ports/storage-adapter';
import { byCodePoint, copy, type MemoryTables, type SyncRepository } from './memory-tables';

/** The inbox repository. Synchronous; writes register their undo on `t`. @internal */
export function memoryInboxRepository(t: MemoryTables): SyncRepository<StorageSession['inbox']> {
  return {
    enqueue: (record) => t.insertNew('inbox', record.id, record),
    listQueued: (runId) => {
      // Only the run's queued messages are copied (not every message of every run, then filtered).
      const out: InboxRecord[] = [];
      for (const m of t.table<InboxRecord>('inbox').values())
        if (m.runId === runId && m.status === 'queued') out.push(copy(m));
      return out.sort((a, b) => a.createdAt - b.createdAt || byCodePoint(a.id, b.id));
    },
    markApplied: (ids, at) => {
      let n = 0;
      for (const id of new Set(ids)) {
        const current = t.read<InboxRecord>('inbox', id);
        if (!current || current.status !== 'queued') continue;
        t.write('inbox', id, { ...current, status: 'applied', appliedAt: at });
        n++;
      }
      return n;
    },
  };
}
