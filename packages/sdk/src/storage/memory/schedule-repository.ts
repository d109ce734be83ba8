// Schedules and their tick claims in the memory store (the rules of ports/schedule-repository.ts).
import type { RunRecord } from '../../core/run-records';
import type { ScheduleRecord, ScheduleTickRecord } from '../../core/schedule-records';
import type { StorageSession } from '../../ports/storage-adapter';
import { StorageError } from '../errors';
import { byCodePoint, type MemoryTables, type SyncRepository } from './memory-tables';

/** The key of a tick record in its table. */
const tickKey = (scheduleId: string, tickAt: number): string => `${scheduleId}\u0000${tickAt}`;

/** The schedules repository. Synchronous; writes register their undo on `t`. @internal */
export function memoryScheduleRepository(t: MemoryTables): SyncRepository<StorageSession['schedules']> {
  const ticksOf = (scheduleId: string): ScheduleTickRecord[] =>
    [...t.table<ScheduleTickRecord>('scheduleTicks').values()].filter((k) => k.scheduleId === scheduleId);
  return {
    insert: (record) => {
      if (t.table('schedules').has(record.id))
        throw new StorageError(`MemoryStorage: duplicate schedule id ${record.id}`);
      if (
        record.clientKey !== null &&
        [...t.table<ScheduleRecord>('schedules').values()].some(
          (s) => s.owner === record.owner && s.clientKey === record.clientKey,
        )
      )
        return false;
      t.write('schedules', record.id, record);
      return true;
    },
    get: (id) => t.read<ScheduleRecord>('schedules', id),
    findByClientKey: (owner, clientKey) => {
      const found = [...t.table<ScheduleRecord>('schedules').values()].find(
        (s) => s.owner === owner && s.clientKey === clientKey,
      );
      return found ? t.read<ScheduleRecord>('schedules', found.id) : undefined;
    },
    compareAndSet: (id, expectedRevision, record) => {
      const current = t.table<ScheduleRecord>('schedules').get(id);
      if (!current || current.revision !== expectedRevision) return false;
      t.write('schedules', id, { ...record, id });
      return true;
    },
    delete: (id, expectedRevision) => {
      const current = t.table<ScheduleRecord>('schedules').get(id);
      if (!current || current.revision !== expectedRevision) return false;
      for (const k of ticksOf(id)) t.remove('scheduleTicks', tickKey(k.scheduleId, k.tickAt));
      t.remove('schedules', id);
      return true;
    },
    list: (filter = {}) =>
      t
        .all<ScheduleRecord>('schedules')
        .filter((s) => filter.owner === undefined || s.owner === filter.owner)
        .filter((s) => filter.status === undefined || s.status === filter.status)
        .sort((a, b) => a.createdAt - b.createdAt || byCodePoint(a.id, b.id))
        .slice(0, filter.limit ?? 100),
    due: (now, limit) =>
      t
        .all<ScheduleRecord>('schedules')
        .filter((s) => s.status === 'active' && s.nextTickAt !== null && s.nextTickAt <= now)
        .sort((a, b) => (a.nextTickAt ?? 0) - (b.nextTickAt ?? 0) || byCodePoint(a.id, b.id))
        .slice(0, limit),
    lockDue: (id, now) => {
      const found = t.read<ScheduleRecord>('schedules', id);
      return found && found.status === 'active' && found.nextTickAt !== null && found.nextTickAt <= now
        ? found
        : undefined;
    },
    claimTick: (tick) => {
      const key = tickKey(tick.scheduleId, tick.tickAt);
      if (t.table('scheduleTicks').has(key)) return false;
      t.write('scheduleTicks', key, tick);
      return true;
    },
    ticks: (scheduleId, options = {}) =>
      ticksOf(scheduleId)
        .filter((k) => options.before === undefined || k.tickAt < options.before)
        .sort((a, b) => b.tickAt - a.tickAt)
        .slice(0, options.limit ?? 50)
        .map((k) => ({ ...k })),
    firedBetween: (scheduleId, from, to) => {
      let runs = 0;
      let costUsd = 0;
      for (const k of ticksOf(scheduleId)) {
        if (k.outcome !== 'fired' || k.tickAt < from || k.tickAt >= to) continue;
        runs++;
        const run = k.runId === null ? undefined : t.table<RunRecord>('runs').get(k.runId);
        costUsd += run?.usage.costUsd ?? 0;
      }
      return { runs, costUsd };
    },
  };
}
