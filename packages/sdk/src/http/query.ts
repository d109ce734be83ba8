import { HttpRequestError } from './problem';

/**
 * Parses an optional sequence-number query value (`after`, `afterSeq`, `Last-Event-ID`): digits only,
 * at most `Number.MAX_SAFE_INTEGER`.
 * @param name - the parameter, named in the error
 * @param raw - the raw value (undefined or empty: absent)
 * @returns the number, or undefined when absent
 * @throws {@link HttpRequestError} `HTTP_QUERY_INVALID` for anything else
 * @internal
 */
export function parseSequence(name: string, raw: string | undefined | null): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value))
    throw new HttpRequestError('HTTP_QUERY_INVALID', `${name} must be a non-negative integer`, { [name]: raw });
  return value;
}

/**
 * Parses an optional page size from 1 to `max`.
 * @throws {@link HttpRequestError} `HTTP_QUERY_INVALID`
 * @internal
 */
export function parseLimit(raw: string | undefined, max: number): number | undefined {
  const value = parseSequence('limit', raw);
  if (value !== undefined && (value < 1 || value > max))
    throw new HttpRequestError('HTTP_QUERY_INVALID', `limit must be an integer from 1 to ${max}`, { limit: raw });
  return value;
}

/**
 * Parses an optional value that must be one of `allowed`.
 * @throws {@link HttpRequestError} `HTTP_QUERY_INVALID`
 * @internal
 */
export function parseChoice<T extends string>(
  name: string,
  raw: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw))
    throw new HttpRequestError('HTTP_QUERY_INVALID', `${name} must be one of ${allowed.join(', ')}`, { [name]: raw });
  return raw as T;
}
