// Where a decision's events go and what they carry.
import type { DecisionRecord } from '../../core/run-records';
import type { DecisionEventData } from '../events/run-event';

/**
 * The event stream of a decision: the run or schedule it is about (a schedule's stream is named by the schedule id,
 * which its owner may read), else one named by its id. @internal
 */
export function decisionStream(d: Pick<DecisionRecord, 'id' | 'subjectType' | 'subjectId'>): string {
  return d.subjectType === 'run' || d.subjectType === 'schedule' ? d.subjectId : d.id;
}

/**
 * The data of a `decision.created` event, and the common part of a `decision.updated` one (which adds `change`):
 * the decision's id, kind, status, subject and revision, who acted, and the investigation run when there is one.
 * @param d - the decision as stored
 * @param actor - who raised or changed it
 * @param runId - its investigation run, if any
 * @internal
 */
export function decisionEventData(
  d: Pick<DecisionRecord, 'id' | 'kind' | 'status' | 'subjectType' | 'subjectId' | 'revision'>,
  actor: string,
  runId?: string,
): DecisionEventData {
  return {
    decisionId: d.id,
    kind: d.kind,
    status: d.status,
    subjectType: d.subjectType,
    subjectId: d.subjectId,
    revision: d.revision,
    actor,
    ...(runId ? { runId } : {}),
  };
}
