import type { ApprovalRecord } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import { byCodePoint, copy, definedFields, type MemoryTables, type SyncRepository } from './memory-tables';

/** The approvals repository. Synchronous; writes register their undo on `t`. @internal */
export function memoryApprovalRepository(t: MemoryTables): SyncRepository<StorageSession['approvals']> {
  return {
    insert: (record) => t.insertNew('approvals', record.id, record),
    get: (id) => t.read<ApprovalRecord>('approvals', id),
    compareAndSet: (id, expectedStatus, patch) => {
      const current = t.read<ApprovalRecord>('approvals', id);
      if (!current || current.status !== expectedStatus) return false;
      t.write('approvals', id, Object.assign(current, definedFields(patch), { id }));
      return true;
    },
    list: (filter = {}) => {
      // Only the approvals kept are copied (not every approval, then filtered).
      const out: ApprovalRecord[] = [];
      for (const a of t.table<ApprovalRecord>('approvals').values())
        if (
          (filter.status === undefined || a.status === filter.status) &&
          (filter.planId === undefined || a.planId === filter.planId) &&
          (filter.requestedBy === undefined || a.requestedBy === filter.requestedBy)
        )
          out.push(copy(a));
      return out
        .sort((a, b) => b.requestedAt - a.requestedAt || byCodePoint(b.id, a.id))
        .slice(0, filter.limit ?? Number.MAX_SAFE_INTEGER);
    },
  };
}
