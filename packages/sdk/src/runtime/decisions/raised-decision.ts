// A decision as a host or a run raises it, and the check that turns it into a stored record.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import { compileSchema } from '../../capabilities/schema-validator';
import { parseActor } from '../../core/actor';
import type { JsonValue } from '../../core/records';
import type { DecisionOption, DecisionRecord } from '../../core/run-records';
import { DecisionError } from './decision-errors';
import { defaultDecisionKey } from './decision-key';

/** Input of `AgentHost.raiseDecision`. @public */
export interface RaiseDecisionInput {
  /** Kind: `identity_ambiguous`, `download_failed`, `download_stalled`, `agent_budget` or a host-defined one (`[a-z][a-z0-9_.-]*`, ≤ 64). */
  kind: string;
  /** What it is about: `type` (`run`, `download`, `release`, `task` or the host's own) and `id` (each 1–200 characters). */
  subject: { type: string; id: string };
  /** Why a person is asked (1–2000 characters). */
  reason: string;
  /** Who raises it: `system:<name>` for the host, `agent:<runId>` for a run (a run's own decisions are never investigated). */
  raisedBy: string;
  /** Facts for the person: a JSON object (default `{}`), at most the host's `maxInputBytes` as JSON. */
  evidence?: Record<string, JsonValue>;
  /** Choices offered (at most 20, unique ids); an option's `capabilityId` must be registered. */
  options?: DecisionOption[];
  /**
   * The occurrence's key: raising again with a stored key creates nothing (a storm of host events is one decision).
   * @defaultValue `<kind>:<subject.type>:<subject.id>` (length-prefixed when the type holds `:`, see `defaultDecisionKey`)
   */
  dedupeKey?: string;
  /**
   * The cause it shares with other occurrences (automatic recovery is bounded per root cause).
   * @defaultValue `<kind>:<subject.id>`
   */
  rootCause?: string;
}

/** What {@link raisedDecisionRecord} needs besides the input. @internal */
export interface RaiseContext {
  /** Registered capabilities and their input schemas. */
  capabilities: Pick<CapabilityRegistry, 'has' | 'get'>;
  /** Largest evidence JSON, in UTF-8 bytes. */
  maxInputBytes: number;
  /** The time, ms since the epoch. */
  now: () => number;
  /** A new decision id. */
  nextId: () => string;
}

const KIND = /^[a-z][a-z0-9_.-]{0,63}$/;
const OPTION_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * Checks a raised decision and builds its record (`open`, revision 1). The id is taken only once the input is valid.
 * @param input - the decision as raised
 * @param context - the registry (options name registered capabilities with valid input), the largest evidence
 *   in UTF-8 bytes as JSON, the time and the source of the decision's id
 * @returns the record to store
 * @throws {@link DecisionError} `DECISION_INVALID`; `ACTOR_INVALID` for a `raisedBy` that is no actor
 * @internal
 */
export function raisedDecisionRecord(input: RaiseDecisionInput, context: RaiseContext): DecisionRecord {
  const bad = (reason: string) => new DecisionError('DECISION_INVALID', reason, {});
  if (!input || typeof input !== 'object') throw bad('the decision must be an object');
  parseActor(input.raisedBy);
  if (typeof input.kind !== 'string' || !KIND.test(input.kind))
    throw bad('kind must match [a-z][a-z0-9_.-]* (at most 64 characters)');
  const subject = input.subject;
  const text = (v: unknown, max: number) => typeof v === 'string' && v.trim().length > 0 && v.length <= max;
  if (!subject || typeof subject !== 'object' || !text(subject.type, 200) || !text(subject.id, 200))
    throw bad('subject must be { type, id } with non-empty strings of at most 200 characters');
  if (!text(input.reason, 2000)) throw bad('reason must be a non-empty string of at most 2000 characters');
  const evidence = input.evidence ?? {};
  if (typeof evidence !== 'object' || evidence === null || Array.isArray(evidence))
    throw bad('evidence must be a JSON object');
  let json: string;
  try {
    json = JSON.stringify(evidence);
  } catch {
    throw bad('evidence must be JSON');
  }
  if (new TextEncoder().encode(json).length > context.maxInputBytes)
    throw bad(`evidence is larger than ${context.maxInputBytes} bytes as JSON`);
  const options = input.options ?? [];
  if (!Array.isArray(options) || options.length > 20) throw bad('options must be an array of at most 20');
  const ids = new Set<string>();
  for (const o of options) {
    if (!o || typeof o !== 'object' || typeof o.id !== 'string' || !OPTION_ID.test(o.id))
      throw bad('every option needs an id of 1–64 letters, digits or _.:-');
    if (ids.has(o.id)) throw bad(`option id ${o.id} is used twice`);
    ids.add(o.id);
    if (!text(o.label, 500)) throw bad(`option ${o.id} needs a label of at most 500 characters`);
    if (o.capabilityId !== undefined && !context.capabilities.has(o.capabilityId))
      throw bad(`option ${o.id} names capability ${o.capabilityId}, which is not registered`);
    if (o.capabilityId !== undefined) {
      // Checked now, as the invocation will check it: an option that can never run is no choice for a person.
      const check = compileSchema(context.capabilities.get(o.capabilityId).input);
      const optionInput = o.input ?? {};
      if (!check.check(optionInput)) {
        const [first] = check.issues(optionInput);
        throw bad(
          `option ${o.id}: its input is not valid for ${o.capabilityId} (${first ? `${first.path || '/'}: ${first.message}` : 'invalid'})`,
        );
      }
    }
  }
  for (const [name, v] of [
    ['dedupeKey', input.dedupeKey],
    ['rootCause', input.rootCause],
  ] as const)
    if (v !== undefined && !text(v, 500)) throw bad(`${name} must be a non-empty string of at most 500 characters`);
  const now = context.now();
  return {
    id: context.nextId(),
    kind: input.kind,
    dedupeKey: input.dedupeKey ?? defaultDecisionKey(input.kind, subject),
    subjectType: subject.type,
    subjectId: subject.id,
    rootCause: input.rootCause ?? `${input.kind}:${subject.id}`,
    status: 'open',
    reason: input.reason,
    evidence: JSON.parse(json) as JsonValue,
    options: options.map((o) => ({ ...o })),
    raisedBy: input.raisedBy,
    resolvedBy: null,
    resolution: null,
    revision: 1,
    createdAt: now,
    updatedAt: now,
    resolvedAt: null,
  };
}
