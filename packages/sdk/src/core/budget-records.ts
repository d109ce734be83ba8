// Spending records: per-subject, per-period counters and the reservations model calls make against them
// (docs/budgets.md).

/**
 * A budget period: `day` (a UTC day) or `month` (a UTC calendar month).
 * @public
 */
export type BudgetPeriod = 'day' | 'month';

/**
 * Amounts spent or reserved: runs started, model calls, model tokens (input + output) and model cost in USD.
 * @public
 */
export interface BudgetAmounts {
  /** Runs started (a run counts once, when it goes from `queued` to `running`). */
  runs: number;
  /** Model calls. */
  modelCalls: number;
  /** Model tokens, input plus output. */
  tokens: number;
  /** Model cost in USD. */
  costUsd: number;
}

/**
 * What one subject has spent in one period: reserved amounts of calls still in flight included.
 * @public
 */
export interface BudgetCounters extends BudgetAmounts {
  /** Who spends: an actor (`user:alice`, `apikey:kids`, `system:job`) or {@link HOUSEHOLD_SUBJECT}. */
  subject: string;
  /** `day` or `month`. */
  period: BudgetPeriod;
  /** Start of the period in ms since the epoch (UTC midnight; the first of the month for `month`). */
  start: number;
}

/**
 * The subject of the household total: every person's spending is also counted under it. Not an actor (it has
 * no `kind:` prefix), so no actor can spend under it directly.
 * @public
 */
export const HOUSEHOLD_SUBJECT = 'household';

/**
 * Where a reservation stands: `reserved` (the call is in flight: its worst case is counted), `settled` (the
 * real usage is counted instead) or `released` (the call failed before it cost anything: nothing is counted).
 * @public
 */
export type BudgetReservationState = 'reserved' | 'settled' | 'released';

/**
 * One reservation, keyed like a ledger entry: reserving again under the same key changes nothing, so a retry or a
 * crash-resume of the same model call cannot charge twice.
 * @public
 */
export interface BudgetReservation extends BudgetAmounts {
  /** Deterministic key, e.g. `<runId>:call:<turn>:<attempt>` or `<runId>:start`. */
  key: string;
  /** The subject charged (the run's owner); the household total is charged with it. */
  subject: string;
  /** The run it is for. */
  runId: string;
  /** See {@link BudgetReservationState}. */
  state: BudgetReservationState;
  /** Start of the UTC day charged (ms). */
  day: number;
  /** Start of the UTC month charged (ms). */
  month: number;
  /** When it was reserved (ms). */
  createdAt: number;
  /** When it last changed (ms). */
  updatedAt: number;
}
