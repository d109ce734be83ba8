// Opens the database a stored run lives in, for reading only: a SQLite file or a PostgreSQL URL, through the SDK's
// own storage adapters (loaded lazily: the testing entry does not load a native module or `pg` by itself).
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isMediaAgentError } from '../../core/errors';
import type { RunRecord } from '../../core/run-records';
import { STORAGE_SCHEMA_VERSION, type StorageAdapter } from '../../ports/storage-adapter';
import { EvalInputError } from './trajectory';

/** A database opened for reading by the evaluation command line. @public */
export interface EvalStore {
  /** The storage adapter to read runs, events and messages through (never migrated, never written). */
  storage: StorageAdapter;
  /** What was opened, for messages: the file path, or the PostgreSQL host and database. */
  location: string;
  /** Closes it (and removes the migrated snapshot of an older SQLite file, when one was made). */
  close: () => Promise<void>;
}

const dbInvalid = (target: string, why: string) =>
  new EvalInputError('EVAL_DB_INVALID', `${target}: ${why}`, { db: target });

/**
 * A run of the store.
 * @param store - the opened store
 * @param runId - the run id
 * @returns the run as stored
 * @throws {@link EvalInputError} `EVAL_RUN_NOT_FOUND` when the store holds no such run
 * @public
 */
export async function storedRun(store: EvalStore, runId: string): Promise<RunRecord> {
  const run = await store.storage.runs.get(runId);
  if (!run)
    throw new EvalInputError('EVAL_RUN_NOT_FOUND', `${store.location}: holds no run ${runId}`, {
      runId,
      db: store.location,
    });
  return run;
}

/** Whether a database argument is a PostgreSQL URL (else it is a SQLite file path). @public */
export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//.test(target);
}

/**
 * Opens the database a run was stored in, for reading only.
 *
 * - A SQLite file (a path): it must exist and be a media-agent database. A file at this SDK's schema version is read
 *   in place (no migration, no write); a file at an older version is copied first (`VACUUM INTO`, from a read-only
 *   connection) into a temporary folder and the copy is migrated, so the original is never changed.
 * - A PostgreSQL URL (`postgres://…`, optionally `?schema=name`): every connection is read-only
 *   (`default_transaction_read_only`); the schema must be at this SDK's version.
 *
 * @param target - a SQLite file path (resolved against `cwd`) or a PostgreSQL URL
 * @param cwd - the working directory
 * @returns the store; close it when done
 * @throws {@link EvalInputError} `EVAL_DB_INVALID`: no such file, a directory, not a SQLite database, no media-agent
 *   schema in it, a schema newer than this SDK's (or, on PostgreSQL, not at this SDK's version), a server that does
 *   not answer
 * @public
 */
export async function openEvalStore(target: string, cwd: string): Promise<EvalStore> {
  return isPostgresUrl(target) ? openPostgres(target) : openSqlite(target, cwd);
}

async function openSqlite(target: string, cwd: string): Promise<EvalStore> {
  const path = resolve(cwd, target);
  if (!existsSync(path)) throw dbInvalid(target, 'no such file');
  if (!statSync(path).isFile()) throw dbInvalid(target, 'is not a file');
  const Database = (await import('better-sqlite3')).default;
  let version: number;
  let hasRuns: boolean;
  const db = (() => {
    try {
      return new Database(path, { readonly: true, fileMustExist: true });
    } catch (error) {
      throw dbInvalid(target, `cannot be opened (${(error as Error).message})`);
    }
  })();
  try {
    version = Number(db.pragma('user_version', { simple: true }));
    hasRuns = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'").get() !== undefined;
  } catch (error) {
    db.close();
    throw dbInvalid(target, `is not a SQLite database (${(error as Error).message})`);
  }
  if (version === 0 || !hasRuns) {
    db.close();
    throw dbInvalid(target, 'is not a media-agent database (no runs table, schema version 0)');
  }
  if (version > STORAGE_SCHEMA_VERSION) {
    db.close();
    throw dbInvalid(target, `is at schema version ${version}, newer than this SDK's ${STORAGE_SCHEMA_VERSION}`);
  }
  let file = path;
  let scratch: string | undefined;
  if (version < STORAGE_SCHEMA_VERSION) {
    scratch = mkdtempSync(join(tmpdir(), 'media-agent-eval-db-'));
    file = join(scratch, 'snapshot.sqlite');
    try {
      db.prepare('VACUUM INTO ?').run(file);
    } catch (error) {
      db.close();
      rmSync(scratch, { recursive: true, force: true });
      throw dbInvalid(target, `cannot be copied to be migrated (${(error as Error).message})`);
    }
  }
  db.close();
  const { SqliteStorage } = await import('../../storage/sqlite/sqlite-storage');
  const storage = new SqliteStorage({ path: file });
  const close = async () => {
    await storage.close().catch(() => undefined);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  };
  if (scratch) {
    try {
      await storage.migrate();
    } catch (error) {
      await close();
      throw dbInvalid(target, `its copy cannot be migrated (${(error as Error).message})`);
    }
  }
  return { storage, location: path, close };
}

async function openPostgres(target: string): Promise<EvalStore> {
  const [{ default: pg }, { PostgresStorage }, { splitSchema }] = await Promise.all([
    import('pg'),
    import('../../storage/postgres/postgres-storage'),
    import('../../storage/postgres/audit-reader'),
  ]);
  let parts: { connectionString: string; schema: string };
  try {
    parts = splitSchema(target);
  } catch (error) {
    throw dbInvalid(redact(target), (error as Error).message);
  }
  const pool = new pg.Pool({
    connectionString: parts.connectionString,
    max: 2,
    connectionTimeoutMillis: 10_000,
    options: '-c default_transaction_read_only=on',
  });
  pool.on('error', () => undefined);
  const storage = new PostgresStorage({ pool, schema: parts.schema });
  const close = async () => {
    await storage.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
  };
  let version: number;
  try {
    version = await storage.schemaVersion();
  } catch (error) {
    await close();
    const why = isMediaAgentError(error) ? `${error.code}: ${error.message}` : (error as Error).message;
    throw dbInvalid(redact(target), `cannot be read (${why})`);
  }
  if (version !== STORAGE_SCHEMA_VERSION) {
    await close();
    throw dbInvalid(
      redact(target),
      version === 0
        ? `schema "${parts.schema}" holds no media-agent tables`
        : `schema "${parts.schema}" is at version ${version}; this SDK reads version ${STORAGE_SCHEMA_VERSION} (start a host on it to migrate)`,
    );
  }
  return { storage, location: redact(target), close };
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the PostgreSQL URL';
  }
}
