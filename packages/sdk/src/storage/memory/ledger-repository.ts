import type { LedgerEntry, LedgerState } from '../../core/records';
import { scopeKey } from '../../core/scope-key';
import type { StorageSession } from '../../ports/storage-adapter';
import { byCodePoint, copy, definedFields, type MemoryTables, type SyncRepository } from './memory-tables';

/** Keeps an index (grant id or run id → ledger keys) in step with a ledger write of `key`. */
function indexBy(index: Map<string, Set<string>>, key: string, before: string | null, after: string | null): void {
  if (before === after) return;
  if (before !== null) {
    const keys = index.get(before);
    keys?.delete(key);
    if (keys?.size === 0) index.delete(before);
  }
  if (after !== null) {
    let keys = index.get(after);
    if (!keys) index.set(after, (keys = new Set()));
    keys.add(key);
  }
}

/** The ledger repository: entries by idempotency key, with a (scope, call id) index and a per-grant index. Synchronous; writes register their undo on `t`. @internal */
export function memoryLedgerRepository(t: MemoryTables): SyncRepository<StorageSession['ledger']> {
  /** `scopeKey(scopeId, callId)` → ledger key (scope and call id never change after insertion; length-prefixed,
   * so a NUL or any other character in a scope or call id cannot make two pairs one entry). */
  const callIndex = new Map<string, string>();
  /** Grant id → ledger keys, so budget counts scan only that grant's entries. */
  const byGrant = new Map<string, Set<string>>();
  /** Run id → ledger keys, so a run's entries are found without scanning the whole ledger. */
  const byRun = new Map<string, Set<string>>();
  t.index('ledger', (key, before, after) => {
    const b = before as LedgerEntry | undefined;
    const a = after as LedgerEntry | undefined;
    indexBy(byGrant, key, b?.grantId || null, a?.grantId || null);
    indexBy(byRun, key, b?.runId ?? null, a?.runId ?? null);
  });
  return {
    get: (key) => t.read<LedgerEntry>('ledger', key),
    findByCall: (scopeId, callId) => {
      const key = callIndex.get(scopeKey(scopeId, callId));
      return key === undefined ? undefined : t.read<LedgerEntry>('ledger', key);
    },
    insert: (entry) => {
      if (t.table('ledger').has(entry.key)) return false;
      // (scopeId, callId) is unique too, as the SQL adapters' unique index.
      const indexKey = entry.callId === null ? null : scopeKey(entry.scopeId, entry.callId);
      if (indexKey !== null && callIndex.has(indexKey)) return false;
      t.write('ledger', entry.key, entry);
      if (indexKey !== null) {
        callIndex.set(indexKey, entry.key);
        t.undo!.push(() => callIndex.delete(indexKey));
      }
      return true;
    },
    compareAndSet: (key, expectedToken, patch, expectedStates) => {
      const current = t.table<LedgerEntry>('ledger').get(key);
      if (!current || current.token !== expectedToken) return false;
      if (expectedStates && !expectedStates.includes(current.state)) return false;
      // Stored records are never changed in place: the new one shares the old one's nested values and
      // holds copies of the patch's.
      t.write('ledger', key, Object.assign({ ...current }, copy(definedFields(patch)), { key }), true);
      return true;
    },
    listByState: (states, options = {}) =>
      [...t.table<LedgerEntry>('ledger').values()]
        .filter(
          (e) =>
            states.includes(e.state) && (options.claimedBefore === undefined || e.claimedAt < options.claimedBefore),
        )
        .sort((a, b) => a.claimedAt - b.claimedAt || byCodePoint(a.key, b.key))
        .slice(0, options.limit ?? Number.MAX_SAFE_INTEGER)
        .map((e) => copy(e)),
    listByRun: (runId, options = {}) =>
      [...(byRun.get(runId) ?? [])]
        .map((key) => t.table<LedgerEntry>('ledger').get(key)!)
        .sort((a, b) => a.claimedAt - b.claimedAt || byCodePoint(a.key, b.key))
        .slice(0, options.limit ?? 100)
        .map((e) => copy(e)),
    usageForGrant: (grantId, from, to) => {
      let invocations = 0;
      let bytes = 0;
      const ledger = t.table<LedgerEntry>('ledger');
      for (const key of byGrant.get(grantId) ?? []) {
        const e = ledger.get(key)!;
        if (e.claimedAt >= from && e.claimedAt < to) {
          invocations++;
          bytes += e.bytes;
        }
      }
      return { invocations, bytes };
    },
    deleteSettledBefore: (settledBefore, states: readonly LedgerState[]) => {
      let n = 0;
      for (const e of [...t.table<LedgerEntry>('ledger').values()]) {
        // `running` and `unknown` are never deleted by age, whatever `states` says.
        if (e.state === 'running' || e.state === 'unknown') continue;
        if (states.includes(e.state) && e.settledAt !== null && e.settledAt < settledBefore) {
          t.remove('ledger', e.key);
          const indexKey = e.callId === null ? null : scopeKey(e.scopeId, e.callId);
          if (indexKey !== null && callIndex.get(indexKey) === e.key) {
            callIndex.delete(indexKey);
            t.undo!.push(() => callIndex.set(indexKey, e.key));
          }
          n++;
        }
      }
      return n;
    },
  };
}
