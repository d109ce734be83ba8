/**
 * The query helpers every PostgreSQL repository is written with. Repositories keep their SQL as module
 * constants in the SQLite repositories' dialect — named parameters (`@name`) and the table's schema as the
 * marker `{schema}` (the LISTEN/NOTIFY channel as `{channel}`) — and {@link SqlCompiler} turns each text, once
 * per adapter, into PostgreSQL's positional form (`$1`, `$2`, …) with the schema filled in.
 * @packageDocumentation
 */
import pg from 'pg';
import type { Row, TableMapping } from '../sqlite/table-mapping';

/** A statement ready for node-postgres: positional text and the parameter names in `$n` order. @internal */
interface Compiled {
  readonly text: string;
  readonly names: readonly string[];
}

/**
 * Type parsers of every query: `bigint` (int8) and `numeric` (what `SUM(bigint)` returns) as JS numbers (times
 * in ms and byte counts stay below 2^53), `json`/`jsonb` as their text (decoded by {@link TableMapping}, lazily
 * where a field is large). Passed per query, so a pool the host shares keeps its own global parsers.
 * @internal
 */
export const PG_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (oid === 20 || oid === 1700) return Number;
    if (oid === 114 || oid === 3802) return (value: string) => value;
    return pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
  },
};

/**
 * A parameter as node-postgres sends it: `undefined` as null, and U+0000 in a string as U+FFFD — a PostgreSQL
 * `text` cannot hold U+0000 and the server refuses the whole statement (22021), so one NUL in a goal, a model's
 * reply or a steering message would fail the run's step. (`json` columns hold `JSON.stringify` text, where a NUL
 * is the escape `\u0000` and is stored as written.)
 * @internal
 */
export function pgParam(value: unknown): unknown {
  if (value === undefined) return null;
  return typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
}

/** Compiles the SQL of one adapter (one schema, one channel), caching each text's compiled form. @internal */
export class SqlCompiler {
  readonly #cache = new Map<string, Compiled>();

  /** @param schema - the (validated, unquoted) schema name; @param channel - the LISTEN/NOTIFY channel */
  constructor(
    readonly schema: string,
    readonly channel: string,
  ) {}

  /** The positional form of `sql`: `{schema}`/`{channel}` filled in, each distinct `@name` → `$n`. */
  compile(sql: string): Compiled {
    let compiled = this.#cache.get(sql);
    if (compiled === undefined) {
      const names: string[] = [];
      const text = sql
        .replaceAll('{schema}', this.schema)
        .replaceAll('{channel}', this.channel)
        .replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
          let index = names.indexOf(name);
          if (index < 0) index = names.push(name) - 1;
          return `$${index + 1}`;
        });
      compiled = { text, names };
      this.#cache.set(sql, compiled);
    }
    return compiled;
  }
}

/** What runs the statements: a pooled client (a transaction, or one call on the adapter). @internal */
export interface PgRunner {
  query(config: { text: string; values: unknown[]; types: typeof PG_TYPES }): Promise<{
    rows: Row[];
    rowCount: number | null;
  }>;
}

/** The query helpers every PostgreSQL repository is written with, over one client. @internal */
export interface PgQueries {
  /** Whether the statements run inside `transaction(fn)` (repositories may then lock what they read). */
  readonly inTransaction: boolean;
  /** Every row `sql` returns for `params`. */
  all(sql: string, params: Row): Promise<Row[]>;
  /** The first row `sql` returns for `params`, if any. */
  one(sql: string, params: Row): Promise<Row | undefined>;
  /** Runs `sql`; the number of rows it changed (or returned). */
  exec(sql: string, params: Row): Promise<number>;
  /** The record whose primary key `pk` is `id`, decoded by `m`. */
  byId<T extends object>(m: TableMapping<T>, pk: string, id: string): Promise<T | undefined>;
  /** Inserts `record` (a duplicate key rejects with the driver's error). */
  mustInsert<T extends object>(m: TableMapping<T>, record: T): Promise<void>;
  /** A `LIMIT` parameter: null (no limit) when absent, else a non-negative integer. */
  limit(n: number | undefined): number | null;
  /** The SQL text cached under `key`, built by `build` the first time. */
  cas(key: string, build: () => string): string;
}

/** SQL texts of compare-and-sets, per (table, patched fields, condition); the same for every adapter. */
const casSql = new Map<string, string>();

/**
 * Builds the query helpers over `runner`, compiling with `compiler`.
 * @param runner - the client the statements run on
 * @param compiler - the adapter's compiler (schema, channel, cache)
 * @param inTransaction - whether the statements run inside `transaction(fn)`
 * @internal
 */
export function createPgQueries(runner: PgRunner, compiler: SqlCompiler, inTransaction: boolean): PgQueries {
  const run = async (sql: string, params: Row) => {
    const { text, names } = compiler.compile(sql);
    const values = names.map((name) => pgParam(params[name]));
    return runner.query({ text, values, types: PG_TYPES });
  };
  const all = async (sql: string, params: Row): Promise<Row[]> => (await run(sql, params)).rows;
  const one = async (sql: string, params: Row): Promise<Row | undefined> => (await run(sql, params)).rows[0];
  const exec = async (sql: string, params: Row): Promise<number> => (await run(sql, params)).rowCount ?? 0;
  return {
    inTransaction,
    all,
    one,
    exec,
    byId: async <T extends object>(m: TableMapping<T>, pk: string, id: string): Promise<T | undefined> => {
      const row = await one(m.selectBy(pk), { id });
      return row ? m.fromRow(row) : undefined;
    },
    mustInsert: async <T extends object>(m: TableMapping<T>, record: T): Promise<void> => {
      await exec(m.insertSql, m.toParams(record));
    },
    limit: (n) => (n === undefined ? null : Math.max(0, Math.floor(n))),
    cas: (key, build) => {
      let sql = casSql.get(key);
      if (sql === undefined) casSql.set(key, (sql = build()));
      return sql;
    },
  };
}
