// How a person's choice or dismissal changes a decision, and what executing the chosen option records.
import type { InvocationResult } from '../../capabilities/invocation';
import { isMediaAgentError } from '../../core/errors';
import type { JsonValue } from '../../core/records';
import type {
  DecisionCapabilityExecution,
  DecisionExecution,
  DecisionRecord,
  DecisionRefusedChoice,
} from '../../core/run-records';
import { asObject } from './decision-rules';

/**
 * The decision resolved by a person's choice, its execution not recorded yet.
 * @param d - the decision as read
 * @param optionId - the option chosen
 * @param actor - who chose it
 * @param note - their note (kept up to 2000 characters; anything but a string is no note)
 * @param now - the time, ms
 * @internal
 */
export function chosenDecision(
  d: DecisionRecord,
  optionId: string,
  actor: string,
  note: unknown,
  now: number,
): DecisionRecord {
  return {
    ...d,
    status: 'resolved',
    resolvedBy: actor,
    resolvedAt: now,
    resolution: { optionId, note: typeof note === 'string' ? note.slice(0, 2000) : null, execution: null },
  };
}

/**
 * The decision dismissed by a person: no option, nothing executed.
 * @param d - the decision as read
 * @param actor - who dismissed it
 * @param note - their note
 * @param now - the time, ms
 * @internal
 */
export function dismissedDecision(
  d: DecisionRecord,
  actor: string,
  note: string | undefined,
  now: number,
): DecisionRecord {
  return {
    ...d,
    status: 'dismissed',
    resolvedBy: actor,
    resolvedAt: now,
    resolution: { optionId: null, note: note ?? null, execution: { kind: 'none' } },
  };
}

/**
 * What a chooser is told a decision's choice did: the execution of a resolved decision (null while not
 * recorded); for one a denied or failed choice put back to a person, that refused choice as kept in its
 * evidence (`deniedChoice`, else `failedChoice`), or null.
 * @param d - the decision as stored after the choice
 * @internal
 */
export function choiceExecution(
  d: Pick<DecisionRecord, 'status' | 'resolution' | 'evidence'>,
): DecisionExecution | DecisionRefusedChoice | null {
  if (d.status === 'resolved') return d.resolution?.execution ?? null;
  const evidence = asObject(d.evidence);
  return ((evidence.deniedChoice ?? evidence.failedChoice ?? null) as DecisionRefusedChoice | null) ?? null;
}

/**
 * The result of an invocation that threw instead of returning: `failed`, with the error's code
 * (`DRIVER_FAILED` for an error that has none) and message.
 * @param error - what was thrown
 * @internal
 */
export function thrownInvocationResult(error: unknown): InvocationResult {
  const code = isMediaAgentError(error) ? error.code : 'DRIVER_FAILED';
  return { status: 'failed', error: { code, message: (error as Error).message }, invocationId: '' };
}

/**
 * The execution recorded for an option that invoked a capability: its status, and its output, error,
 * invocation id and idempotency key when the result has them.
 * @param capabilityId - the option's capability
 * @param result - the invocation's result
 * @internal
 */
export function capabilityExecution(capabilityId: string, result: InvocationResult): DecisionCapabilityExecution {
  return {
    kind: 'capability',
    capabilityId,
    status: result.status,
    ...(result.output !== undefined ? { output: result.output as JsonValue } : {}),
    ...(result.error ? { error: result.error } : {}),
    ...(result.invocationId ? { invocationId: result.invocationId } : {}),
    ...(result.idempotencyKey ? { idempotencyKey: result.idempotencyKey } : {}),
  };
}

/**
 * The decision after its chosen option ran. A choice that was denied (nothing ran) or failed (it did not take
 * effect) goes back to a person: `awaiting_user`, unresolved, the refusal in its evidence (`deniedChoice` or
 * `failedChoice`, replacing any earlier one). Anything else records the execution on the resolution.
 * @param d - the resolved decision, its execution not recorded
 * @param execution - what executing the option did
 * @param refused - the refused choice, for a denied or failed invocation
 * @returns the next record and the change its `decision.updated` event names
 * @internal
 */
export function executedDecision(
  d: DecisionRecord,
  execution: DecisionExecution,
  refused: DecisionRefusedChoice | undefined,
): { next: DecisionRecord; change: 'executed' | 'choice_denied' | 'choice_failed' } {
  if (!refused) return { next: { ...d, resolution: { ...d.resolution!, execution } }, change: 'executed' };
  const failed = refused.status === 'failed';
  const { deniedChoice: _denied, failedChoice: _failed, ...evidence } = asObject(d.evidence);
  return {
    next: {
      ...d,
      status: 'awaiting_user',
      resolvedBy: null,
      resolvedAt: null,
      resolution: null,
      evidence: { ...evidence, [failed ? 'failedChoice' : 'deniedChoice']: refused },
    },
    change: failed ? 'choice_failed' : 'choice_denied',
  };
}
