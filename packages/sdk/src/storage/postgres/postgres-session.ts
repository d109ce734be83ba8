/**
 * The repositories of one PostgreSQL job (a transaction, or one call on the adapter) over one pooled client.
 * @packageDocumentation
 */
import { MediaAgentError } from '../../core/errors';
import type { StorageSession } from '../../ports/storage-adapter';
import { StorageError } from '../errors';
import { REPOSITORY_NAMES } from '../repository-methods';
import { bindPrograms, bindStatements, type Query } from '../sql/query';
import { sessionStatements } from '../sql/session-statements';
import { POSTGRES_DIALECT, POSTGRES_TRANSACTION_DIALECT } from './postgres-dialect';
import { pgExecutor, type PgRunner, type SqlCompiler } from './postgres-executor';
import { pgAppendAudit } from './audit-append';
import { pgAppendEvent } from './run-event-append';

/** Writes on the adapter that take more than one statement, so they need a transaction of their own. @internal */
export const PG_MULTI_STATEMENT_WRITES: ReadonlySet<string> = new Set([
  'events.append',
  'audit.append',
  'maintenance.prune',
  'schedules.delete',
  'intents.acquire',
  'outbox.insert',
]);

/**
 * The repository `name` of a job: the shared statements in PostgreSQL's dialect (inside a transaction, the one
 * whose budget reads lock their rows) bound to `run`; `events.append` takes two statements, `audit.append` three; maintenance, schedules, intents and the outbox are programs.
 */
function pgRepository(
  name: keyof StorageSession,
  run: (query: Query<unknown>) => Promise<unknown>,
  inTransaction: boolean,
): Record<string, (...args: unknown[]) => Promise<unknown>> {
  const statements = sessionStatements(inTransaction ? POSTGRES_TRANSACTION_DIALECT : POSTGRES_DIALECT);
  if (name === 'maintenance' || name === 'schedules' || name === 'intents' || name === 'outbox') {
    // Retention appends its checkpoint rows through the session's own audit append.
    const audit = pgRepository('audit', run, inTransaction);
    return bindPrograms(statements[name], run, (record) => audit.append!(record));
  }
  const repo = bindStatements<Record<string, (...args: unknown[]) => Promise<unknown>>>(statements[name], run);
  if (name === 'events') repo.append = (event) => pgAppendEvent(run, event as Parameters<typeof pgAppendEvent>[1]);
  if (name === 'audit') repo.append = (record) => pgAppendAudit(run, record as Parameters<typeof pgAppendAudit>[1]);
  return repo;
}

/** A session and what happened to it. @internal */
export interface PgSessionHandle {
  /** The repositories. */
  readonly session: StorageSession;
  /** The first failed statement of the session (mapped, and as thrown), if any: PostgreSQL then aborted the transaction. */
  readonly failure: { error: MediaAgentError; raw: unknown } | undefined;
  /** Makes every later call on `session` fail (its transaction is over). */
  end(): void;
}

/**
 * Creates the session of one job over `runner`: each repository is made on first use, each call checks that
 * the job is still open and maps driver errors with `mapError` (the first one is kept in `failure`).
 * @param runner - the client
 * @param compiler - the adapter's compiler
 * @param inTransaction - whether the job is `transaction(fn)`
 * @param mapError - maps a driver error to a typed storage error
 * @internal
 */
export function createPgSession(
  runner: PgRunner,
  compiler: SqlCompiler,
  inTransaction: boolean,
  mapError: (error: unknown) => MediaAgentError,
): PgSessionHandle {
  const run = pgExecutor(runner, compiler);
  let active = true;
  let failure: PgSessionHandle['failure'];
  const made: Partial<Record<keyof StorageSession, unknown>> = {};
  const repo = (name: keyof StorageSession): unknown => {
    let wrapped = made[name];
    if (wrapped === undefined) {
      const inner = pgRepository(name, run, inTransaction);
      const out: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
      for (const method of Object.keys(inner)) {
        const fn = inner[method]!;
        out[method] = async (...args) => {
          if (!active) throw new StorageError('a storage session was used after its transaction ended');
          try {
            return await fn(...args);
          } catch (raw) {
            if (raw instanceof MediaAgentError) throw raw; // the repository's own check: the statement did not fail
            const error = mapError(raw);
            failure ??= { error, raw };
            throw error;
          }
        };
      }
      made[name] = wrapped = out;
    }
    return wrapped;
  };
  const session = {} as StorageSession;
  for (const name of REPOSITORY_NAMES)
    Object.defineProperty(session, name, { get: () => repo(name), enumerable: true });
  return {
    session,
    get failure() {
      return failure;
    },
    end: () => {
      active = false;
    },
  };
}
