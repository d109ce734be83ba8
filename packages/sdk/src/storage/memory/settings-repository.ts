import type { JsonValue } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { MemoryTables, SyncRepository } from './memory-tables';

/** The settings repository. Synchronous; writes register their undo on `t`. @internal */
export function memorySettingsRepository(t: MemoryTables): SyncRepository<StorageSession['settings']> {
  return {
    get: (key) => t.read<JsonValue>('settings', key),
    set: (key, value) => t.write('settings', key, value),
  };
}
