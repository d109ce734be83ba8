import type { PlanRecord } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { MemoryTables, SyncRepository } from './memory-tables';

/** The plans repository. Synchronous; writes register their undo on `t`. @internal */
export function memoryPlanRepository(t: MemoryTables): SyncRepository<StorageSession['plans']> {
  return {
    insert: (record) => t.insertNew('plans', record.id, record),
    get: (id) => t.read<PlanRecord>('plans', id),
    compareAndSet: (id, expectedRevision, record) => {
      const current = t.read<PlanRecord>('plans', id);
      if (!current || current.revision !== expectedRevision) return false;
      t.write('plans', id, { ...record, id });
      return true;
    },
  };
}
