// Records each side effect a run's model attempts, with its read-back, in the run's state: what the verified
// goal report judges the run by (docs/architecture.md#the-goal-report).
import { needsReadBack, type CapabilityDescriptor } from '../../core/capability-descriptor';
import type { JsonValue } from '../../core/records';
import { canonicalHash } from '../../core/canonical-json';
import type { InvocationResult } from '../../capabilities/invocation';
import { EFFECTS_STATE_KEY, MAX_RUN_EFFECTS, type RunEffect } from '../run-effects';
import type { Loop } from './loop';
import type { RunSession } from './run-session';

/** How long a read-back may take before it counts as not confirmed (ms). */
export const READ_BACK_TIMEOUT_MS = 30_000;

/** The effects a run attempted so far (oldest first). */
export function runEffects(session: RunSession): RunEffect[] {
  return (session.getState(EFFECTS_STATE_KEY) as unknown as RunEffect[] | undefined) ?? [];
}

/** What a call is about: the capability's target (plan, media entity) when it declares one, else its input's hash. */
function subjectOf(descriptor: CapabilityDescriptor, input: unknown): string {
  try {
    const target = descriptor.target?.(input);
    if (target && (target.planId || target.mediaEntityId))
      return `target:${target.planType ?? ''}:${target.planId ?? ''}:${target.mediaEntityId ?? ''}`;
  } catch {
    // an input its target() cannot read (the call was refused for it): fall back to the input
  }
  try {
    return `input:${canonicalHash(input)}`;
  } catch {
    return 'input:unreadable';
  }
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
      // A verifier that never answers (or ignores the signal) must not hold the run: a deadline, and the run's
      // abort, end the read-back as not confirmed.
      const signal = AbortSignal.any([session.lease.signal, AbortSignal.timeout(READ_BACK_TIMEOUT_MS)]);
      const verdict = await Promise.race([
        capabilities.readBack(descriptor.id, input, entry, { runId: session.id, signal }),
        new Promise<never>((_, reject) => {
          if (signal.aborted) reject(signal.reason);
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
      ]).catch((error: unknown) => ({
        status: 'unknown' as const,
        reason: session.lease.signal.aborted
          ? 'the run was stopped while reading the effect back'
          : signal.aborted
            ? `the read-back did not answer within ${READ_BACK_TIMEOUT_MS / 1000} s`
            : error instanceof Error
              ? error.message
              : String(error),
      }));
      // The run was stopped meanwhile: its abort (or the host's stop) is handled as for any other step.
      if (session.lease.signal.aborted) throw session.lease.signal.reason ?? new Error('aborted');
      readBack =
        verdict.status === 'succeeded'
          ? { confirmed: true, reason: null }
          : { confirmed: false, reason: verdict.reason };
    }
  }
  const record: RunEffect = {
    capabilityId: descriptor.id,
    subject: subjectOf(descriptor, input),
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
