import type { PolicyRevisionRecord } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import { byCodePoint, type MemoryTables, type SyncRepository } from './memory-tables';

/** The policy revisions repository. Synchronous; writes register their undo on `t`. @internal */
export function memoryPolicyRevisionRepository(t: MemoryTables): SyncRepository<StorageSession['policies']> {
  return {
    put: (record) => t.write('policies', record.id, record),
    get: (id) => t.read<PolicyRevisionRecord>('policies', id),
    listByKind: (kind) =>
      t
        .all<PolicyRevisionRecord>('policies')
        .filter((p) => p.kind === kind)
        .sort((a, b) => a.createdAt - b.createdAt || byCodePoint(a.id, b.id)),
  };
}
