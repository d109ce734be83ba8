// The check of a filter given to the decision list.
import { DecisionError } from './decision-errors';

const FILTER_FIELDS = new Set(['status', 'subjectId', 'kind', 'rootCause']);
const STATUSES = new Set<string>(['open', 'awaiting_user', 'resolved', 'dismissed']);

/**
 * Accepts a filter `DecisionService.list` understands: absent, or an object of the fields `status`, `subjectId`,
 * `kind` and `rootCause`, each a string or undefined, the status a known one (a misspelt status would
 * otherwise list nothing, silently).
 * @param filter - the filter as given
 * @throws {@link DecisionError} `DECISION_INVALID` naming the field
 * @internal
 */
export function checkDecisionFilter(filter: unknown): void {
  if (filter === undefined || filter === null) return;
  if (typeof filter !== 'object' || Array.isArray(filter))
    throw new DecisionError('DECISION_INVALID', 'a decision filter must be an object');
  for (const [field, value] of Object.entries(filter)) {
    if (!FILTER_FIELDS.has(field))
      throw new DecisionError('DECISION_INVALID', `unknown decision filter field ${JSON.stringify(field)}`, { field });
    if (value !== undefined && typeof value !== 'string')
      throw new DecisionError('DECISION_INVALID', `decision filter ${field} must be a string`, { field });
    if (field === 'status' && value !== undefined && !STATUSES.has(value))
      throw new DecisionError('DECISION_INVALID', `unknown decision status ${JSON.stringify(value)}`, { field });
  }
}
