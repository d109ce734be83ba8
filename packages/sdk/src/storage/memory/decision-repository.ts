import type { DecisionRecord } from '../../core/run-records';
import type { StorageSession } from '../../ports/storage-adapter';
import { byCodePoint, type MemoryTables, type SyncRepository } from './memory-tables';

/** The decisions repository. Synchronous; writes register their undo on `t`. @internal */
export function memoryDecisionRepository(t: MemoryTables): SyncRepository<StorageSession['decisions']> {
  /** Dedupe key → decision id. */
  const decisionKeys = new Map<string, string>();
  return {
    insert: (record) => {
      if (decisionKeys.has(record.dedupeKey)) return false;
      t.insertNew('decisions', record.id, record);
      decisionKeys.set(record.dedupeKey, record.id);
      t.undo!.push(() => decisionKeys.delete(record.dedupeKey));
      return true;
    },
    get: (id) => t.read<DecisionRecord>('decisions', id),
    getByKey: (dedupeKey) => {
      const id = decisionKeys.get(dedupeKey);
      return id === undefined ? undefined : t.read<DecisionRecord>('decisions', id);
    },
    update: (record, expectedRevision) => {
      const stored = t.read<DecisionRecord>('decisions', record.id);
      if (!stored || stored.revision !== expectedRevision) return false;
      t.write('decisions', record.id, { ...record, dedupeKey: stored.dedupeKey });
      return true;
    },
    list: (filter = {}) =>
      t
        .all<DecisionRecord>('decisions')
        .filter(
          (d) =>
            (filter.status === undefined || d.status === filter.status) &&
            (filter.subjectId === undefined || d.subjectId === filter.subjectId) &&
            (filter.kind === undefined || d.kind === filter.kind) &&
            (filter.rootCause === undefined || d.rootCause === filter.rootCause),
        )
        .sort((a, b) => b.createdAt - a.createdAt || byCodePoint(b.id, a.id)),
  };
}
