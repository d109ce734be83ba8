// One identity form for a person: memory, history and skills all take `user:<id>` or the bare `<id>`
// and mean the same person by both, so no form of the id opens a second, empty namespace.
import { MediaAgentError } from './errors';

/** The id part of a person, as `parseActor` takes it: 1–200 characters, no whitespace, not starting with `:`. */
const PERSON_ID = /^[^\s:][^\s]{0,199}$/;

/** Actor kinds that are never a person. */
const NOT_A_PERSON = /^(apikey|agent|system):/i;

/** Any actor prefix: an id that begins with one would read as another form of the id. */
const ACTOR_PREFIX = /^(user|apikey|agent|system):/i;

/**
 * Characters no id may hold: controls (NUL …), format characters (zero-width, bidi overrides, BOM), line and
 * paragraph separators. Each would make an id that prints as another person's ("alice\u200b" shows as "alice").
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** A UTF-16 surrogate that is not half of a pair (not a character at all). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A value given where a person is expected (`userId` of a history or skill store, the actor of a
 * memory call) names no person. Code `PERSON_ID_INVALID`; `details.argument` names the argument,
 * `details.kind` the actor kind when the value is another actor (`apikey`, `agent`, `system`). Raised
 * before any storage access: nothing is read or written.
 * @public
 */
export class PersonIdError extends MediaAgentError {
  /**
   * @param argument - the argument that was refused (e.g. `userId`)
   * @param message - what is wrong and the accepted forms
   * @param details - structured facts (`kind` for another actor kind)
   */
  constructor(argument: string, message: string, details: Record<string, unknown> = {}) {
    super('PERSON_ID_INVALID', message, { argument, ...details });
  }
}

/** A short, printable form of a refused value. */
function preview(input: unknown): string {
  if (typeof input === 'string') return JSON.stringify(input.slice(0, 60));
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'an array';
  return typeof input === 'object' ? 'an object' : `${typeof input} ${String(input).slice(0, 40)}`;
}

/**
 * The canonical id of a person: `user:alice` and `alice` are the same person and both give `alice`.
 *
 * @remarks
 * The rule every person-taking API of the SDK applies (memory, history stores, skill stores):
 * - `user:<id>` gives `<id>`;
 * - `apikey:…`, `agent:…` and `system:…` are refused (those actors are not people);
 * - any other string is a bare id and is taken as it is.
 *
 * An id is 1–200 characters, has no whitespace, does not start with `:` (the id part of a `user:<id>`
 * actor) and does not itself begin with an actor kind (`user:user:x` is refused: read once more it would
 * be another person, in any letter case), and holds no control, format (zero-width, bidi) or separator character
 * and no lone surrogate, so the function is idempotent: `personKey(personKey(v)) === personKey(v)`. Ids are
 * compared exactly: no trimming, no case folding. Stores derive their on-disk keys from the canonical id,
 * so data stored under a bare id stays where it was.
 *
 * @param input - `user:<id>` or `<id>`
 * @param argument - the argument's name, for the error message
 * @returns the bare id
 * @throws {@link PersonIdError} `PERSON_ID_INVALID` for a non-string, an empty or malformed id, or another actor kind
 * @example
 * ```ts
 * personKey('user:alice'); // 'alice'
 * personKey('alice');      // 'alice'
 * personKey('agent:run-1'); // throws PERSON_ID_INVALID
 * ```
 * @public
 */
export function personKey(input: unknown, argument = 'userId'): string {
  if (typeof input !== 'string')
    throw new PersonIdError(
      argument,
      `${argument} must be a string naming a person (user:<id> or the bare <id>); got ${preview(input)}`,
      { type: input === null ? 'null' : typeof input },
    );
  const other = NOT_A_PERSON.exec(input);
  if (other)
    throw new PersonIdError(
      argument,
      `${argument} ${preview(input)} is an ${other[1]} actor, not a person; personal memory, history and skills belong to user:<id>`,
      { kind: other[1] },
    );
  const id = input.startsWith('user:') ? input.slice(5) : input;
  if (ACTOR_PREFIX.test(id))
    throw new PersonIdError(
      argument,
      `${argument} ${preview(input)} is ambiguous: a person's id may not itself begin with user:, apikey:, agent: or system:`,
    );
  if (!PERSON_ID.test(id))
    throw new PersonIdError(
      argument,
      `${argument} must be user:<id> or the bare <id>, where <id> is 1–200 characters without spaces and not starting with ':'; got ${preview(input)}`,
    );
  if (INVISIBLE.test(id) || LONE_SURROGATE.test(id))
    throw new PersonIdError(
      argument,
      `${argument} ${preview(input)} holds an invisible or control character (or a lone surrogate): it would print as another person's id`,
    );
  return id;
}

/**
 * The actor form of a person: `user:<canonical id>`.
 * @param input - `user:<id>` or `<id>`
 * @param argument - the argument's name, for the error message
 * @throws {@link PersonIdError} `PERSON_ID_INVALID` as {@link personKey}
 * @public
 */
export function personActor(input: unknown, argument = 'userId'): `user:${string}` {
  return `user:${personKey(input, argument)}`;
}
