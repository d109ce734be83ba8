import type { GrantUsage } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { MemoryTables, SyncRepository } from './memory-tables';

/** The grant usage counters repository. Synchronous; writes register their undo on `t`. @internal */
export function memoryGrantUsageRepository(t: MemoryTables): SyncRepository<StorageSession['grantUsage']> {
  const usageKey = (grantId: string, day: number) => `${grantId}\0${day}`;
  return {
    get: (grantId, day) => {
      const stored = t.table<GrantUsage>('grantUsage').get(usageKey(grantId, day));
      return stored ? { ...stored } : { grantId, day, invocations: 0, bytes: 0 };
    },
    add: (grantId, day, invocations, bytes) => {
      const key = usageKey(grantId, day);
      const current = t.table<GrantUsage>('grantUsage').get(key);
      const next: GrantUsage = {
        grantId,
        day,
        invocations: (current?.invocations ?? 0) + invocations,
        bytes: (current?.bytes ?? 0) + bytes,
      };
      t.write('grantUsage', key, next);
      return { ...next };
    },
  };
}
