// Which caps apply to one subject's spending (docs/budgets.md).
import type { ActorRole } from '../../core/actor';
import { applyCaps, type SpendCaps, type SpendingBudgets } from './spending-settings';

/**
 * The caps a subject spends against: their own (their role's caps with their personal override applied) and the
 * household's. A pure function.
 * @param settings - the spending budgets
 * @param subject - the actor who spends (a run's owner)
 * @param role - the subject's role from the identity resolver (API keys and system actors are `user`)
 * @public
 */
export function capsFor(
  settings: SpendingBudgets,
  subject: string,
  role: ActorRole,
): { person: SpendCaps; household: SpendCaps } {
  return {
    person: applyCaps(
      settings.roles[role],
      Object.hasOwn(settings.people, subject) ? settings.people[subject] : undefined,
    ),
    household: settings.household,
  };
}
