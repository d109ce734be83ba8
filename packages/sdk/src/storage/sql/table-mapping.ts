import { StorageError } from '../errors';
import type { JsonValue } from '../../core/records';

/**
 * How a field is stored: as it is, as JSON text (`jsonOrNull`: SQL NULL for null), as 0/1, or `lazyJson`: as
 * `jsonOrNull`, decoded when the field is first read (a large value most readers of the row never look at).
 * @internal
 */
export type ColumnKind = 'value' | 'json' | 'jsonOrNull' | 'lazyJson' | 'bool';
/** How each field of a `T` is stored (every field listed, no other). @internal */
export type ColumnSpec<T extends object> = Record<keyof T & string, ColumnKind>;
/** A row as better-sqlite3 (or node-postgres) returns it, or the named parameters of a statement. @internal */
export type Row = Record<string, unknown>;

/**
 * Field ↔ column mapping of one table, with its fixed SQL built once. Shared by the SQLite and PostgreSQL
 * stores (PostgreSQL's table name is schema-qualified, and it returns booleans as `true`/`false`).
 * @internal
 */
export class TableMapping<T extends object> {
  readonly columns: ReadonlyArray<{ field: keyof T & string; column: string; kind: ColumnKind }>;
  readonly #byField: Map<string, { column: string; kind: ColumnKind }>;
  /** `"a", "b"` */
  readonly columnList: string;
  /** `@a, @b` */
  readonly paramList: string;
  /** `INSERT INTO t ("a", "b") VALUES (@a, @b)` */
  readonly insertSql: string;
  /** Whether any column needs encoding (JSON or boolean); when not, records bind as they are. */
  readonly #plain: boolean;
  /** The columns {@link TableMapping.fromRow} decodes: every column but those of the fields `notRead`. */
  readonly #decoded: ReadonlyArray<{ field: string; column: string; kind: ColumnKind }>;

  /**
   * @param table - the table's name (schema-qualified on PostgreSQL)
   * @param spec - how each field is stored
   * @param notRead - fields written by inserts but not read back as they are by {@link TableMapping.fromRow} (a
   *   subclass decodes their columns itself); the record `fromRow` makes never has them
   */
  constructor(
    readonly table: string,
    spec: ColumnSpec<T>,
    notRead: readonly string[] = [],
  ) {
    this.columns = Object.entries(spec).map(([field, kind]) => ({
      field: field as keyof T & string,
      column: field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
      kind: kind as ColumnKind,
    }));
    this.#byField = new Map(this.columns.map((c) => [c.field, c]));
    this.columnList = this.columns.map((c) => `"${c.column}"`).join(', ');
    this.paramList = this.columns.map((c) => `@${c.field}`).join(', ');
    this.insertSql = `INSERT INTO ${table} (${this.columnList}) VALUES (${this.paramList})`;
    this.#plain = this.columns.every((c) => c.kind === 'value');
    this.#decoded = this.columns.filter((c) => !notRead.includes(c.field));
  }

  /** `"a" = @a, "b" = @b` for every column but those of the fields `except` (an `UPDATE` of a whole record). */
  setEvery(except: readonly string[]): string {
    return this.columns
      .filter((c) => !except.includes(c.field))
      .map((c) => `"${c.column}" = @${c.field}`)
      .join(', ');
  }

  /** The column and storage kind of `field`, if it has one. */
  column(field: string): { column: string; kind: ColumnKind } | undefined {
    return this.#byField.get(field);
  }

  readonly #selectBy = new Map<string, string>();
  /** `SELECT * FROM t WHERE "pk" = @id` (the same string every time, so its statement is looked up fast) */
  selectBy(pk: string): string {
    let sql = this.#selectBy.get(pk);
    if (sql === undefined) this.#selectBy.set(pk, (sql = `SELECT * FROM ${this.table} WHERE "${pk}" = @id`));
    return sql;
  }

  static encode(kind: ColumnKind, value: unknown): unknown {
    if (kind === 'json') return JSON.stringify(value ?? null);
    if (kind === 'jsonOrNull' || kind === 'lazyJson')
      return value === null || value === undefined ? null : JSON.stringify(value);
    if (kind === 'bool') return value ? 1 : 0;
    return value === undefined ? null : value;
  }

  toParams(record: T): Row {
    const params: Row = {};
    if (this.#plain) {
      for (const c of this.columns) {
        const v = (record as Row)[c.field];
        params[c.field] = v === undefined ? null : v;
      }
      return params;
    }
    for (const c of this.columns) params[c.field] = TableMapping.encode(c.kind, (record as Row)[c.field]);
    return params;
  }

  /**
   * The record stored in `row`: each field decoded by its kind, in the order of the spec (every record of the
   * table gets the same properties in the same order, so the same object shape).
   */
  fromRow(row: Row): T {
    const record: Row = {};
    const columns = this.#decoded;
    for (let i = 0; i < columns.length; i++) {
      const c = columns[i]!;
      const raw = row[c.column];
      switch (c.kind) {
        case 'value':
          record[c.field] = raw;
          break;
        case 'bool':
          record[c.field] = raw === 1 || raw === 1n || raw === true;
          break;
        case 'lazyJson':
          if (typeof raw === 'string') {
            lazyJsonField(record, c.field, raw);
            break;
          }
          record[c.field] = raw === null || raw === undefined ? null : (JSON.parse(raw as string) as JsonValue);
          break;
        default:
          record[c.field] = raw === null || raw === undefined ? null : (JSON.parse(raw as string) as JsonValue);
      }
    }
    return record as T;
  }
}

/**
 * Defines `record[field]` as the JSON value of `raw`, parsed when first read (or replaced when first written):
 * an enumerable property that then becomes a plain data property, so spreads, `JSON.stringify`, deep
 * equality and `structuredClone` see the value as if it had been decoded at once. Stored text that is not JSON
 * (a damaged file) throws `StorageError` when the field is read.
 */
function lazyJsonField(record: Row, field: string, raw: string): void {
  Object.defineProperty(record, field, {
    configurable: true,
    enumerable: true,
    get(this: Row): JsonValue {
      let value: JsonValue;
      try {
        value = JSON.parse(raw) as JsonValue;
      } catch (error) {
        throw new StorageError(`the stored ${field} is not valid JSON`, { cause: error });
      }
      if (Object.isExtensible(this))
        Object.defineProperty(this, field, { value, writable: true, enumerable: true, configurable: true });
      return value;
    },
    set(this: Row, value: unknown) {
      Object.defineProperty(this, field, { value, writable: true, enumerable: true, configurable: true });
    },
  });
}

/**
 * The `UPDATE … SET` assignments of one patch (see {@link assignments}).
 * @internal
 */
export class Assignments {
  /**
   * @param signature - the cache key of the statement the assignments make: the same fields give the same key
   * @param fields - the patched fields, sorted
   */
  constructor(
    readonly signature: string,
    private readonly fields: readonly string[],
    private readonly mapping: { column(field: string): { column: string } | undefined },
    private readonly skip: string,
  ) {}

  /** The assignments' SQL (the same for the same signature): call it only when the statement's text is built. */
  sets(): string {
    if (this.fields.length === 0) return `"${this.skip}" = "${this.skip}"`;
    return this.fields.map((f) => `"${this.mapping.column(f)!.column}" = @v_${f}`).join(', ');
  }
}

/**
 * `UPDATE … SET` assignments for the defined fields of `patch` (skipping `skip`): their values are bound into
 * `params` (as `v_<field>`); the result has the cache key of the statement they make (the same fields give the
 * same key, so the same SQL text, prepared once) and their SQL, built on demand.
 * @internal
 */
export function assignments<T extends object>(
  mapping: TableMapping<T>,
  patch: Partial<T>,
  skip: string,
  params: Row,
): Assignments {
  const fields: string[] = [];
  for (const field of Object.keys(patch)) {
    const value = (patch as Row)[field];
    if (field === skip || value === undefined) continue;
    const col = mapping.column(field);
    if (!col) continue;
    fields.push(field);
    params[`v_${field}`] = TableMapping.encode(col.kind, value);
  }
  if (fields.length > 1) fields.sort();
  const signature = fields.length === 1 ? fields[0]! : fields.join(',');
  return new Assignments(signature, fields, mapping, skip);
}
