import type { RunRecord } from '../../core/run-records';
import { TERMINAL_RUN_STATUSES } from '../../core/run-records';
import type { StorageSession } from '../../ports/storage-adapter';
import { byCodePoint, copy, type MemoryTables, type SyncRepository } from './memory-tables';

/** Whether `run` may be leased at `now` (the rule documented on `RunRepository.acquireLease`). */
function runnable(run: RunRecord, now: number): boolean {
  if (TERMINAL_RUN_STATUSES.includes(run.status)) return false;
  const leaseFree = run.leaseOwner === null || run.leaseExpiresAt === null || run.leaseExpiresAt <= now;
  if (!leaseFree) return false;
  if (run.status === 'queued' || run.status === 'running') return true;
  return run.wakeRequested || run.abortRequested || (run.notBefore !== null && run.notBefore <= now);
}

/** The runs repository, with run leases. Synchronous; writes register their undo on `t`. @internal */
export function memoryRunRepository(t: MemoryTables): SyncRepository<StorageSession['runs']> {
  /** The stored record itself (never handed out, never changed in place). */
  const stored = (id: string) => t.table<RunRecord>('runs').get(id);
  /** `run` (a copy) with `prunedAt` when retention pruned it (kept apart, as `runs.pruned_at` in SQL); else without. */
  const shown = (run: RunRecord): RunRecord => {
    if (!Object.hasOwn(run, 'prunedAt')) {
      const prunedAt = t.prunedRuns.get(run.id);
      return prunedAt === undefined ? run : { ...run, prunedAt };
    }
    const { prunedAt: _ignored, ...rest } = run;
    const prunedAt = t.prunedRuns.get(run.id);
    return prunedAt === undefined ? (rest as RunRecord) : { ...rest, prunedAt };
  };
  return {
    insert: (run) => {
      const { prunedAt: _ignored, forkedFrom, ...rest } = run;
      // `forkedFrom` is kept only when set (absent, not undefined, on a run that is not a fork).
      t.insertNew('runs', run.id, (forkedFrom ? { ...rest, forkedFrom } : rest) as RunRecord);
    },
    get: (id) => {
      const run = t.read<RunRecord>('runs', id);
      return run && shown(run);
    },
    patch: (id, patch, expectLeaseOwner) => {
      // Stored records are never changed in place, so the next one may share the unchanged fields of
      // the current one: only the patch is copied in (not the whole record, read and written).
      const current = stored(id);
      if (!current) return undefined;
      if (expectLeaseOwner !== undefined && current.leaseOwner !== expectLeaseOwner) return undefined;
      // The patch's defined fields but `forkedFrom` (set at insert only), each copied in.
      const next = { ...current } as Record<string, unknown>;
      for (const key in patch) {
        if (key === 'forkedFrom' || !Object.hasOwn(patch, key)) continue;
        const value = (patch as Record<string, unknown>)[key];
        if (value !== undefined) next[key] = copy(value);
      }
      next.id = id;
      t.write('runs', id, next, true);
      return shown(copy(next as unknown as RunRecord));
    },
    list: (filter = {}) =>
      t
        .all<RunRecord>('runs')
        .filter(
          (r) =>
            (filter.status === undefined || r.status === filter.status) &&
            (filter.sessionId === undefined || r.sessionId === filter.sessionId) &&
            (filter.startedBy === undefined || r.startedBy === filter.startedBy),
        )
        .sort((a, b) => b.createdAt - a.createdAt || byCodePoint(b.id, a.id))
        .slice(0, filter.limit ?? Number.MAX_SAFE_INTEGER)
        .map(shown),
    acquireLease: (owner, now, leaseMs) => {
      let pick: RunRecord | undefined;
      for (const run of t.table<RunRecord>('runs').values()) {
        if (!runnable(run, now)) continue;
        if (
          !pick ||
          run.createdAt < pick.createdAt ||
          (run.createdAt === pick.createdAt && byCodePoint(run.id, pick.id) < 0)
        )
          pick = run;
      }
      if (!pick) return undefined;
      const next: RunRecord = { ...pick, leaseOwner: owner, leaseExpiresAt: now + leaseMs };
      t.write('runs', next.id, next, true);
      return shown(copy(next));
    },
    renewLease: (id, owner, now, leaseMs) => {
      const current = stored(id);
      if (!current || current.leaseOwner !== owner) return false;
      t.write('runs', id, { ...current, leaseExpiresAt: now + leaseMs }, true);
      return true;
    },
    releaseLease: (id, owner) => {
      const current = stored(id);
      if (!current || current.leaseOwner !== owner) return false;
      t.write('runs', id, { ...current, leaseOwner: null, leaseExpiresAt: null }, true);
      return true;
    },
    totalsBetween: (from, to) => {
      let runs = 0;
      let costUsd = 0;
      for (const r of t.table<RunRecord>('runs').values()) {
        if (r.createdAt >= from && r.createdAt < to) {
          runs++;
          costUsd += r.usage.costUsd;
        }
      }
      return { runs, costUsd };
    },
  };
}
