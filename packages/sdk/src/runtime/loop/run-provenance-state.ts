// What a run was shown (the ids host reads returned, the untrusted strings) and where the text people typed in it
// is, kept in the run's runtime state (written with the step): the facts the invocation path checks a run's side
// effects against (docs/untrusted-text.md).
import type { InvocationProvenance } from '../../capabilities/invocation';
import { outputWhollyUntrusted } from '../../capabilities/declared-provenance';
import { isHumanActor } from '../../core/actor';
import type { CapabilityDescriptor } from '../../core/capability-descriptor';
import { TEXT_MARK } from '../../core/provenance-marks';
import type { JsonValue } from '../../core/records';
import type { RunRecord } from '../../core/run-records';
import { collectProvenance, RUN_PROVENANCE_LIMITS, type RunProvenance } from '../../core/run-provenance';
import type { ModelMessage } from '../../models/types';
import type { StorageAdapter } from '../../ports/storage-adapter';
import type { RunSession } from './run-session';

/** Key of the provenance state in a run's runtime state. */
export const PROVENANCE_STATE_KEY = 'provenance';

/**
 * A run's provenance state: what it was shown ({@link RunProvenance}) and the positions (from 1) in its stored
 * conversation of the messages a person (`user:…`) added to it. The text itself is never stored again: it is read
 * from the conversation when a side effect is checked.
 */
export interface RunProvenanceState extends RunProvenance {
  /** Positions of the person's messages in the run's stored conversation (from 1). */
  typedMessages: number[];
}

const stringArray = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

/** The run's provenance state as stored; anything malformed reads as nothing shown. */
export function provenanceState(state: JsonValue | undefined): RunProvenanceState {
  const s = (typeof state === 'object' && state !== null && !Array.isArray(state) ? state : {}) as Record<
    string,
    unknown
  >;
  const ids: Record<string, string[]> = {};
  if (typeof s.ids === 'object' && s.ids !== null && !Array.isArray(s.ids))
    for (const [ns, values] of Object.entries(s.ids)) ids[ns] = stringArray(values);
  return {
    ids,
    untrusted: stringArray(s.untrusted),
    typedMessages: Array.isArray(s.typedMessages)
      ? s.typedMessages.filter((n): n is number => Number.isInteger(n) && n > 0)
      : [],
  };
}

/** What the run was shown so far. */
export function shownToRun(session: RunSession): RunProvenance {
  const { ids, untrusted } = provenanceState(session.getState(PROVENANCE_STATE_KEY));
  return { ids, untrusted };
}

function write(session: RunSession, state: RunProvenanceState): void {
  session.setState(PROVENANCE_STATE_KEY, state as unknown as JsonValue);
}

/** Records `shown` as the run's provenance (keeping the typed positions); writes nothing when unchanged. */
function setShown(session: RunSession, before: RunProvenanceState, shown: RunProvenance): void {
  if (JSON.stringify(shown.ids) === JSON.stringify(before.ids) && sameList(shown.untrusted, before.untrusted)) return;
  write(session, { ids: shown.ids, untrusted: shown.untrusted, typedMessages: before.typedMessages });
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Every string in a JSON value (keys excluded), depth first, at most `limit`. */
export function allStrings(value: unknown, limit = 10_000): string[] {
  const out: string[] = [];
  const visit = (v: unknown, depth: number): void => {
    if (out.length >= limit || depth > 64) return;
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) for (const item of v) visit(item, depth + 1);
    else if (typeof v === 'object' && v !== null) for (const item of Object.values(v)) visit(item, depth + 1);
  };
  visit(value, 0);
  return out;
}

/** A schema that marks every item of `{ strings: string[] }` untrusted: how a wholly untrusted output is collected. */
const STRINGS_SCHEMA = {
  type: 'object',
  properties: { strings: { type: 'array', items: { type: 'string', [TEXT_MARK]: 'untrusted' } } },
};

/**
 * What `output` shows under `outputSchema`, added to `into`: the ids of its id fields and the strings of its untrusted
 * fields ({@link collectProvenance}); every string for a wholly untrusted output ({@link outputWhollyUntrusted}).
 * Pure.
 */
export function shownBy(outputSchema: unknown, output: unknown, into: RunProvenance): RunProvenance {
  if (outputWhollyUntrusted(outputSchema))
    return collectProvenance(STRINGS_SCHEMA, { strings: allStrings(output) }, into);
  return collectProvenance(outputSchema, output, into);
}

/**
 * Records what a capability's output showed the run (after a call that succeeded or is pending), written with the
 * step. A failure to read the output (it does not match its schema) records nothing.
 */
export function recordShown(
  session: RunSession,
  descriptor: Pick<CapabilityDescriptor, 'output'>,
  output: unknown,
): void {
  const before = provenanceState(session.getState(PROVENANCE_STATE_KEY));
  let after: RunProvenance;
  try {
    after = shownBy(descriptor.output, output, before);
  } catch {
    return;
  }
  setShown(session, before, after);
}

/** `a` then the values of `b` not in it, the newest `max` kept. */
function union(a: readonly string[], b: readonly string[], max: number): string[] {
  const out = [...a];
  const seen = new Set(a);
  for (const v of b)
    if (!seen.has(v)) {
      seen.add(v);
      out.push(v);
    }
  return out.slice(-max);
}

/**
 * Merges what another run (a subagent whose results the run reads) was shown into the run's provenance, within
 * {@link RUN_PROVENANCE_LIMITS}. Its untrusted strings are normalized already.
 */
export function mergeShown(session: RunSession, other: RunProvenance): void {
  if (Object.keys(other.ids).length === 0 && other.untrusted.length === 0) return;
  const before = provenanceState(session.getState(PROVENANCE_STATE_KEY));
  const ids = { ...before.ids };
  for (const [ns, values] of Object.entries(other.ids))
    ids[ns] = union(ids[ns] ?? [], values, RUN_PROVENANCE_LIMITS.idsPerNamespace);
  const untrusted = union(before.untrusted, other.untrusted, RUN_PROVENANCE_LIMITS.untrustedStrings);
  setShown(session, before, { ids, untrusted });
}

/** What a subagent run was shown, read from its record's runtime state. */
export function shownToChild(child: RunRecord): RunProvenance {
  const state = (child.runtimeState ?? {}) as Record<string, JsonValue>;
  const { ids, untrusted } = provenanceState(state[PROVENANCE_STATE_KEY]);
  return { ids, untrusted };
}

/**
 * Remembers that the message just appended to the conversation was added by `actor`, when that is a person
 * (`user:…`): its position is kept, never its text.
 */
export function recordTypedMessage(session: RunSession, actor: string): void {
  if (!isHumanActor(actor)) return;
  const before = provenanceState(session.getState(PROVENANCE_STATE_KEY));
  write(session, { ...before, typedMessages: [...before.typedMessages, session.storedCount] });
}

/** The text of a user message, else undefined. */
function userText(message: ModelMessage | undefined): string | undefined {
  return message?.role === 'user' && typeof message.content === 'string' ? message.content : undefined;
}

/**
 * What people typed in the run, raw: its goal when a person started it (a top-level run; a subagent's goal is its
 * parent model's words, a background run's the system's), and every message a person added to it, read from the
 * working conversation or, for a message compaction took out of it, from the stored conversation.
 */
export async function typedInRun(storage: Pick<StorageAdapter, 'messages'>, session: RunSession): Promise<string[]> {
  const run = session.run;
  const typed: string[] = run.depth === 0 && isHumanActor(run.startedBy) ? [run.goal] : [];
  const positions = provenanceState(session.getState(PROVENANCE_STATE_KEY)).typedMessages;
  if (positions.length === 0) return typed;
  // The working conversation ends with the stored message at position `storedCount`; after a compaction its first
  // message is the summary, which is not a stored message.
  const first = session.getState('compaction') ? 1 : 0;
  const missing: number[] = [];
  for (const position of positions) {
    const index = session.messages.length - 1 - (session.storedCount - position);
    const text = index >= first ? userText(session.messages[index]) : undefined;
    if (text !== undefined) typed.push(text);
    else missing.push(position);
  }
  if (missing.length > 0) {
    const stored = await storage.messages.list(run.id);
    for (const position of missing) {
      const text = userText(stored[position - 1]?.message as unknown as ModelMessage | undefined);
      if (text !== undefined) typed.push(text);
    }
  }
  return typed;
}

/** The {@link InvocationProvenance} of a run's call: what it was shown now, and `typed` (read before the call). */
export function invocationProvenance(session: RunSession, typed: readonly string[]): InvocationProvenance {
  return { shown: () => shownToRun(session), typed: () => typed };
}
