// Capabilities whose handlers answer what a stored run recorded: the current runtime's definitions (schemas,
// kind, target, policy, intent, provenance) with the handler replaced, so a replay re-runs validation,
// authorization and the ledger of an isolated store, and never calls host code.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import { OutcomeUnknownError } from '../../capabilities/errors';
import type { Capability, VerifierOutcome } from '../../capabilities/types';
import { canonicalHash } from '../../core/canonical-json';
import { MediaAgentError } from '../../core/errors';
import { RUNTIME_TOOLS, type RecordedCall, type RecordedRun } from './recorded-run';

/**
 * A replayed call that has no recorded result to answer with (the original call was denied, refused or never
 * made). Code `REPLAY_NO_RECORDED_RESULT`; `details.capabilityId`.
 * @public
 */
export class ReplayNoRecordedResultError extends MediaAgentError<'REPLAY_NO_RECORDED_RESULT'> {
  /** @param capabilityId - the capability called */
  constructor(capabilityId: string) {
    super(
      'REPLAY_NO_RECORDED_RESULT',
      `replay: the stored run has no result left for this call of ${capabilityId} (the original call was denied, refused or not made with this input)`,
      { capabilityId },
    );
  }
}

/** Failures the runtime gives before a handler runs: such a recorded call never reached the handler. */
const BEFORE_HANDLER = new Set([
  'INPUT_INVALID',
  'INPUT_TOO_LARGE',
  'INTENT_IN_PROGRESS',
  'TAINTED_ARGUMENT',
  'LEDGER_IN_PROGRESS',
  'LEDGER_CALL_ID_CONFLICT',
  'CAPABILITY_NOT_FOUND',
  'REPLAY_NO_RECORDED_RESULT',
]);

/**
 * Whether a recorded call's result came from the capability's handler (so a replay's handler answers it): a
 * succeeded, pending or unknown call that was not a result the ledger returned for a key already settled, or a
 * failure the handler threw.
 */
function reachedHandler(call: RecordedCall, settledKeys: Set<string>): boolean {
  if (call.idempotencyKey && settledKeys.has(call.idempotencyKey)) return false;
  if (call.status === 'succeeded' || call.status === 'pending' || call.status === 'unknown') return true;
  return call.status === 'failed' && call.invocationId !== undefined && !BEFORE_HANDLER.has(call.error?.code ?? '');
}

/**
 * The recorded results, queued per capability id and canonical input hash in the order the run got them; each
 * handler call takes the next. Counts what it answered.
 * @public
 */
export class RecordedAnswers {
  readonly #queues = new Map<string, RecordedCall[]>();
  readonly #settled = new Map<string, RecordedCall>();
  /** Calls answered from the recording so far. */
  answered = 0;
  /** Calls that found no recorded result. */
  unanswered = 0;

  /** @param recorded - the run (its turns and its subagents' turns) */
  constructor(recorded: Pick<RecordedRun, 'turns' | 'subagents'>) {
    const settledKeys = new Set<string>();
    for (const turn of [...recorded.turns, ...recorded.subagents.flatMap((s) => s.turns)]) {
      for (const call of turn.calls) {
        if (RUNTIME_TOOLS.has(call.capability)) continue;
        if (reachedHandler(call, settledKeys)) {
          const key = keyOf(call.capability, call.input);
          const queue = this.#queues.get(key) ?? [];
          queue.push(call);
          this.#queues.set(key, queue);
        }
        if (call.status === 'succeeded') this.#settled.set(keyOf(call.capability, call.input), call);
        if (call.idempotencyKey && (call.status === 'succeeded' || call.status === 'pending'))
          settledKeys.add(call.idempotencyKey);
      }
    }
  }

  /** The next recorded result of this capability for this input, or undefined when none is left. */
  take(capabilityId: string, input: unknown): RecordedCall | undefined {
    const call = this.#queues.get(keyOf(capabilityId, input))?.shift();
    if (call) this.answered++;
    else this.unanswered++;
    return call;
  }

  /** The latest succeeded result of this capability for this input (what a verifier reads back), or undefined. */
  succeeded(capabilityId: string, input: unknown): RecordedCall | undefined {
    return this.#settled.get(keyOf(capabilityId, input));
  }
}

function keyOf(capabilityId: string, input: unknown): string {
  return `${capabilityId}\u0000${canonicalHash(input ?? {})}`;
}

/** What {@link recordedCapabilities} built. @public */
export interface RecordedCapabilitySet {
  /** Definitions to register in the replay's isolated host: the current ones with recorded handlers. */
  definitions: Capability[];
  /** Capability ids the run called that the current runtime no longer has. */
  missing: string[];
  /** The recorded results the handlers answer from. */
  answers: RecordedAnswers;
}

/**
 * Capability definitions whose handlers answer the recorded results: for each capability the run called that
 * the current registry still has, its definition (schemas, kind, replay, target, policy, effect, intent,
 * provenance, plan payload) with `handler` answering the next recorded result for the same capability and
 * canonical input (`succeeded` → the output, `pending` → `ctx.pending(receipt)`, `unknown` →
 * `OutcomeUnknownError`, `failed` → a `MediaAgentError` with the recorded code; none left →
 * {@link ReplayNoRecordedResultError}), `verify` answering the recorded outcome, and no `impact` or `inverse`: no
 * host code runs. A capability the registry no longer has is listed in `missing` and not defined.
 *
 * @param recorded - the run
 * @param current - the current runtime's registry
 * @returns the definitions, the missing ids and the answers
 * @example
 * ```ts
 * const { definitions, missing } = recordedCapabilities(recorded, host.capabilities);
 * for (const d of definitions) isolated.capabilities.register(d);
 * ```
 * @public
 */
export function recordedCapabilities(
  recorded: Pick<RecordedRun, 'turns' | 'subagents'>,
  current: Pick<CapabilityRegistry, 'has' | 'definition'>,
): RecordedCapabilitySet {
  const answers = new RecordedAnswers(recorded);
  const ids = [
    ...new Set(
      [...recorded.turns, ...recorded.subagents.flatMap((s) => s.turns)].flatMap((t) =>
        t.calls.map((c) => c.capability),
      ),
    ),
  ].filter((id) => !RUNTIME_TOOLS.has(id));
  const definitions: Capability[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    if (!current.has(id)) {
      missing.push(id);
      continue;
    }
    const { impact: _impact, inverse: _inverse, verify, handler: _handler, ...definition } = current.definition(id);
    // Frozen like a definition made by `defineCapability` (the registry registers nothing else).
    definitions.push(
      Object.freeze({
        ...definition,
        handler: async (input, ctx) => {
          const call = answers.take(id, input);
          if (!call) throw new ReplayNoRecordedResultError(id);
          switch (call.status) {
            case 'succeeded':
              return call.output as never;
            case 'pending':
              return ctx.pending(call.output as never);
            case 'unknown':
              throw new OutcomeUnknownError(call.error?.message ?? 'replay: the recorded outcome is unknown');
            default:
              throw new MediaAgentError(
                (call.error?.code ?? 'HANDLER_FAILED') as never,
                call.error?.message ?? 'replay: the recorded call failed',
              );
          }
        },
        ...(verify
          ? {
              verify: async ({ input }: { input: unknown }): Promise<VerifierOutcome<never>> => {
                const call = answers.succeeded(id, input);
                return call
                  ? { status: 'succeeded', output: call.output as never }
                  : { status: 'unknown', reason: 'replay: no recorded outcome for this call' };
              },
            }
          : {}),
      }) as Capability,
    );
  }
  return { definitions, missing, answers };
}
