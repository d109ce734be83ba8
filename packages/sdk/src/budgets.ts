/**
 * `@media-agent/sdk/budgets`: spending budgets per person and for the household — the service behind
 * `host.budgets`, the reservation ledger the run loop charges, the settings and their defaults, what a
 * breach reports, and the records of counters and reservations.
 *
 * @remarks
 * A host sets budgets with `createAgentHost({ runs: { spending } })` (`SpendingOptions`) and reads or changes them
 * through `host.budgets` (`settings`, `update`, `usage`, `wakeHeld`). A run that would pass a cap waits
 * with an open `budget_reached` decision. See docs/budgets.md.
 *
 * @example
 * ```ts
 * import { DEFAULT_SPENDING_BUDGETS, type SpendingOptions } from '@media-agent/sdk/budgets';
 *
 * const spending: SpendingOptions = { people: { 'user:teen': { day: { runs: 5 } } } };
 * const host = createAgentHost({ runs: { spending } });
 * await host.start();
 * const report = await host.budgets.usage('user:teen');
 * console.log(report.used.day.runs, DEFAULT_SPENDING_BUDGETS.roles.user.day.runs); // 0 20
 * ```
 *
 * @packageDocumentation
 */
export { BudgetService, type BudgetServiceDeps, type SpendReport } from './runtime/budgets/budget-service';
export { SpendLedger, type SpendLedgerDeps, type ReserveOutcome } from './runtime/budgets/spend-ledger';
export {
  DEFAULT_SPENDING_BUDGETS,
  type PeriodCaps,
  type SpendCaps,
  type SpendCapsPatch,
  type SpendingBudgets,
  type SpendingOptions,
} from './runtime/budgets/spending-settings';
export type { SpendBreach } from './runtime/budgets/cap-check';
export { BudgetSettingsError } from './runtime/budgets/budget-errors';
export { BUDGET_REACHED_KIND, BUDGETS_ACTOR } from './runtime/budgets/budget-reached';
export { DEFAULT_RESERVED_OUTPUT_TOKENS } from './runtime/budgets/worst-case';
export {
  HOUSEHOLD_SUBJECT,
  type BudgetAmounts,
  type BudgetCounters,
  type BudgetPeriod,
  type BudgetReservation,
  type BudgetReservationState,
} from './core/budget-records';
