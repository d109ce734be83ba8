/**
 * Filtered lists, shared by every SQL list: only the filters given become conditions.
 * @packageDocumentation
 */
import { type Query, rows, SqlTexts } from './query';
import type { Row, TableMapping } from './table-mapping';

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

/** How a filtered list reads its table. @internal */
export interface ListSpec {
  /** The equality filters a list call may give. */
  readonly filters: EqualityFilters;
  /** Whether a filter given as `null` means "any" (else it matches no row). */
  readonly nullIsAny: boolean;
  /** The order, with the tie-breaking column last (e.g. `created_at DESC, id DESC`). */
  readonly order: string;
  /** Whether the list takes a `@limit` parameter. */
  readonly limited: boolean;
  /** Conditions that always hold (e.g. a cursor), before the filters'. */
  readonly always?: readonly string[];
}

/**
 * The list of `mapping`'s records that `spec` describes: a query per call, for the filters given in `filter`
 * (bound into `params`, which holds the list's other parameters such as `@limit`), decoding every row.
 * @internal
 */
export function filteredList<T extends object>(
  mapping: TableMapping<T>,
  spec: ListSpec,
): (filter: object, params: Row) => Query<T[]> {
  const texts = new SqlTexts();
  const tail = ` ORDER BY ${spec.order}${spec.limited ? ' LIMIT @limit' : ''}`;
  const decode = (found: Row[]) => found.map((r) => mapping.fromRow(r));
  return (filter, params) => {
    const { clause, key } = equalityWhere(spec.filters, filter, params, spec.nullIsAny, spec.always);
    return rows(
      texts.get(key, () => `SELECT * FROM ${mapping.table}${clause}${tail}`),
      params,
      decode,
    );
  };
}
