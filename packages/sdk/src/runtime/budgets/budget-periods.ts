// Budget periods: the UTC day and the UTC calendar month a time falls in (docs/budgets.md).
import type { BudgetPeriod } from '../../core/budget-records';
import { utcDayStart } from '../../core/utc-day';

/**
 * The start of the period containing `now`: UTC midnight for `day`, the first of the month at UTC midnight for
 * `month` (ms since the epoch).
 * @public
 */
export function periodStart(period: BudgetPeriod, now: number): number {
  if (period === 'day') return utcDayStart(now);
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/**
 * The start of the next period: when a cap of the period containing `now` frees up (ms since the epoch).
 * @public
 */
export function periodEnd(period: BudgetPeriod, now: number): number {
  if (period === 'day') return utcDayStart(now) + 86_400_000;
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
