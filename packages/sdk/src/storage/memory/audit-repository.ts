import { StorageError } from '../errors';
import { AUDIT_GENESIS_HASH, auditRowHash } from '../../core/audit-chain';
import type { AuditRecord } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import type { MemoryTables, SyncRepository } from './memory-tables';

/** Lower bound: the index of the first audit row with `seq > after` (rows are in `seq` order). */
function firstAfter(log: readonly AuditRecord[], after: number): number {
  let lo = 0;
  let hi = log.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (log[mid]!.seq <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The audit log repository (append-only, `seq` order, one hash chain). Synchronous; writes register their undo on `t`. @internal */
export function memoryAuditRepository(t: MemoryTables): SyncRepository<StorageSession['audit']> {
  let auditSeq = 0;
  const auditIds = t.auditIds;
  /** Audit rows in `seq` order (appended; a rollback pops its own appends; retention removes a prefix). */
  const auditLog = t.auditLog;
  return {
    append: (record) => {
      if (auditIds.has(record.id)) throw new StorageError(`MemoryStorage: duplicate id ${record.id} in audit`);
      if (!t.undo) throw new Error('MemoryStorage: write outside a transaction');
      const seq = ++auditSeq;
      // The chain (docs/audit.md): linked to the newest row; appends are synchronous, so nothing comes between.
      const prevHash = auditLog[auditLog.length - 1]?.hash ?? AUDIT_GENESIS_HASH;
      // Every field of an audit row is a string, a number or null: a shallow copy is a copy.
      const stored: AuditRecord = { ...record, seq, prevHash, hash: auditRowHash(prevHash, record) };
      auditIds.add(record.id);
      auditLog.push(stored);
      t.undo.push(() => {
        auditIds.delete(record.id);
        if (auditLog[auditLog.length - 1] === stored) auditLog.pop();
        auditSeq = Math.min(auditSeq, seq - 1);
      });
      return { ...stored };
    },
    list: (filter = {}) => {
      const limit = Math.max(0, filter.limit ?? 100);
      const out: AuditRecord[] = [];
      const log = auditLog;
      for (let i = firstAfter(log, filter.after ?? 0); i < log.length && out.length < limit; i++) {
        const a = log[i]!;
        if (
          (filter.action === undefined || a.action === filter.action) &&
          (filter.capabilityId === undefined || a.capabilityId === filter.capabilityId) &&
          (filter.invocationId === undefined || a.invocationId === filter.invocationId)
        )
          out.push({ ...a });
      }
      return out;
    },
  };
}
