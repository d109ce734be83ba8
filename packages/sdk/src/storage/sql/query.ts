/**
 * A repository method written once for both SQL stores: the statement it runs and how the result becomes the
 * method's value. SQLite runs it synchronously (better-sqlite3), PostgreSQL asynchronously (node-postgres); each
 * store binds the same statements to its own executor.
 * @packageDocumentation
 */
import type { AuditRecord } from '../../core/records';
import type { Row } from './table-mapping';

/**
 * One statement and what the method returns from its result: every row (`rows`), the first row (`row`) or the
 * number of rows changed (`count`).
 * @internal
 */
export type Query<T> =
  | { readonly sql: string; readonly params: Row; readonly returns: 'rows'; readonly result: (rows: Row[]) => T }
  | {
      readonly sql: string;
      readonly params: Row;
      readonly returns: 'row';
      readonly result: (row: Row | undefined) => T;
    }
  | { readonly sql: string; readonly params: Row; readonly returns: 'count'; readonly result: (count: number) => T };

/** A query returning what `result` makes of every row. @internal */
export const rows = <T>(sql: string, params: Row, result: (rows: Row[]) => T): Query<T> => ({
  sql,
  params,
  returns: 'rows',
  result,
});

/** A query returning what `result` makes of the first row (undefined when there is none). @internal */
export const row = <T>(sql: string, params: Row, result: (row: Row | undefined) => T): Query<T> => ({
  sql,
  params,
  returns: 'row',
  result,
});

/** A query returning what `result` makes of the number of rows it changed. @internal */
export const count = <T>(sql: string, params: Row, result: (count: number) => T): Query<T> => ({
  sql,
  params,
  returns: 'count',
  result,
});

/** `result` of a `count` query: whether exactly one row changed. @internal */
export const exactlyOne = (n: number): boolean => n === 1;
/** `result` of a query whose value is nothing. @internal */
export const nothing = (): void => undefined;

/** A repository written as statements: each method makes the {@link Query} it runs. @internal */
export type Statements<R> = {
  [K in keyof R]-?: NonNullable<R[K]> extends (...args: infer A) => Promise<infer T> ? (...args: A) => Query<T> : never;
};

/**
 * A step of a {@link Program}: a query to run, or an audit row to append through the session's own
 * `audit.append` (so whatever that append does — a hash chain, a lock — applies to it too).
 * @internal
 */
export type ProgramStep = Query<unknown> | { readonly appendAudit: AuditRecord };

/**
 * A repository method that takes several statements, written once for both SQL stores as a generator: it yields
 * each {@link ProgramStep} and gets its result back (SQLite drives it synchronously, PostgreSQL asynchronously).
 * Run inside one transaction (see each store's multi-statement writes).
 * @internal
 */
export type Program<T> = Generator<ProgramStep, T, unknown>;

/** A repository written as programs: each method makes the {@link Program} it runs. @internal */
export type Programs<R> = {
  [K in keyof R]: R[K] extends (...args: infer A) => Promise<infer T> ? (...args: A) => Program<T> : never;
};

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as { then?: unknown } | null)?.then === 'function';

/**
 * Runs `program`: each query with `run`, each audit row with `appendAudit`. Synchronous as long as they are
 * (SQLite); once one returns a promise, the rest runs asynchronously and a promise is returned (PostgreSQL).
 * @internal
 */
export function driveProgram(
  program: Program<unknown>,
  run: (query: Query<unknown>) => unknown,
  appendAudit: (record: AuditRecord) => unknown,
): unknown {
  let input: unknown;
  for (;;) {
    const step = program.next(input);
    if (step.done) return step.value;
    const out = 'appendAudit' in step.value ? appendAudit(step.value.appendAudit) : run(step.value);
    if (isThenable(out)) return continueAsync(program, run, appendAudit, out);
    input = out;
  }
}

async function continueAsync(
  program: Program<unknown>,
  run: (query: Query<unknown>) => unknown,
  appendAudit: (record: AuditRecord) => unknown,
  pending: PromiseLike<unknown>,
): Promise<unknown> {
  let input = await pending;
  for (;;) {
    const step = program.next(input);
    if (step.done) return step.value;
    input = await ('appendAudit' in step.value ? appendAudit(step.value.appendAudit) : run(step.value));
  }
}

/** The repository `programs` make, each method driven by {@link driveProgram}. @internal */
export function bindPrograms<Out>(
  programs: object,
  run: (query: Query<unknown>) => unknown,
  appendAudit: (record: AuditRecord) => unknown,
): Out {
  const out: Record<string, (...args: unknown[]) => unknown> = {};
  for (const [method, make] of Object.entries(programs as Record<string, (...args: unknown[]) => Program<unknown>>))
    out[method] = (...args) => driveProgram(make(...args), run, appendAudit);
  return out as Out;
}

/**
 * The repository `statements` make, each method running its query with `run` (a store's executor; synchronous or
 * returning a promise). Typed by the caller: `SyncRepository<R>` for SQLite, `R` for PostgreSQL.
 * @internal
 */
export function bindStatements<Out>(statements: object, run: (query: Query<unknown>) => unknown): Out {
  const out: Record<string, (...args: unknown[]) => unknown> = {};
  for (const [method, make] of Object.entries(statements as Record<string, (...args: unknown[]) => Query<unknown>>))
    out[method] = (...args) => run(make(...args));
  return out as Out;
}

/**
 * `build` memoized per dialect: a repository's SQL texts are made once per dialect (they key the stores'
 * statement caches), not once per session.
 * @internal
 */
export function perDialect<D extends object, T>(build: (dialect: D) => T): (dialect: D) => T {
  const made = new WeakMap<D, T>();
  return (dialect) => {
    let value = made.get(dialect);
    if (value === undefined) made.set(dialect, (value = build(dialect)));
    return value;
  };
}

/**
 * SQL texts built on demand and kept by key — a compare-and-set's text per set of patched fields — so the same
 * fields give the very same text (prepared once by SQLite, compiled once for PostgreSQL).
 * @internal
 */
export class SqlTexts {
  readonly #texts = new Map<string, string>();
  /** The text kept under `key`, built by `build` the first time. */
  get(key: string, build: () => string): string {
    let sql = this.#texts.get(key);
    if (sql === undefined) this.#texts.set(key, (sql = build()));
    return sql;
  }
}

/** A `LIMIT` parameter: `noLimit` when `n` is absent, else `n` as a non-negative integer. @internal */
export function limitParam(n: number | undefined, noLimit: number | null): number | null {
  return n === undefined ? noLimit : Math.max(0, Math.floor(n));
}
