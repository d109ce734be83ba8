// Records each side effect a run's model attempts, with its read-back, in the run's state: what the verified
// goal report judges the run by (docs/architecture.md#the-goal-report).
import { needsReadBack, type CapabilityDescriptor } from '../../core/capability-descriptor';
import type { JsonValue } from '../../core/records';
import type { InvocationResult } from '../../capabilities/invocation';
import { EFFECTS_STATE_KEY, MAX_RUN_EFFECTS, type RunEffect } from '../run-effects';
import type { Loop } from './loop';
import type { RunSession } from './run-session';

/** The effects a run attempted so far (oldest first). */
export function runEffects(session: RunSession): RunEffect[] {
  return (session.getState(EFFECTS_STATE_KEY) as unknown as RunEffect[] | undefined) ?? [];
}

/** The ledger outcome of an invocation result (`not_run` when it never reached its handler). */
function outcomeOf(result: Pick<InvocationResult, 'status'> & { idempotencyKey?: string }): RunEffect['outcome'] {
  if (result.status === 'denied' || !result.idempotencyKey) return 'not_run';
  return result.status;
}

/**
 * After an `execute` capability call: records it as an effect of the run. A `subscription`, `setting` or
 * `schedule` effect that succeeded is read back first with the capability's verifier (a read that fails is a
 * read-back that did not confirm, with its reason). Other kinds record nothing.
 */
export async function recordEffect(
  loop: Loop,
  session: RunSession,
  descriptor: CapabilityDescriptor,
  input: unknown,
  result: Pick<InvocationResult, 'status' | 'error'> & { idempotencyKey?: string },
): Promise<void> {
  if (descriptor.kind !== 'execute') return;
  const effect = descriptor.effect ?? 'other';
  const outcome = outcomeOf(result);
  let readBack: RunEffect['readBack'] = null;
  if (outcome === 'succeeded' && needsReadBack(effect)) {
    const { capabilities, storage } = loop.deps;
    const entry = result.idempotencyKey ? await storage.ledger.get(result.idempotencyKey) : undefined;
    if (!entry) readBack = { confirmed: false, reason: 'the call has no ledger entry to read back' };
    else {
      const verdict = await capabilities
        .readBack(descriptor.id, input, entry, { runId: session.id, signal: session.lease.signal })
        .catch((error: unknown) => ({
          status: 'unknown' as const,
          reason: error instanceof Error ? error.message : String(error),
        }));
      readBack =
        verdict.status === 'succeeded'
          ? { confirmed: true, reason: null }
          : { confirmed: false, reason: verdict.reason };
    }
  }
  const record: RunEffect = {
    capabilityId: descriptor.id,
    effect,
    outcome,
    idempotencyKey: result.idempotencyKey ?? null,
    errorCode: result.status === 'succeeded' || result.status === 'pending' ? null : (result.error?.code ?? null),
    readBack,
    at: loop.deps.clock.now(),
  };
  const effects = [...runEffects(session), record].slice(-MAX_RUN_EFFECTS);
  session.setState(EFFECTS_STATE_KEY, effects as unknown as JsonValue);
}
