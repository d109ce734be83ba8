import { MediaAgentError } from '../../core/errors';

/**
 * A change of the spending budgets is malformed (`BUDGET_SETTINGS_INVALID`: an unknown field, role or period, a
 * people key that is not an actor, a cap that is not null or a non-negative number); nothing was changed.
 * @public
 */
export class BudgetSettingsError extends MediaAgentError<'BUDGET_SETTINGS_INVALID'> {}
