// How an option value appears in an error message: its real type shown, so `'5'` is not mistaken for `5`.

/**
 * A short text for `value` in an error message that shows its type: a string quoted with `(a string)`, `null`,
 * `undefined`, an array as `an array`, another object as `an object`, a function as `a function`; numbers, booleans
 * and bigints as written (`1e+300`, `true`, `5n`).
 * @example `describeValue('5')` → `"5" (a string)`; `describeValue(null)` → `null`
 * @internal
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return `${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)} (a string)`;
    case 'number':
    case 'boolean':
      return String(value);
    case 'bigint':
      return `${value}n`;
    case 'undefined':
      return 'undefined';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default:
      return Array.isArray(value) ? 'an array' : 'an object';
  }
}
