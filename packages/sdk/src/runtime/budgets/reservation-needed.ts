// Whether a model call must be reserved before it is sent, or only recorded once it is done (docs/budgets.md).
import type { BudgetAmounts } from '../../core/budget-records';
import type { SpendCaps } from './spending-settings';

const AMOUNTS: ReadonlyArray<keyof BudgetAmounts> = ['runs', 'modelCalls', 'tokens', 'costUsd'];

/**
 * True when some cap that applies limits an amount the call's worst case is non-zero in: only then can the
 * reservation be refused, or can calls in flight elsewhere need to see it, so only then is it reserved (one
 * commit of its own) before the call. Otherwise nothing can refuse the call (a zero amount is never refused),
 * and its real cost is recorded with the step that made it (no commit of its own). A pure function.
 * @param caps - the person's and the household's caps
 * @param worstCase - the call's worst case
 */
export function reservationNeeded(
  caps: { person: SpendCaps; household: SpendCaps },
  worstCase: BudgetAmounts,
): boolean {
  for (const scope of [caps.person, caps.household])
    for (const period of [scope.day, scope.month])
      for (const amount of AMOUNTS) if (period[amount] !== null && worstCase[amount] > 0) return true;
  return false;
}
