/**
 * Retention and named leases of the memory store: the rules of `../retention-rules.ts` applied to its records.
 * @packageDocumentation
 */
import type { BudgetCounters, BudgetReservation } from '../../core/budget-records';
import type { ApprovalRecord, AuditRecord, GrantUsage, LedgerEntry, PlanRecord } from '../../core/records';
import type { DecisionRecord, InboxRecord, RunRecord } from '../../core/run-records';
import type { ScheduleTickRecord } from '../../core/schedule-records';
import {
  type MaintenanceRepository,
  type PruneBatch,
  type PruneCount,
  type PruneCriteria,
  RETENTION_KINDS,
  type RetentionKind,
} from '../../ports/maintenance-repository';
import type { StorageSession } from '../../ports/storage-adapter';
import {
  approvalAgeTime,
  auditCheckpoint,
  auditPrefixLength,
  budgetPeriodEnd,
  DAY_MS,
  decisionAgeTime,
  isApprovalPrunable,
  isDecisionPrunable,
  isLedgerEntryLive,
  isLedgerEntryPrunable,
  ledgerEntryBlocksRun,
  isPlanPrunable,
  isRunPrunable,
  isTerminalRunStatus,
  OPEN_DECISION_STATUSES,
  runIdOfActor,
  selectForPrune,
  selectScheduleTicks,
} from '../retention-rules';
import type { MemoryTables, SyncRepository } from './memory-tables';

const encoder = new TextEncoder();

/**
 * The content bytes of a stored record, like the SQLite store counts them: the UTF-8 length of each string (JSON
 * values as their JSON text) and 8 per number or boolean; null adds nothing.
 * @internal
 */
export function recordBytes(record: object): number {
  let total = 0;
  for (const value of Object.values(record)) {
    if (value === null || value === undefined) continue;
    if (typeof value === 'string') total += encoder.encode(value).length;
    else if (typeof value === 'number' || typeof value === 'boolean') total += 8;
    else total += encoder.encode(JSON.stringify(value)).length;
  }
  return total;
}

const none: PruneCount = { rows: 0, bytes: 0 };
const measure = (records: readonly object[]): PruneCount => ({
  rows: records.length,
  bytes: records.reduce((s, r) => s + recordBytes(r), 0),
});
const add = (a: PruneCount, b: PruneCount): PruneCount => ({ rows: a.rows + b.rows, bytes: a.bytes + b.bytes });
const batchOf = (batchSize: number): number => Math.max(1, Math.floor(Number.isFinite(batchSize) ? batchSize : 1));

/** One removable item: its age and key (what the criteria select by) and how to measure and remove it. */
interface Item {
  readonly age: number;
  readonly key: string;
  /** The rows it spans (measured before removal). */
  rows(): object[];
  /** Removes it (inside the transaction). */
  remove(): void;
}

/**
 * The maintenance repository of a memory store over `t`; checkpoint rows are appended with `appendAudit` (the
 * store's own audit append). Synchronous; writes register their undo on `t`.
 * @internal
 */
export function memoryMaintenanceRepository(
  t: MemoryTables,
  appendAudit: (record: AuditRecord) => AuditRecord,
): SyncRepository<MaintenanceRepository> {
  const runs = () => [...t.table<RunRecord>('runs').values()];
  const ledger = () => [...t.table<LedgerEntry>('ledger').values()];

  /** The rows `runs` removes of a run besides its row. */
  const runParts = (id: string): object[] => [
    ...(t.eventsByRun.get(id) ?? []),
    ...(t.messagesByRun.get(id) ?? []),
    ...[...t.table<InboxRecord>('inbox').values()].filter((m) => m.runId === id),
    ...[...t.table<BudgetReservation>('budgetReservations').values()].filter(
      (r) => r.runId === id && (r.state === 'settled' || r.state === 'released'),
    ),
  ];

  const removeRunParts = (id: string): void => {
    if (t.eventsByRun.has(id)) {
      t.filterLog(t.eventLog, (e) => e.runId !== id);
      t.removeKey(t.eventsByRun, id);
    }
    t.removeKey(t.messagesByRun, id);
    for (const m of [...t.table<InboxRecord>('inbox').values()]) if (m.runId === id) t.remove('inbox', m.id);
    for (const r of [...t.table<BudgetReservation>('budgetReservations').values()])
      if (r.runId === id && (r.state === 'settled' || r.state === 'released')) t.remove('budgetReservations', r.key);
  };

  function runItems(kind: 'runs' | 'runReports', now: number): Item[] {
    const all = runs();
    const liveLedger = new Set(
      ledger()
        .filter((e) => e.runId && ledgerEntryBlocksRun(e))
        .map((e) => e.runId!),
    );
    const openDecisions = new Set(
      [...t.table<DecisionRecord>('decisions').values()]
        .filter((d) => OPEN_DECISION_STATUSES.includes(d.status))
        .map((d) => d.subjectId),
    );
    const activeParents = new Set(
      all.filter((r) => r.parentRunId && !isTerminalRunStatus(r.status)).map((r) => r.parentRunId!),
    );
    return all
      .filter((r) =>
        isRunPrunable(
          { status: r.status, endedAt: r.endedAt, prunedAt: t.prunedRuns.get(r.id) ?? null },
          {
            liveLedgerEntry: liveLedger.has(r.id),
            openDecision: openDecisions.has(r.id),
            activeChild: activeParents.has(r.id),
          },
          kind,
        ),
      )
      .map((r) => ({
        age: r.endedAt!,
        key: r.id,
        rows: () => (kind === 'runs' ? runParts(r.id) : [...runParts(r.id), r]),
        remove: () => {
          removeRunParts(r.id);
          if (kind === 'runReports') {
            t.remove('runs', r.id);
            t.removeKey(t.prunedRuns, r.id);
          } else {
            t.write('runs', r.id, { ...r, runtimeState: null }, true);
            t.setKey(t.prunedRuns, r.id, now);
          }
        },
      }));
  }

  function tableItems<T extends object>(
    name: 'approvals' | 'plans' | 'decisions' | 'ledger',
    key: (r: T) => string,
    eligible: (r: T) => boolean,
    age: (r: T) => number,
  ): Item[] {
    return [...t.table<T>(name).values()].filter(eligible).map((r) => ({
      age: age(r),
      key: key(r),
      rows: () => [r],
      remove: () => t.remove(name, key(r)),
    }));
  }

  /** The items of `kind` the criteria select, oldest first (audit and counters have their own rules). */
  function selected(kind: Exclude<RetentionKind, 'audit'>, criteria: PruneCriteria): Item[] {
    const now = criteria.now;
    switch (kind) {
      case 'runs':
      case 'runReports':
        return selectForPrune(runItems(kind, now), criteria);
      case 'approvals': {
        const live = new Set(
          ledger()
            .filter((e) => e.approvalId && isLedgerEntryLive(e))
            .map((e) => e.approvalId!),
        );
        return selectForPrune(
          tableItems<ApprovalRecord>(
            'approvals',
            (a) => a.id,
            (a) => isApprovalPrunable(a, now, live.has(a.id)),
            approvalAgeTime,
          ),
          criteria,
        );
      }
      case 'plans': {
        const bound = new Set([...t.table<ApprovalRecord>('approvals').values()].map((a) => a.planId));
        const creatorLive = (p: PlanRecord): boolean => {
          const runId = runIdOfActor(p.createdBy);
          const run = runId === undefined ? undefined : t.table<RunRecord>('runs').get(runId);
          return run !== undefined && !isTerminalRunStatus(run.status);
        };
        return selectForPrune(
          tableItems<PlanRecord>(
            'plans',
            (p) => p.id,
            (p) => isPlanPrunable(bound.has(p.id), creatorLive(p)),
            (p) => p.updatedAt,
          ),
          criteria,
        );
      }
      case 'decisions':
        return selectForPrune(
          tableItems<DecisionRecord>('decisions', (d) => d.id, isDecisionPrunable, decisionAgeTime),
          criteria,
        );
      case 'ledger': {
        const runLive = (e: LedgerEntry): boolean => {
          const run = e.runId ? t.table<RunRecord>('runs').get(e.runId) : undefined;
          return run !== undefined && !isTerminalRunStatus(run.status);
        };
        return selectForPrune(
          tableItems<LedgerEntry>(
            'ledger',
            (e) => e.key,
            (e) => isLedgerEntryPrunable(e, runLive(e)),
            (e) => e.settledAt!,
          ),
          criteria,
        );
      }
      case 'grantUsage':
        return counterItems(criteria);
      case 'scheduleTicks':
        return selectScheduleTicks([...t.table<ScheduleTickRecord>('scheduleTicks').entries()].map(tickItem), criteria);
    }
  }

  /** A tick record as an item (its table key is the schedule and tick). */
  function tickItem([id, k]: [string, ScheduleTickRecord]): Item &
    Pick<ScheduleTickRecord, 'scheduleId' | 'tickAt' | 'handledAt'> {
    return {
      scheduleId: k.scheduleId,
      tickAt: k.tickAt,
      handledAt: k.handledAt,
      age: k.handledAt,
      key: id,
      rows: () => [k],
      remove: () => t.remove('scheduleTicks', id),
    };
  }

  /** Counters of periods over by `min(before, now)`: grant usage by day, then budget counters by start. */
  function counterItems(criteria: PruneCriteria): Item[] {
    const limit = Math.min(criteria.before ?? criteria.now, criteria.now);
    const grants = [...t.table<GrantUsage>('grantUsage').entries()]
      .filter(([, g]) => g.day + DAY_MS <= limit)
      .sort(([, a], [, b]) => a.day - b.day || (a.grantId < b.grantId ? -1 : a.grantId > b.grantId ? 1 : 0))
      .map(([id, g]) => ({ age: g.day, key: id, rows: () => [g], remove: () => t.remove('grantUsage', id) }));
    const budgets = [...t.table<BudgetCounters>('budgetUsage').entries()]
      .filter(([, c]) => budgetPeriodEnd(c.period, c.start) <= limit)
      .map(([id, c]) => ({ age: c.start, key: id, rows: () => [c], remove: () => t.remove('budgetUsage', id) }));
    return [...grants, ...budgets];
  }

  /** How many audit rows, from the oldest, may go. */
  const auditPrefix = (criteria: PruneCriteria): number =>
    auditPrefixLength(
      t.auditLog.map((a) => ({ seq: a.seq, at: a.at, checkpoint: a.action === 'audit.pruned' })),
      criteria,
    );

  function pruneAudit(criteria: PruneCriteria, n: number): PruneBatch {
    const length = auditPrefix(criteria);
    const take = Math.min(length, n);
    if (take === 0) return { ...none, done: true };
    const removed = t.auditLog.slice(0, take);
    const seqs = new Set(removed.map((a) => a.seq));
    t.filterLog(t.auditLog, (a) => !seqs.has(a.seq));
    for (const a of removed) {
      t.auditIds.delete(a.id);
      t.undo!.push(() => t.auditIds.add(a.id));
    }
    const head = removed[removed.length - 1]!;
    const headHash = (head as { hash?: string | null }).hash ?? null;
    appendAudit(
      auditCheckpoint(removed[0]!.seq, head.seq, removed.length, headHash, criteria.now, criteria.checkpointKey),
    );
    return { ...measure(removed), done: length <= n };
  }

  /** The tables each kind spans, for usage(). */
  const usageOf = (kind: RetentionKind): object[] => {
    switch (kind) {
      case 'runs':
        return [
          ...t.eventLog,
          ...[...t.messagesByRun.values()].flat(),
          ...t.table<object>('inbox').values(),
          ...t.table<object>('budgetReservations').values(),
        ];
      case 'runReports':
        return [...t.table<object>('runs').values()];
      case 'audit':
        return t.auditLog;
      case 'grantUsage':
        return [...t.table<object>('grantUsage').values(), ...t.table<object>('budgetUsage').values()];
      case 'scheduleTicks':
        return [...t.table<object>('scheduleTicks').values()];
      default:
        return [...t.table<object>(kind).values()];
    }
  };

  return {
    estimate: (kind, criteria) => {
      if (kind === 'audit') return measure(t.auditLog.slice(0, auditPrefix(criteria)));
      return selected(kind, criteria).reduce((total, item) => add(total, measure(item.rows())), none);
    },
    prune: (kind, criteria, batchSize) => {
      const n = batchOf(batchSize);
      if (kind === 'audit') return pruneAudit(criteria, n);
      const items = selected(kind, criteria);
      const batch = items.slice(0, n);
      let total = none;
      for (const item of batch) {
        total = add(total, measure(item.rows()));
        item.remove();
      }
      return { ...total, done: items.length <= n, items: batch.length };
    },
    usage: () => {
      const out = {} as Record<RetentionKind, PruneCount>;
      for (const kind of RETENTION_KINDS) out[kind] = measure(usageOf(kind));
      return out;
    },
    acquireLease: (name, owner, now, ttlMs) => {
      const current = t.table<{ owner: string; expiresAt: number }>('leases').get(name);
      if (current && current.owner !== owner && current.expiresAt > now) return false;
      t.write('leases', name, { owner, expiresAt: now + ttlMs });
      return true;
    },
    releaseLease: (name, owner) => {
      const current = t.table<{ owner: string; expiresAt: number }>('leases').get(name);
      if (current?.owner !== owner) return false;
      t.remove('leases', name);
      return true;
    },
  };
}

/** The session type the memory store builds this repository for. @internal */
export type MemoryMaintenance = SyncRepository<StorageSession['maintenance']>;
