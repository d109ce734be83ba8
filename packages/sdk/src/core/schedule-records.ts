// Schedules as stored: a recurring goal and the record of each of its ticks (docs/schedules.md).
import type { JsonValue } from './records';
import type { RunMode } from './run-records';

/**
 * `active` (its ticks fire) or `paused` (nothing fires; resuming starts from the next tick after the resume).
 * @public
 */
export type ScheduleStatus = 'active' | 'paused';

/**
 * What happens to ticks that passed while no host process could fire them (downtime, a long stall): `skip` starts
 * nothing for them; `catch_up_one` starts one run, for the newest of them. Either way they are recorded as
 * skipped (reason `missed`), never silently dropped.
 * @public
 */
export type MissedTickPolicy = 'skip' | 'catch_up_one';

/**
 * Why a tick started no run: `missed` (it passed while no process fired it, see {@link MissedTickPolicy}),
 * `daily_budget` (the schedule's runs or cost per day were used up), `refused` (the run could not be started:
 * e.g. a capability of the allowlist no longer exists).
 * @public
 */
export type ScheduleSkipReason = 'missed' | 'daily_budget' | 'refused';

/**
 * One schedule: a goal run as `owner` at each tick of a cron expression or a fixed interval.
 * @public
 */
export interface ScheduleRecord {
  /** Schedule id (`sch_…`). */
  id: string;
  /** The actor the schedule belongs to and its runs are started as (`user:alice`, `system:nightly` …). */
  owner: string;
  /** Who created it (the owner, or an administrator acting for them). */
  createdBy: string;
  /** The caller's key for an idempotent create (unique per owner), or null. */
  clientKey: string | null;
  /** A 5-field cron expression (or 6 fields with seconds) read in `timezone`, or null for an interval. */
  cron: string | null;
  /** The interval in ms, or null for a cron expression. */
  everyMs: number | null;
  /** Interval schedules tick at `anchorAt + k · everyMs` (k ≥ 1); for cron, the creation time. ms since the epoch. */
  anchorAt: number;
  /** The IANA time zone the cron expression is read in (`Europe/Berlin`); `UTC` by default. */
  timezone: string;
  /** The goal each run gets. */
  goal: string;
  /** The mode of each run. */
  mode: RunMode;
  /** The capabilities each run may use, or null (every capability its mode allows). */
  capabilityAllowlist: string[] | null;
  /**
   * Budgets: each run's (`maxToolCalls`, `maxDurationSec`, `maxTokensPerRun`, `maxCostUsdPerRun`,
   * `maxModelCalls` — a `Partial<RunBudgets>`) and the schedule's per UTC day (`maxRunsPerDay`,
   * `maxCostUsdPerDay`; null: no cap). A JSON object.
   */
  budgets: JsonValue;
  /** See {@link MissedTickPolicy}. */
  missed: MissedTickPolicy;
  /** See {@link ScheduleStatus}. */
  status: ScheduleStatus;
  /** The next tick not yet handled (ms since the epoch); null while paused. */
  nextTickAt: number | null;
  /** The newest tick handled (fired or skipped), or null. */
  lastTickAt: number | null;
  /** The run the newest fired tick started, or null. */
  lastRunId: string | null;
  /** Starts at 1; every stored change (a person's or a fire's) adds 1: writes are compare-and-set on it. */
  revision: number;
  /** Creation time (ms). */
  createdAt: number;
  /** Time of the latest change (ms). */
  updatedAt: number;
}

/**
 * What became of one tick, or of a run of consecutive missed ticks: keyed by (`scheduleId`, `tickAt`). Storing it
 * is the claim: a tick is handled by exactly one process, in the transaction that also creates its run.
 * @public
 */
export interface ScheduleTickRecord {
  /** The schedule. */
  scheduleId: string;
  /** The tick (ms since the epoch); for a skipped batch, its newest tick. */
  tickAt: number;
  /** `fired` (a run was started) or `skipped`. */
  outcome: 'fired' | 'skipped';
  /** The run a fired tick started; null when skipped. */
  runId: string | null;
  /** Why a skipped tick started nothing; null when fired. */
  reason: ScheduleSkipReason | null;
  /** The oldest tick the record covers (equals `tickAt` for one tick). */
  firstTickAt: number;
  /** How many ticks the record covers (1 for a fired tick). */
  ticks: number;
  /**
   * When it was handled (ms, the host clock): the instant the poll that handled it saw the schedule due — its ticks
   * are judged on time or late as of then.
   */
  handledAt: number;
  /** Which process handled it (the worker's lease owner name). */
  handledBy: string;
}
