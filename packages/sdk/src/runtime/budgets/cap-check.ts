// The spending rule: may an amount be reserved under every cap that applies (docs/budgets.md)?
import type { BudgetAmounts, BudgetCounters, BudgetPeriod } from '../../core/budget-records';
import { periodEnd } from './budget-periods';
import type { SpendCaps } from './spending-settings';

/**
 * The cap a reservation would pass: whose (`person` or `household`), which period and amount, its limit, what
 * was used (reserved calls in flight included) and what the reservation asked for, and when the period ends.
 * @public
 */
export interface SpendBreach {
  /** `person` (the run owner's own caps) or `household` (everyone together). */
  scope: 'person' | 'household';
  /** The subject whose counters were checked (the owner, or `household`). */
  subject: string;
  /** `day` or `month`. */
  period: BudgetPeriod;
  /** The amount: `runs`, `modelCalls`, `tokens` or `costUsd`. */
  budget: keyof BudgetAmounts;
  /** The cap, in the amount's unit. */
  limit: number;
  /** Used in the period so far, in the same unit. */
  used: number;
  /** What the refused reservation asked for, in the same unit. */
  requested: number;
  /** When the period ends and the cap frees up (ms since the epoch). */
  resetsAt: number;
}

/** The counters a reservation is checked against: the owner's and the household's, per period. */
export interface SpendUsage {
  /** The owner's counters. */
  person: Record<BudgetPeriod, BudgetCounters>;
  /** The household's counters. */
  household: Record<BudgetPeriod, BudgetCounters>;
}

const ORDER: ReadonlyArray<keyof BudgetAmounts> = ['runs', 'modelCalls', 'tokens', 'costUsd'];

/**
 * The first cap that `delta` would pass, or null when every cap has room for it (`used + delta <= limit`; a
 * zero amount is never refused). Checked in order: the person's day, month, then the household's day, month;
 * in each, runs, model calls, tokens, cost. A pure function.
 * @param usage - the counters now
 * @param caps - the caps that apply
 * @param delta - what is to be reserved
 * @param now - the time (for `resetsAt`)
 * @public
 */
export function checkSpend(
  usage: SpendUsage,
  caps: { person: SpendCaps; household: SpendCaps },
  delta: BudgetAmounts,
  now: number,
): SpendBreach | null {
  for (const scope of ['person', 'household'] as const)
    for (const period of ['day', 'month'] as const) {
      const counters = usage[scope][period];
      for (const budget of ORDER) {
        const limit = caps[scope][period][budget];
        if (limit === null || delta[budget] <= 0) continue;
        if (counters[budget] + delta[budget] > limit + 1e-9)
          return {
            scope,
            subject: counters.subject,
            period,
            budget,
            limit,
            used: counters[budget],
            requested: delta[budget],
            resetsAt: periodEnd(period, now),
          };
      }
    }
  return null;
}
