/**
 * Runs the shared SQL statements on PostgreSQL. Statements are written with named parameters (`@name`), the
 * table's schema as the marker `{schema}` and the LISTEN/NOTIFY channel as `{channel}` (see `../sql`);
 * {@link SqlCompiler} turns each text, once per adapter, into PostgreSQL's positional form (`$1`, `$2`, …) with
 * the schema filled in.
 * @packageDocumentation
 */
import pg from 'pg';
import type { Query } from '../sql/query';
import type { Row } from '../sql/table-mapping';

/** A statement ready for node-postgres: positional text and the parameter names in `$n` order. @internal */
interface Compiled {
  readonly text: string;
  readonly names: readonly string[];
}

/**
 * Type parsers of every query: `bigint` (int8) and `numeric` (what `SUM(bigint)` returns) as JS numbers (times
 * in ms and byte counts stay below 2^53), `json`/`jsonb` as their text (decoded by the table mappings, lazily
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

/**
 * The executor of one client: runs a query, compiled by `compiler`, on `runner` and resolves to the query's result.
 * @internal
 */
export function pgExecutor(runner: PgRunner, compiler: SqlCompiler): (query: Query<unknown>) => Promise<unknown> {
  return async (query) => {
    const { text, names } = compiler.compile(query.sql);
    const values = names.map((name) => pgParam(query.params[name]));
    const result = await runner.query({ text, values, types: PG_TYPES });
    switch (query.returns) {
      case 'rows':
        return query.result(result.rows);
      case 'row':
        return query.result(result.rows[0]);
      case 'count':
        return query.result(result.rowCount ?? 0);
    }
  };
}
