import type { BudgetCounters, BudgetReservation } from '../../core/budget-records';
import type { StorageSession } from '../../ports/storage-adapter';
import { byCodePoint, type MemoryTables, type SyncRepository } from './memory-tables';

const counterKey = (subject: string, period: string, start: number) => `${subject}\0${period}\0${start}`;

/** The spending counters and reservations repository. Synchronous; writes register their undo on `t`. @internal */
export function memoryBudgetUsageRepository(t: MemoryTables): SyncRepository<StorageSession['budgetUsage']> {
  const counters = () => t.table<BudgetCounters>('budgetUsage');
  const reservations = () => t.table<BudgetReservation>('budgetReservations');
  const zero = (subject: string, period: BudgetCounters['period'], start: number): BudgetCounters => ({
    subject,
    period,
    start,
    runs: 0,
    modelCalls: 0,
    tokens: 0,
    costUsd: 0,
  });
  return {
    get: (subject, period, start) => {
      const stored = counters().get(counterKey(subject, period, start));
      return stored ? { ...stored } : zero(subject, period, start);
    },
    add: (subject, period, start, delta) => {
      const key = counterKey(subject, period, start);
      const current = counters().get(key) ?? zero(subject, period, start);
      const next: BudgetCounters = {
        ...current,
        runs: current.runs + delta.runs,
        modelCalls: current.modelCalls + delta.modelCalls,
        tokens: current.tokens + delta.tokens,
        costUsd: current.costUsd + delta.costUsd,
      };
      // Built here of numbers and the stored counters' strings: stored as it is (no copy of a copy).
      t.write('budgetUsage', key, next, true);
      return { ...next };
    },
    reservation: (key) => {
      const stored = reservations().get(key);
      return stored ? { ...stored } : undefined;
    },
    reserve: (record) => {
      if (reservations().has(record.key)) return false;
      t.write('budgetReservations', record.key, record);
      return true;
    },
    updateReservation: (key, expectedState, patch) => {
      const stored = reservations().get(key);
      if (!stored || stored.state !== expectedState) return false;
      t.write('budgetReservations', key, { ...stored, ...patch });
      return true;
    },
    reservations: (filter = {}) => {
      const out = [...reservations().values()]
        .filter(
          (r) =>
            (filter.state === undefined || r.state === filter.state) &&
            (filter.runId === undefined || r.runId === filter.runId),
        )
        .sort((a, b) => a.createdAt - b.createdAt || byCodePoint(a.key, b.key))
        .map((r) => ({ ...r }));
      return filter.limit === undefined ? out : out.slice(0, Math.max(0, Math.floor(filter.limit)));
    },
  };
}
