// A schedule's budgets: the checked shape, its daily caps after defaults and the budgets each of its runs gets. Pure.
import type { JsonValue } from '../../core/records';
import type { RunBudgets } from '../run-budgets';
import { ScheduleInvalidError } from './schedule-errors';
import type { ScheduleBudgets } from './schedule-types';

/** A schedule's daily caps: runs and model cost (USD) per UTC day; null: no cap. @public */
export interface ScheduleDailyCaps {
  /** Runs its ticks may start per UTC day, or null. */
  maxRunsPerDay: number | null;
  /** Model cost of its runs per UTC day in USD, or null. */
  maxCostUsdPerDay: number | null;
}

/** The daily caps of a schedule that sets none: 48 runs, 1 USD per UTC day. @public */
export const DEFAULT_SCHEDULE_DAILY_CAPS: Readonly<ScheduleDailyCaps> = Object.freeze({
  maxRunsPerDay: 48,
  maxCostUsdPerDay: 1,
});

/** The run budgets a schedule may set (over the host's `runs.budgets`), and whether each may be null. */
const RUN_BUDGETS = {
  maxToolCalls: false,
  maxDurationSec: false,
  maxModelCalls: false,
  maxTokensPerRun: true,
  maxCostUsdPerRun: true,
} as const satisfies { readonly [K in keyof Required<RunBudgets>]: boolean };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a schedule's `budgets` and returns a copy with only the fields given.
 * @param value - the `budgets` of a create or update input
 * @throws `ScheduleInvalidError` (`SCHEDULE_INVALID`, exported by the package root) naming the field (`budgets.maxRunsPerDay`): not an object,
 *   an unknown field, a value that is not a non-negative finite number (or null where null means no cap:
 *   `maxTokensPerRun`, `maxCostUsdPerRun`, `maxRunsPerDay`, `maxCostUsdPerDay`), a `maxRunsPerDay` that is not an
 *   integer
 * @public
 */
export function checkScheduleBudgets(value: unknown): ScheduleBudgets {
  if (!isObject(value))
    throw new ScheduleInvalidError('budgets', 'must be an object such as { maxRunsPerDay: 24, maxToolCalls: 20 }');
  const checked: Record<string, number | null> = {};
  for (const [name, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const daily = name === 'maxRunsPerDay' || name === 'maxCostUsdPerDay';
    if (!daily && !Object.hasOwn(RUN_BUDGETS, name))
      throw new ScheduleInvalidError(
        `budgets.${name}`,
        `is unknown; known: ${[...Object.keys(RUN_BUDGETS), 'maxRunsPerDay', 'maxCostUsdPerDay'].join(', ')}`,
      );
    const nullable = daily || RUN_BUDGETS[name as keyof typeof RUN_BUDGETS];
    if (v === null && nullable) {
      checked[name] = null;
      continue;
    }
    if (!(typeof v === 'number' && Number.isFinite(v) && v >= 0))
      throw new ScheduleInvalidError(
        `budgets.${name}`,
        `must be a non-negative number${nullable ? ' or null (no cap)' : ''}; got ${String(v)}`,
      );
    if (name === 'maxRunsPerDay' && !Number.isInteger(v))
      throw new ScheduleInvalidError(`budgets.${name}`, `must be an integer; got ${String(v)}`);
    checked[name] = v;
  }
  return checked as ScheduleBudgets;
}

/**
 * A schedule's daily caps after defaults (48 runs, 1 USD; an explicit null: no cap).
 * @param budgets - the schedule's stored `budgets` (a checked {@link ScheduleBudgets}; anything else: the defaults)
 * @public
 */
export function scheduleDailyCaps(budgets: ScheduleBudgets | JsonValue | undefined): ScheduleDailyCaps {
  const b = isObject(budgets) ? budgets : {};
  const cap = (name: keyof ScheduleDailyCaps): number | null => {
    const v = b[name];
    if (v === null) return null;
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : DEFAULT_SCHEDULE_DAILY_CAPS[name];
  };
  return { maxRunsPerDay: cap('maxRunsPerDay'), maxCostUsdPerDay: cap('maxCostUsdPerDay') };
}

/**
 * The budgets of each run a schedule's tick starts: its run budgets as given (the host's `runs.budgets` fill the
 * rest), without the daily caps.
 * @param budgets - the schedule's stored `budgets`
 * @public
 */
export function scheduleRunBudgets(budgets: ScheduleBudgets | JsonValue | undefined): Partial<RunBudgets> {
  const b = isObject(budgets) ? budgets : {};
  const run: Record<string, number | null> = {};
  for (const [name, nullable] of Object.entries(RUN_BUDGETS)) {
    const v = b[name];
    if ((v === null && nullable) || (typeof v === 'number' && Number.isFinite(v) && v >= 0)) run[name] = v;
  }
  return run as Partial<RunBudgets>;
}
