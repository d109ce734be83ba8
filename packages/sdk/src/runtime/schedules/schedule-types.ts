// The public shapes of host.schedules (docs/schedules.md).
import type { RunMode } from '../../core/run-records';
import type { MissedTickPolicy, ScheduleRecord, ScheduleStatus, ScheduleTickRecord } from '../../core/schedule-records';
import type { RunBudgets } from '../run-budgets';

/**
 * A schedule's budgets: each run's (any of `RunBudgets`, over the host's run defaults) and the schedule's per UTC
 * day. `maxRunsPerDay` (default 48) and `maxCostUsdPerDay` (USD, default 1) count the runs its ticks started that
 * day; a tick over them starts nothing (skipped, reason `daily_budget`) and raises a `schedule_budget` decision
 * once a day. `null`: no cap. The per-person budgets of the schedule's owner apply to its runs as to any other.
 * @public
 */
export interface ScheduleBudgets extends Partial<RunBudgets> {
  /** Runs per UTC day (default 48; null: no cap). */
  maxRunsPerDay?: number | null;
  /** Model cost of its runs per UTC day in USD (default 1; null: no cap). */
  maxCostUsdPerDay?: number | null;
}

/** Input of `host.schedules.create`. Exactly one of `cron` and `everyMs`. @public */
export interface CreateScheduleInput {
  /** Who creates it (`user:alice`): the owner, or an administrator creating it for `owner`. */
  actor: string;
  /** Whose schedule it is, and as whom its runs are started (default `actor`); another actor needs an administrator. */
  owner?: string;
  /**
   * The caller's idempotency key (1–200 characters, unique per owner): creating again with the same key and the same
   * definition returns the first schedule; with another definition it is refused (`SCHEDULE_KEY_REUSED`).
   */
  clientKey?: string;
  /** A cron expression: 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first. */
  cron?: string;
  /** A fixed interval in ms (at least the host's `schedules.minIntervalMs`, default 60 000). */
  everyMs?: number;
  /** IANA time zone the cron expression is read in (default `UTC`). */
  timezone?: string;
  /** The goal each run gets (1–10 000 characters). */
  goal: string;
  /** `execute` (default) or `plan_only`. */
  mode?: RunMode;
  /**
   * Limit each run to these capability ids (every one must exist and be callable by the owner). Absent or null: no
   * allowlist (the owner's capabilities); in an update, null removes the allowlist.
   */
  capabilityAllowlist?: string[] | null;
  /** Budgets of each run and of the schedule per day. */
  budgets?: ScheduleBudgets;
  /** What to do with ticks missed while no host ran (default `skip`). */
  missed?: MissedTickPolicy;
  /** Create it paused (default false). */
  paused?: boolean;
}

/**
 * A change of `host.schedules.update`: any of the definition's fields (`owner` and `clientKey` never change). A new
 * timing starts from the next tick after now.
 * @public
 */
export type UpdateScheduleInput = Partial<
  Pick<
    CreateScheduleInput,
    'cron' | 'everyMs' | 'timezone' | 'goal' | 'mode' | 'capabilityAllowlist' | 'budgets' | 'missed'
  >
>;

/** Filter of `host.schedules.list`. @public */
export interface ListSchedulesFilter {
  /** Who asks: an ordinary user gets only their own schedules; an administrator every one. Absent: the host itself. */
  actor?: string;
  /** Only this owner's. */
  owner?: string;
  /** Only in this status. */
  status?: ScheduleStatus;
  /** At most this many (1–1000, default 100). */
  limit?: number;
}

/**
 * Recurring agent work (docs/schedules.md): each tick of a schedule starts exactly one run (origin `schedule`, owned
 * by the schedule's owner), however many host processes share the store and wherever they are killed. Every change
 * is audited (`schedule.changed`); an ordinary user manages only their own schedules.
 *
 * @example
 * ```ts
 * const nightly = await host.schedules.create({
 *   actor: 'user:alice',
 *   cron: '0 3 * * *',
 *   timezone: 'Europe/Berlin',
 *   goal: 'Check for stalled downloads and tell me what you found',
 *   capabilityAllowlist: ['task.inspect', 'inventory.query'],
 *   missed: 'catch_up_one',
 * });
 * console.log(new Date(nightly.nextTickAt!).toISOString());
 * ```
 * @public
 */
export interface HostSchedules {
  /**
   * Creates a schedule.
   * @throws `SCHEDULE_INVALID`, `SCHEDULE_CAPABILITY_FORBIDDEN`, `SCHEDULE_KEY_REUSED`, `ADMIN_FORBIDDEN` (another
   *   owner by a non-administrator), `ACTOR_INVALID`
   */
  create(input: CreateScheduleInput): Promise<ScheduleRecord>;
  /**
   * The schedule; with `actor`, only its owner or an administrator sees it.
   * @throws `SCHEDULE_NOT_FOUND`
   */
  get(id: string, actor?: string): Promise<ScheduleRecord>;
  /** Schedules, oldest first. @throws `REQUEST_INVALID` for a bad filter */
  list(filter?: ListSchedulesFilter): Promise<ScheduleRecord[]>;
  /** Changes the definition. @throws `SCHEDULE_NOT_FOUND`, `SCHEDULE_INVALID`, `SCHEDULE_CAPABILITY_FORBIDDEN`, `SCHEDULE_CONFLICT` */
  update(id: string, change: UpdateScheduleInput, actor: string): Promise<ScheduleRecord>;
  /** Stops its ticks (idempotent). @throws `SCHEDULE_NOT_FOUND` */
  pause(id: string, actor: string): Promise<ScheduleRecord>;
  /** Starts its ticks again from the next tick after now (idempotent; missed-tick policy does not apply to the pause). @throws `SCHEDULE_NOT_FOUND` */
  resume(id: string, actor: string): Promise<ScheduleRecord>;
  /** Deletes it and its tick records; the runs it started stay. @throws `SCHEDULE_NOT_FOUND` */
  delete(id: string, actor: string): Promise<void>;
  /** Its tick records, newest first (default 50, at most 1000). @throws `SCHEDULE_NOT_FOUND` */
  ticks(id: string, options?: { actor?: string; before?: number; limit?: number }): Promise<ScheduleTickRecord[]>;
}
