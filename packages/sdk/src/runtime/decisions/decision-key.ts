// The default occurrence key of a raised decision, from its kind and subject.
import { scopeKey } from '../../core/scope-key';

/**
 * The default `dedupeKey` of a decision: `<kind>:<subject.type>:<subject.id>` when the type holds no `:`
 * (the kind never does, so the key reads back into one kind, type and id: every key stored so far keeps its
 * form), else `scopeKey(kind, type, id)` (length-prefixed, starting with a digit where every key of the first
 * form starts with the kind's letter). So a subject whose type holds `:` — `('a:b', 'c')` against `('a', 'b:c')` —
 * never shares an occurrence with another subject.
 * @param kind - the decision kind (`[a-z][a-z0-9_.-]*`, no `:`)
 * @param subject - the subject's type and id (any text)
 * @internal
 */
export function defaultDecisionKey(kind: string, subject: { type: string; id: string }): string {
  return subject.type.includes(':')
    ? scopeKey(kind, subject.type, subject.id)
    : `${kind}:${subject.type}:${subject.id}`;
}
