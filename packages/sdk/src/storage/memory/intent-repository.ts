// Intents in the memory store (the rules of ports/intent-repository.ts).
import type { IntentRecord } from '../../core/intent-records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { MemoryTables, SyncRepository } from './memory-tables';

/** Whether `a` and `b` are the same holder: the same run, or both outside runs and the same actor. */
const sameHolder = (a: IntentRecord, b: IntentRecord): boolean =>
  a.holderRunId !== null ? a.holderRunId === b.holderRunId : b.holderRunId === null && a.holderActor === b.holderActor;

/** The intents repository. Synchronous; writes register their undo on `t`. @internal */
export function memoryIntentRepository(t: MemoryTables): SyncRepository<StorageSession['intents']> {
  return {
    acquire: (record, now) => {
      const stored = t.table<IntentRecord>('intents').get(record.key);
      if (stored && stored.expiresAt > now && !sameHolder(stored, record))
        return t.read<IntentRecord>('intents', record.key)!;
      const next: IntentRecord =
        stored && sameHolder(stored, record)
          ? { ...record, planId: stored.planId ?? record.planId, createdAt: stored.createdAt }
          : { ...record };
      t.write('intents', record.key, next);
      return t.read<IntentRecord>('intents', record.key)!;
    },
    release: (key, holderRunId) => {
      const stored = t.table<IntentRecord>('intents').get(key);
      if (!stored || stored.holderRunId !== holderRunId) return false;
      t.remove('intents', key);
      return true;
    },
    get: (key) => t.read<IntentRecord>('intents', key),
    releaseByRun: (runId) => {
      const held = [...t.table<IntentRecord>('intents').values()].filter((i) => i.holderRunId === runId);
      for (const i of held) t.remove('intents', i.key);
      return held.length;
    },
  };
}
