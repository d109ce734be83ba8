/**
 * Repositories over one better-sqlite3 connection: the statements shared with PostgreSQL (`../sql`) in SQLite's
 * dialect, run synchronously, and the sessions of transactions over them.
 * @packageDocumentation
 */
import type { Database, Statement } from 'better-sqlite3';
import { StorageError } from '../errors';
import type { AuditRecord } from '../../core/records';
import type { StorageSession } from '../../ports/storage-adapter';
import { REPOSITORY_NAMES } from '../repository-methods';
import { AUDIT_GENESIS_HASH, auditRowHash } from '../../core/audit-chain';
import { auditHeadSql, auditInsertHead, AUDIT_INSERT_FIELDS } from '../sql/audit-sql';
import { bindPrograms, bindStatements } from '../sql/query';
import { PROGRAM_REPOSITORIES, sessionStatements } from '../sql/session-statements';
import { SQLITE_DIALECT } from './sqlite-dialect';
import { toStorageError } from './sqlite-errors';
import { sqliteExecutor, type SyncSession } from './sqlite-executor';

/** The SQL function that links the audit row being inserted: its hash after the given head (see below). */
const AUDIT_HASH_FUNCTION = 'media_agent_audit_row_hash';

/**
 * The audit insert of {@link SqliteRepositories.insertAudit}, one statement: every column but `seq` (assigned by
 * SQLite), the content with positional parameters in the order it binds them (no name lookup per column: this is the
 * hot insert of reads), then the chain link — `prev_hash` the head (the hash of the newest chained row, read backwards
 * along the primary key, or the genesis hash), `hash` the row's hash after it, made by the connection's function
 * {@link AUDIT_HASH_FUNCTION} from the record being inserted.
 */
const AUDIT_INSERT_SQL = `${auditInsertHead('audit')}
  SELECT ${AUDIT_INSERT_FIELDS.filter((c) => c.field !== 'prevHash' && c.field !== 'hash')
    .map(() => '?')
    .join(', ')}, head.hash, ${AUDIT_HASH_FUNCTION}(head.hash)
  FROM (SELECT COALESCE((${auditHeadSql('audit')}), ?) AS hash) AS head
  RETURNING seq, prev_hash, hash`;

/** A nullable field as bound: undefined as NULL. */
const v = (x: string | null | undefined): string | null => (x === undefined ? null : x);

/**
 * The repositories over one better-sqlite3 connection, synchronous, built once per connection. Every
 * statement is prepared once (fixed SQL text per operation; a compare-and-set's text per set of patched
 * fields). Methods throw driver errors as they are; callers map them with `toStorageError`.
 * @internal
 */
export class SqliteRepositories {
  readonly #stmts = new Map<string, Statement>();
  /** The repositories. */
  readonly repos: SyncSession;

  /** @param db - the open connection; @param location - database path, for error messages */
  constructor(
    readonly db: Database,
    readonly location: string,
  ) {
    this.#registerAuditHash();
    this.repos = this.#create();
  }

  readonly #methods = new Map<string, ReadonlyArray<readonly [string, (...args: unknown[]) => unknown]>>();
  /** The methods of repository `name`, listed once per connection (each session wraps them). */
  methods(name: keyof SyncSession): ReadonlyArray<readonly [string, (...args: unknown[]) => unknown]> {
    let list = this.#methods.get(name);
    if (list === undefined)
      this.#methods.set(
        name,
        (list = Object.entries(this.repos[name] as unknown as Record<string, (...args: unknown[]) => unknown>)),
      );
    return list;
  }

  /** The prepared statement for `sql`, prepared once per connection. */
  stmt(sql: string): Statement {
    let stmt = this.#stmts.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.#stmts.set(sql, stmt);
    }
    return stmt;
  }

  /** The record {@link SqliteRepositories.insertAudit} is inserting: what the chain-link function hashes. */
  #linking: AuditRecord | undefined;

  /**
   * Inserts one audit row (outside `repos`, for batched rows too), linked into the chain: the head is read by the
   * insert itself, in the same transaction, which holds SQLite's write lock from its `BEGIN IMMEDIATE`, so no other
   * connection or process appends in between (docs/audit.md). Must run inside a write transaction.
   * @returns the row as stored: `record` with its `seq`, `prevHash` and `hash`
   */
  insertAudit(r: AuditRecord): AuditRecord {
    this.#linking = r;
    let stored: { seq: number | bigint; prev_hash: string; hash: string };
    try {
      stored = this.stmt(AUDIT_INSERT_SQL).get(
        r.id,
        r.at,
        r.action,
        r.actor,
        r.capabilityId,
        r.invocationId,
        v(r.runId),
        v(r.taskId),
        r.outcome,
        v(r.approvalId),
        v(r.grantId),
        v(r.idempotencyKey),
        r.inputSummary,
        v(r.reason),
        AUDIT_GENESIS_HASH,
      ) as { seq: number | bigint; prev_hash: string; hash: string };
    } finally {
      this.#linking = undefined;
    }
    return { ...r, seq: Number(stored.seq), prevHash: stored.prev_hash, hash: stored.hash };
  }

  /** Registers the chain-link function of {@link SqliteRepositories.insertAudit} on the connection. */
  #registerAuditHash(): void {
    this.db.function(AUDIT_HASH_FUNCTION, { deterministic: false }, (head: unknown) => {
      const record = this.#linking;
      if (record === undefined || typeof head !== 'string')
        throw new StorageError('the audit chain-link function runs only inside an audit insert');
      return auditRowHash(head, record);
    });
  }

  #create(): SyncSession {
    const run = sqliteExecutor((sql) => this.stmt(sql));
    const statements = sessionStatements(SQLITE_DIALECT);
    const repos: Record<string, unknown> = {};
    for (const name of REPOSITORY_NAMES)
      if (!PROGRAM_REPOSITORIES.has(name)) repos[name] = bindStatements(statements[name], run);
    const session = repos as SyncSession;
    // A plain INSERT: the stored row is the record with its new seq and chain link (no RETURNING, nothing to decode).
    const append: SyncSession['audit']['append'] = (record) => this.insertAudit(record);
    const audit = { ...session.audit, append };
    // Retention appends its checkpoint rows through the session's own audit append (so they join the chain).
    const appendAudit = (record: AuditRecord) => audit.append(record);
    const maintenance = bindPrograms<SyncSession['maintenance']>(statements.maintenance, run, appendAudit);
    const schedules = bindPrograms<SyncSession['schedules']>(statements.schedules, run, appendAudit);
    const intents = bindPrograms<SyncSession['intents']>(statements.intents, run, appendAudit);
    const outbox = bindPrograms<SyncSession['outbox']>(statements.outbox, run, appendAudit);
    return { ...session, audit, maintenance, schedules, intents, outbox };
  }
}

/** A session and a switch that disables it once its transaction has ended. @internal */
export interface SqliteSessionHandle {
  /** The repositories. */
  readonly session: StorageSession;
  /** Makes every later call on `session` fail (the transaction it belonged to is over). */
  end(): void;
}

/**
 * The session of one transaction over a connection's repositories: each repository is wrapped on first use
 * (most transactions touch a few), each call checks that the transaction is still open and maps driver errors
 * to typed storage errors. Results come back as settled promises.
 */
class SqliteTransactionSession implements StorageSession {
  active = true;
  readonly #made: Partial<Record<keyof StorageSession, unknown>> = {};

  constructor(readonly core: SqliteRepositories) {}

  #repo(name: keyof StorageSession): unknown {
    let wrapped = this.#made[name];
    if (wrapped === undefined) {
      const out: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
      for (const [method, fn] of this.core.methods(name)) {
        out[method] = (...args) => {
          if (!this.active)
            return Promise.reject(new StorageError('a storage session was used after its transaction ended'));
          try {
            return Promise.resolve(fn(...args));
          } catch (error) {
            return Promise.reject(toStorageError(error, this.core.location));
          }
        };
      }
      this.#made[name] = wrapped = out;
    }
    return wrapped;
  }

  get ledger(): StorageSession['ledger'] {
    return this.#repo('ledger') as StorageSession['ledger'];
  }
  get approvals(): StorageSession['approvals'] {
    return this.#repo('approvals') as StorageSession['approvals'];
  }
  get grants(): StorageSession['grants'] {
    return this.#repo('grants') as StorageSession['grants'];
  }
  get plans(): StorageSession['plans'] {
    return this.#repo('plans') as StorageSession['plans'];
  }
  get policies(): StorageSession['policies'] {
    return this.#repo('policies') as StorageSession['policies'];
  }
  get audit(): StorageSession['audit'] {
    return this.#repo('audit') as StorageSession['audit'];
  }
  get settings(): StorageSession['settings'] {
    return this.#repo('settings') as StorageSession['settings'];
  }
  get runs(): StorageSession['runs'] {
    return this.#repo('runs') as StorageSession['runs'];
  }
  get events(): StorageSession['events'] {
    return this.#repo('events') as StorageSession['events'];
  }
  get messages(): StorageSession['messages'] {
    return this.#repo('messages') as StorageSession['messages'];
  }
  get inbox(): StorageSession['inbox'] {
    return this.#repo('inbox') as StorageSession['inbox'];
  }
  get decisions(): StorageSession['decisions'] {
    return this.#repo('decisions') as StorageSession['decisions'];
  }
  get grantUsage(): StorageSession['grantUsage'] {
    return this.#repo('grantUsage') as StorageSession['grantUsage'];
  }
  get budgetUsage(): StorageSession['budgetUsage'] {
    return this.#repo('budgetUsage') as StorageSession['budgetUsage'];
  }
  get maintenance(): StorageSession['maintenance'] {
    return this.#repo('maintenance') as StorageSession['maintenance'];
  }
  get schedules(): StorageSession['schedules'] {
    return this.#repo('schedules') as StorageSession['schedules'];
  }
  get intents(): StorageSession['intents'] {
    return this.#repo('intents') as StorageSession['intents'];
  }
  get outbox(): StorageSession['outbox'] {
    return this.#repo('outbox') as StorageSession['outbox'];
  }
}

/**
 * Creates the session of one transaction on `core.db` (the caller runs `BEGIN`/`COMMIT`).
 * @internal
 */
export function createSqliteSession(core: SqliteRepositories): SqliteSessionHandle {
  const session = new SqliteTransactionSession(core);
  return {
    session,
    end: () => {
      session.active = false;
    },
  };
}
