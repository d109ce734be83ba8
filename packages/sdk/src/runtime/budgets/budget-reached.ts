// The decision a run held at a spending cap raises, and who resolves it (docs/budgets.md).

/**
 * Kind of the decision raised about a run held at a spending cap (`waiting`, visible to its owner and to
 * administrators); resolved by {@link BUDGETS_ACTOR} when the run resumes.
 * @public
 */
export const BUDGET_REACHED_KIND = 'budget_reached';

/**
 * Actor of what the spending budgets do on their own: resolving a `budget_reached` decision when its run spends
 * again.
 * @public
 */
export const BUDGETS_ACTOR = 'system:budgets';
