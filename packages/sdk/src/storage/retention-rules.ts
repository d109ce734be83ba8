/**
 * What retention may remove, as small pure functions: the memory store applies them to its records, and the SQL of
 * `sql/maintenance-sql.ts` states the same conditions (the storage conformance suite holds all stores to the same
 * answers). Times are in ms since the epoch.
 * @packageDocumentation
 */
import type { BudgetPeriod } from '../core/budget-records';
import { canonicalJson } from '../core/canonical-json';
import type { ApprovalRecord, AuditRecord, LedgerEntry, LedgerState } from '../core/records';
import type { DecisionRecord, RunRecord, RunStatus } from '../core/run-records';
import type { ScheduleTickRecord } from '../core/schedule-records';
import { utcDayStart } from '../core/utc-day';
import { auditCheckpointSignature } from '../core/audit-verify';
import type { PruneCriteria } from '../ports/maintenance-repository';

/** Ledger states of work that is not done: entries in them keep the approval they name live. @internal */
export const LIVE_LEDGER_STATES: readonly LedgerState[] = ['running', 'unknown', 'pending'];
/**
 * Ledger states that keep their run live for `runs`/`runReports`: work that may still be in flight. `pending` is
 * not among them: it is the normal end state of a submitted download (the entry itself stays, see
 * {@link isLedgerEntryPrunable}).
 * @internal
 */
export const RUN_BLOCKING_LEDGER_STATES: readonly LedgerState[] = ['running', 'unknown'];
/** Run statuses retention may prune (a terminal status). @internal */
export const PRUNABLE_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'];
/** Decision statuses of a decision nobody has to answer any more. @internal */
export const CLOSED_DECISION_STATUSES: readonly DecisionRecord['status'][] = ['resolved', 'dismissed'];
/** Decision statuses that keep the run they are about live. @internal */
export const OPEN_DECISION_STATUSES: readonly DecisionRecord['status'][] = ['open', 'awaiting_user'];
/** Ledger states retention removes (settled; never `running`, `unknown` or `pending`). @internal */
export const PRUNABLE_LEDGER_STATES: readonly LedgerState[] = ['succeeded', 'failed'];
/** Milliseconds in a UTC day. @internal */
export const DAY_MS = 86_400_000;

/** Whether `status` is terminal (`succeeded`, `failed`, `cancelled`, `budget_exceeded`). @internal */
export function isTerminalRunStatus(status: RunStatus): boolean {
  return PRUNABLE_RUN_STATUSES.includes(status);
}

/** What makes a terminal run live although it has ended; each fact true means "live". @internal */
export interface RunLiveness {
  /** A ledger entry of the run is `running` or `unknown` (work may still be in flight; `pending` does not count). */
  liveLedgerEntry: boolean;
  /** A decision about the run (subject id = run id) is `open` or `awaiting_user`. */
  openDecision: boolean;
  /** A child run (parent = this run) is not terminal. */
  activeChild: boolean;
}

/** Whether a run is live for retention: any fact of `liveness` holds. @internal */
export function isRunLive(liveness: RunLiveness): boolean {
  return liveness.liveLedgerEntry || liveness.openDecision || liveness.activeChild;
}

/**
 * Whether the `runs` kind may prune `run` (its events, messages, inbox and settled reservations): terminal with an
 * end time, not pruned yet, not live. The `runReports` kind drops the "not pruned yet" condition. The runtime sets
 * `endedAt` whenever a run becomes terminal; a terminal run without one (written by hand) is never pruned, which
 * lets both SQL stores walk terminal runs by end time on an index.
 * @internal
 */
export function isRunPrunable(
  run: Pick<RunRecord, 'status' | 'endedAt'> & { prunedAt?: number | null },
  liveness: RunLiveness,
  kind: 'runs' | 'runReports' = 'runs',
): boolean {
  if (!isTerminalRunStatus(run.status) || run.endedAt === null) return false;
  if (kind === 'runs' && run.prunedAt != null) return false;
  return !isRunLive(liveness);
}

/** Whether a ledger entry keeps the approval it names live (`running`, `unknown`, `pending`). @internal */
export function isLedgerEntryLive(entry: Pick<LedgerEntry, 'state'>): boolean {
  return LIVE_LEDGER_STATES.includes(entry.state);
}

/** Whether a ledger entry keeps its run live for `runs`/`runReports` (`running`, `unknown`). @internal */
export function ledgerEntryBlocksRun(entry: Pick<LedgerEntry, 'state'>): boolean {
  return RUN_BLOCKING_LEDGER_STATES.includes(entry.state);
}

/** Whether an approval can still be used: `requested` or `approved` and not expired at `now`. @internal */
export function isApprovalLive(approval: Pick<ApprovalRecord, 'status' | 'expiresAt'>, now: number): boolean {
  return (approval.status === 'requested' || approval.status === 'approved') && approval.expiresAt >= now;
}

/** The age time of an approval: its decision, else its consumption, else its expiry (ms). @internal */
export function approvalAgeTime(approval: Pick<ApprovalRecord, 'decidedAt' | 'consumedAt' | 'expiresAt'>): number {
  return approval.decidedAt ?? approval.consumedAt ?? approval.expiresAt;
}

/**
 * Whether retention may remove an approval: `rejected`, `revoked` or `consumed`, or `requested`/`approved` and
 * expired (`expiresAt < now`); never one a live ledger entry refers to.
 * @internal
 */
export function isApprovalPrunable(
  approval: Pick<ApprovalRecord, 'status' | 'expiresAt'>,
  now: number,
  referencedByLiveLedgerEntry: boolean,
): boolean {
  if (referencedByLiveLedgerEntry) return false;
  if (approval.status === 'rejected' || approval.status === 'revoked' || approval.status === 'consumed') return true;
  return approval.expiresAt < now;
}

/** The actor prefix of records a run wrote (`agent:<runId>`). @internal */
export const RUN_ACTOR_PREFIX = 'agent:';

/** The run that created a record, from its actor (`agent:<runId>`), or undefined for any other actor. @internal */
export function runIdOfActor(actor: string): string | undefined {
  return actor.startsWith(RUN_ACTOR_PREFIX) ? actor.slice(RUN_ACTOR_PREFIX.length) : undefined;
}

/**
 * Whether retention may remove a plan: no approval row of it remains (whatever its status: approvals are pruned
 * first, so a plan goes only after its approvals), and the run that created it (`createdBy` `agent:<runId>`) is
 * absent or terminal (a run between planning and submitting still needs it).
 * @internal
 */
export function isPlanPrunable(hasApproval: boolean, creatingRunLive: boolean): boolean {
  return !hasApproval && !creatingRunLive;
}

/** The age time of a decision: when it was resolved, else when it last changed (ms). @internal */
export function decisionAgeTime(decision: Pick<DecisionRecord, 'resolvedAt' | 'updatedAt'>): number {
  return decision.resolvedAt ?? decision.updatedAt;
}

/** Whether retention may remove a decision: `resolved` or `dismissed`. @internal */
export function isDecisionPrunable(decision: Pick<DecisionRecord, 'status'>): boolean {
  return CLOSED_DECISION_STATUSES.includes(decision.status);
}

/**
 * Whether retention may remove a ledger entry: `succeeded` or `failed`, with a settlement time, and its run
 * (`runId`) absent or terminal: a live run repeating the same call must find the settled entry, not run the
 * handler again.
 * @internal
 */
export function isLedgerEntryPrunable(entry: Pick<LedgerEntry, 'state' | 'settledAt'>, runLive = false): boolean {
  return PRUNABLE_LEDGER_STATES.includes(entry.state) && entry.settledAt !== null && !runLive;
}

/**
 * The first instant after a budget period that starts at `start`: the next UTC day, or the first day of the next
 * UTC month (computed exactly from the calendar).
 * @internal
 */
export function budgetPeriodEnd(period: BudgetPeriod, start: number): number {
  if (period === 'day') return start + DAY_MS;
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/**
 * The tick time from which a schedule's tick records are never removed: the start of the UTC day before the one of
 * `now`. A schedule's per-day budgets count the fired ticks of the UTC day of the tick that fires (yesterday's, for
 * a tick just before midnight handled just after it), so retention leaves those days whole whatever its limits.
 * @internal
 */
export function scheduleTickFloor(now: number): number {
  return utcDayStart(now) - DAY_MS;
}

/** How many of each schedule's newest tick records (by tick time) stay: `keepNewest`, and at least 1. @internal */
export function scheduleTicksKept(criteria: PruneCriteria): number {
  const keep = criteria.keepNewest;
  return keep === undefined || !(keep >= 1) ? 1 : Math.floor(keep);
}

/**
 * The tick records the criteria select, schedule by schedule (ids in code-point order), each oldest tick first:
 * every record but the newest {@link scheduleTicksKept} of its schedule (the runner and `host.schedules.ticks` read
 * the newest) whose tick is before {@link scheduleTickFloor} and, when `before` is given, handled (`handledAt`)
 * before it.
 * @internal
 */
export function selectScheduleTicks<T extends Pick<ScheduleTickRecord, 'scheduleId' | 'tickAt' | 'handledAt'>>(
  ticks: readonly T[],
  criteria: PruneCriteria,
): T[] {
  const floor = scheduleTickFloor(criteria.now);
  const keep = scheduleTicksKept(criteria);
  const bySchedule = new Map<string, T[]>();
  for (const tick of ticks) {
    const list = bySchedule.get(tick.scheduleId);
    if (list) list.push(tick);
    else bySchedule.set(tick.scheduleId, [tick]);
  }
  const ids = [...bySchedule.keys()].sort(compareCodePoints);
  const out: T[] = [];
  for (const id of ids) {
    const newestFirst = bySchedule.get(id)!.sort((a, b) => b.tickAt - a.tickAt);
    const older = newestFirst.slice(keep).filter((k) => k.tickAt < floor);
    const aged = criteria.before === undefined ? older : older.filter((k) => k.handledAt < criteria.before!);
    out.push(...aged.reverse());
  }
  return out;
}

/** An eligible item: its age time (ms) and its key, the tie-breaker (code-point order). @internal */
export interface AgedItem {
  /** Age time (ms). */
  readonly age: number;
  /** Key (id), in code-point order on ties. */
  readonly key: string;
}

/** Orders aged items oldest first, by key (code points) on ties. @internal */
export function compareAged(a: AgedItem, b: AgedItem): number {
  if (a.age !== b.age) return a.age < b.age ? -1 : 1;
  if (a.key === b.key) return 0;
  return codePointLess(a.key, b.key) ? -1 : 1;
}

/** Orders strings by code points (the order of SQLite's `BINARY`, not UTF-16 units). @internal */
export function compareCodePoints(a: string, b: string): number {
  return a === b ? 0 : codePointLess(a, b) ? -1 : 1;
}

function codePointLess(a: string, b: string): boolean {
  const x = [...a];
  const y = [...b];
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const p = x[i]!.codePointAt(0)!;
    const q = y[i]!.codePointAt(0)!;
    if (p !== q) return p < q;
  }
  return x.length < y.length;
}

/**
 * Which of the eligible `items` the criteria select, oldest first: older than `before` (when given) and not
 * among the newest `keepNewest` (when given; ordered by age, then key).
 * @internal
 */
export function selectForPrune<T extends AgedItem>(items: readonly T[], criteria: PruneCriteria): T[] {
  const sorted = [...items].sort(compareAged);
  const keep = criteria.keepNewest === undefined ? 0 : Math.max(0, Math.floor(criteria.keepNewest));
  const candidates = sorted.slice(0, Math.max(0, sorted.length - keep));
  return criteria.before === undefined ? candidates : candidates.filter((i) => i.age < criteria.before!);
}

/** An audit row as the prefix rule sees it. @internal */
export interface AuditPrefixRow {
  /** Its sequence number. */
  readonly seq: number;
  /** When it was written (ms). */
  readonly at: number;
  /** Whether it is a retention checkpoint (`audit.pruned`). */
  readonly checkpoint: boolean;
}

/**
 * The audit rows retention may remove: the longest prefix (in `seq` order) of rows written before
 * `min(before, now)` that stops before the newest `keepNewest` rows that are not checkpoints. Checkpoint rows
 * (`audit.pruned`) are not counted by `keepNewest`, and one inside the prefix goes with it: a batch that removes
 * rows appends a new checkpoint in the same transaction, so the newest checkpoint always stays. Rows written at
 * or after `now` (the new checkpoints among them) never qualify, so a prune ends.
 * @param rows - every row, in `seq` order
 * @returns how many rows, from the first, may be removed
 * @internal
 */
export function auditPrefixLength(rows: readonly AuditPrefixRow[], criteria: PruneCriteria): number {
  const limitAt = Math.min(criteria.before ?? Number.POSITIVE_INFINITY, criteria.now);
  let upTo = rows.length;
  if (criteria.keepNewest !== undefined && criteria.keepNewest > 0) {
    let kept = 0;
    upTo = 0;
    for (let i = rows.length - 1; i >= 0; i--) {
      if (rows[i]!.checkpoint) continue;
      if (++kept === Math.floor(criteria.keepNewest)) {
        upTo = i;
        break;
      }
    }
  }
  let n = 0;
  while (n < upTo && rows[n]!.at < limitAt) n++;
  return n;
}

/**
 * The checkpoint row a batch of audit retention appends after removing rows `firstSeq`..`throughSeq` (see
 * `AuditAction` `audit.pruned`): its `inputSummary` is the canonical JSON of `{ firstSeq, headHash, rows,
 * throughSeq }` (with its `signature` under `checkpointKey`, when given), `headHash` the stored hash of row
 * `throughSeq` (null when it had none).
 * @internal
 */
export function auditCheckpoint(
  firstSeq: number,
  throughSeq: number,
  rows: number,
  headHash: string | null,
  now: number,
  checkpointKey?: string,
): AuditRecord {
  const fields = { firstSeq, headHash, rows, throughSeq };
  const signed =
    checkpointKey === undefined ? fields : { ...fields, signature: auditCheckpointSignature(checkpointKey, fields) };
  return {
    id: `audit.pruned:${throughSeq}`,
    seq: 0,
    at: now,
    action: 'audit.pruned',
    actor: 'system:maintenance',
    capabilityId: 'maintenance.prune',
    invocationId: `maintenance.prune:${throughSeq}`,
    runId: null,
    taskId: null,
    outcome: 'succeeded',
    approvalId: null,
    grantId: null,
    idempotencyKey: null,
    inputSummary: canonicalJson(signed),
    reason: null,
  };
}
