import { StorageError } from '../errors';
import type { GrantRecord } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import { byCodePoint, type MemoryTables, type SyncRepository } from './memory-tables';

/** The grants repository. Synchronous; writes register their undo on `t`. @internal */
export function memoryGrantRepository(t: MemoryTables): SyncRepository<StorageSession['grants']> {
  return {
    insert: (record) => t.insertNew('grants', record.id, record),
    get: (id) => t.read<GrantRecord>('grants', id),
    update: (record) => {
      if (!t.table('grants').has(record.id)) throw new StorageError(`no grant with id ${record.id}`);
      t.write('grants', record.id, record);
    },
    list: (filter = {}) =>
      t
        .all<GrantRecord>('grants')
        .filter((g) => filter.status === undefined || g.status === filter.status)
        .sort((a, b) => a.createdAt - b.createdAt || byCodePoint(a.id, b.id)),
  };
}
