/**
 * The `WHERE` of a filtered list, shared by every SQL list: only the filters given become conditions.
 * @packageDocumentation
 */
import type { Row } from './table-mapping';

/** A list's equality filters: the filter's field and the column it compares. @internal */
export type EqualityFilters = ReadonlyArray<readonly [field: string, column: string]>;

/**
 * ` WHERE a = @a AND …` for the filters of `filter` that are given (`undefined` is not given; with `nullIsAny`,
 * neither is `null`), their values added to `params`, after the conditions `always`; `''` when there is none. A condition per given filter only, so an
 * index on the column serves the list (a `(@a IS NULL OR a = @a)` condition is served by none and scans the
 * table). Also returns the key of the text: the same filters give the same text.
 * @internal
 */
export function equalityWhere(
  filters: EqualityFilters,
  filter: object,
  params: Row,
  nullIsAny: boolean,
  always: readonly string[] = [],
): { clause: string; key: string } {
  const conditions = [...always];
  let key = '';
  for (const [field, column] of filters) {
    const value = (filter as Row)[field];
    if (value === undefined || (nullIsAny && value === null)) continue;
    conditions.push(`${column} = @${field}`);
    params[field] = value;
    key += `${field},`;
  }
  return { clause: conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '', key };
}
