// The values a provenance field path reaches in a JSON value, and how such a place reads in a message.
import { stripInvisible } from './untrusted-text';

/** One place in a value: the keys from the root (property names and array indexes) and the value there. */
export interface ValueAt {
  keys: ReadonlyArray<string | number>;
  value: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The values at a provenance field's `path` in `value`, in order: a property segment reads that
 * own property of an object; `[k]` reads position k of an array (a tuple); `'*'` reads every item of an array or
 * every value of an object.
 * @internal
 */
export function* valuesAt(
  value: unknown,
  path: readonly string[],
  at = 0,
  keys: Array<string | number> = [],
): Generator<ValueAt> {
  if (at === path.length) {
    yield { keys: [...keys], value };
    return;
  }
  const segment = path[at]!;
  const position = /^\[(\d+)\]$/.exec(segment);
  if (position && Array.isArray(value)) {
    const k = Number(position[1]);
    if (k < value.length) yield* valuesAt(value[k], path, at + 1, [...keys, k]);
  } else if (segment === '*' && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* valuesAt(value[i], path, at + 1, [...keys, i]);
  } else if (segment === '*' && isRecord(value)) {
    for (const [key, item] of Object.entries(value)) yield* valuesAt(item, path, at + 1, [...keys, key]);
  } else if (isRecord(value) && Object.hasOwn(value, segment)) {
    yield* valuesAt(value[segment], path, at + 1, [...keys, segment]);
  }
}

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;
const MAX_KEY_CHARS = 60;

/**
 * Keys as a readable path: `steps[2].path`, `tags["two words"]`; `input` for the root. Odd keys are quoted
 * (invisible code points removed, cut to 60 characters).
 * @internal
 */
export function readablePath(keys: ReadonlyArray<string | number>): string {
  let out = '';
  for (const key of keys) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (IDENTIFIER.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify([...stripInvisible(key)].slice(0, MAX_KEY_CHARS).join(''))}]`;
  }
  return out === '' ? 'input' : out;
}
