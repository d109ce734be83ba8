import { describe, expect, it } from 'vitest';
import { parseActor } from '../../src/core/actor';
import { MediaAgentError } from '../../src/core/errors';
import { PersonIdError, personActor, personKey } from '../../src/core/person-id';

const refusal = (input: unknown, argument?: string) => {
  try {
    personKey(input, argument);
  } catch (error) {
    expect(error).toBeInstanceOf(PersonIdError);
    expect(error).toBeInstanceOf(MediaAgentError);
    return error as PersonIdError;
  }
  throw new Error(`accepted ${String(input)}`);
};

describe('personKey: one identity form for a person', () => {
  it('reads user:<id> and the bare <id> as the same person', () => {
    for (const id of ['alice', '42', 'a:b', 'élodie', 'x'.repeat(200)]) {
      expect(personKey(`user:${id}`)).toBe(id);
      expect(personKey(id)).toBe(id);
      expect(personActor(id)).toBe(`user:${id}`);
      // The actor form it gives is one parseActor reads back to the same id.
      expect(parseActor(personActor(`user:${id}`)).id).toBe(id);
    }
    // Idempotent: the canonical id read again is the same person.
    for (const v of ['user:alice', 'alice', 'user:a:b']) expect(personKey(personKey(v))).toBe(personKey(v));
  });

  it('compares exactly: no trimming, no case folding', () => {
    expect(personKey('Alice')).not.toBe(personKey('alice'));
    expect(refusal(' alice').code).toBe('PERSON_ID_INVALID');
    expect(refusal('alice ').code).toBe('PERSON_ID_INVALID');
  });

  it('refuses other actor kinds, naming the kind and the argument', () => {
    for (const kind of ['agent', 'apikey', 'system']) {
      const e = refusal(`${kind}:x`, 'actor');
      expect(e.code).toBe('PERSON_ID_INVALID');
      expect(e.details).toMatchObject({ argument: 'actor', kind });
      expect(e.message).toContain(`${kind} actor, not a person`);
    }
  });

  it('refuses empty, malformed and wrong-typed values with the accepted forms in the message', () => {
    const cases: unknown[] = ['', 'user:', 'user: alice', ':alice', 'user::x', 'x'.repeat(201), 'a b', 'a\nb'];
    // An id that itself begins with an actor kind would name another person when read again.
    cases.push('user:user:alice', 'user:agent:r1');
    cases.push(42, null, undefined, {}, ['alice'], true);
    for (const input of cases) {
      const e = refusal(input);
      expect(e.code, String(input)).toBe('PERSON_ID_INVALID');
      expect(e.details.argument).toBe('userId');
      expect(e.message).toMatch(/^userId (must be .*user:<id> or the bare <id>|.* is ambiguous)/);
    }
    expect(refusal(42).message).toContain('got number 42');
  });
});
