/**
 * Repositories over one better-sqlite3 connection. The SQL uses only constructs PostgreSQL has
 * too (named parameters map to `$n`, `json_each(?)` to `= ANY($n)`, `ON CONFLICT DO NOTHING`,
 * `RETURNING`), so a PostgreSQL session is a one-to-one translation.
 * @packageDocumentation
 */
import type { Database, Statement } from 'better-sqlite3';
import { StorageError } from '../errors';
import type {
  ApprovalRecord,
  AuditRecord,
  GrantRecord,
  JsonValue,
  LedgerEntry,
  LedgerState,
  PlanRecord,
  PolicyRevisionRecord,
} from '../records';
import type { DecisionRecord, InboxRecord, RunEventRecord, RunMessageRecord, RunRecord } from '../run-records';
import type { StorageSession } from '../storage-adapter';
import { toStorageError } from './sqlite-errors';

type ColumnKind = 'value' | 'json' | 'jsonOrNull' | 'bool';
type Row = Record<string, unknown>;

/** Field ↔ column mapping of one table. */
class TableMapping<T extends object> {
  readonly columns: ReadonlyArray<{ field: keyof T & string; column: string; kind: ColumnKind }>;
  readonly #byField: Map<string, { column: string; kind: ColumnKind }>;

  constructor(
    readonly table: string,
    spec: Record<keyof T & string, ColumnKind>,
  ) {
    this.columns = Object.entries(spec).map(([field, kind]) => ({
      field: field as keyof T & string,
      column: field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
      kind: kind as ColumnKind,
    }));
    this.#byField = new Map(this.columns.map((c) => [c.field, c]));
  }

  column(field: string): { column: string; kind: ColumnKind } | undefined {
    return this.#byField.get(field);
  }

  /** `"a", "b"` */
  get columnList(): string {
    return this.columns.map((c) => `"${c.column}"`).join(', ');
  }

  /** `@a, @b` */
  get paramList(): string {
    return this.columns.map((c) => `@${c.field}`).join(', ');
  }

  static encode(kind: ColumnKind, value: unknown): unknown {
    if (kind === 'json') return JSON.stringify(value ?? null);
    if (kind === 'jsonOrNull') return value === null || value === undefined ? null : JSON.stringify(value);
    if (kind === 'bool') return value ? 1 : 0;
    return value === undefined ? null : value;
  }

  toParams(record: T): Row {
    const params: Row = {};
    for (const c of this.columns) params[c.field] = TableMapping.encode(c.kind, (record as Row)[c.field]);
    return params;
  }

  fromRow(row: Row): T {
    const record: Row = {};
    for (const c of this.columns) {
      const raw = row[c.column];
      record[c.field] =
        c.kind === 'value' ? raw : c.kind === 'bool' ? raw === 1 || raw === 1n : raw === null || raw === undefined ? null : (JSON.parse(raw as string) as JsonValue);
    }
    return record as T;
  }
}

const LEDGER = new TableMapping<LedgerEntry>('ledger', {
  key: 'value',
  capabilityId: 'value',
  capabilityVersion: 'value',
  scopeId: 'value',
  callId: 'value',
  argsHash: 'value',
  state: 'value',
  token: 'value',
  actor: 'value',
  invocationId: 'value',
  runId: 'value',
  taskId: 'value',
  approvalId: 'value',
  grantId: 'value',
  bytes: 'value',
  output: 'jsonOrNull',
  error: 'jsonOrNull',
  inputSummary: 'value',
  attempts: 'value',
  claimedAt: 'value',
  updatedAt: 'value',
  settledAt: 'value',
});

const APPROVALS = new TableMapping<ApprovalRecord>('approvals', {
  id: 'value',
  planType: 'value',
  planId: 'value',
  payloadHash: 'value',
  revision: 'value',
  status: 'value',
  requestedBy: 'value',
  reason: 'value',
  requestedAt: 'value',
  expiresAt: 'value',
  decidedBy: 'value',
  decidedAt: 'value',
  consumedBy: 'value',
  consumedAt: 'value',
});

const GRANTS = new TableMapping<GrantRecord>('grants', {
  id: 'value',
  action: 'value',
  status: 'value',
  expiresAt: 'value',
  policyRevisionId: 'value',
  scope: 'json',
  budget: 'json',
  reason: 'value',
  createdBy: 'value',
  createdAt: 'value',
  updatedAt: 'value',
});

const PLANS = new TableMapping<PlanRecord>('plans', {
  id: 'value',
  type: 'value',
  payload: 'json',
  payloadHash: 'value',
  revision: 'value',
  mediaEntityId: 'value',
  mediaKind: 'value',
  bytes: 'value',
  createdBy: 'value',
  createdAt: 'value',
  updatedAt: 'value',
});

const POLICIES = new TableMapping<PolicyRevisionRecord>('policies', {
  id: 'value',
  kind: 'value',
  status: 'value',
  createdAt: 'value',
  updatedAt: 'value',
});

const AUDIT = new TableMapping<AuditRecord>('audit', {
  id: 'value',
  seq: 'value',
  at: 'value',
  action: 'value',
  actor: 'value',
  capabilityId: 'value',
  invocationId: 'value',
  runId: 'value',
  taskId: 'value',
  outcome: 'value',
  approvalId: 'value',
  grantId: 'value',
  idempotencyKey: 'value',
  inputSummary: 'value',
  reason: 'value',
});

const RUNS = new TableMapping<RunRecord>('runs', {
  id: 'value',
  goal: 'value',
  mode: 'value',
  status: 'value',
  step: 'value',
  startedBy: 'value',
  origin: 'value',
  parentRunId: 'value',
  depth: 'value',
  runtimeState: 'jsonOrNull',
  sessionId: 'value',
  capabilityAllowlist: 'jsonOrNull',
  budgets: 'json',
  usage: 'json',
  plan: 'jsonOrNull',
  report: 'jsonOrNull',
  finalText: 'value',
  error: 'jsonOrNull',
  abortRequested: 'bool',
  abortReason: 'value',
  wakeRequested: 'bool',
  leaseOwner: 'value',
  leaseExpiresAt: 'value',
  notBefore: 'value',
  createdAt: 'value',
  updatedAt: 'value',
  startedAt: 'value',
  endedAt: 'value',
});

const RUN_EVENTS = new TableMapping<RunEventRecord>('run_events', {
  globalSeq: 'value',
  runId: 'value',
  seq: 'value',
  type: 'value',
  at: 'value',
  data: 'json',
});

const RUN_MESSAGES = new TableMapping<RunMessageRecord>('run_messages', {
  runId: 'value',
  seq: 'value',
  message: 'json',
  at: 'value',
});

const INBOX = new TableMapping<InboxRecord>('inbox', {
  id: 'value',
  runId: 'value',
  text: 'value',
  actor: 'value',
  status: 'value',
  createdAt: 'value',
  appliedAt: 'value',
});

const DECISIONS = new TableMapping<DecisionRecord>('decisions', {
  id: 'value',
  kind: 'value',
  dedupeKey: 'value',
  subjectId: 'value',
  status: 'value',
  reason: 'value',
  data: 'json',
  createdAt: 'value',
  resolvedAt: 'value',
});

/**
 * The runnable-run rule of `RunRepository.acquireLease`, as one statement: the oldest non-terminal run
 * whose lease is free (none, or expired at `@now`) and that is `queued`, `running` (takeover after a
 * crash), or `waiting` with a wake request, an abort request or a due `not_before`. Inside the write
 * transaction (SQLite: `BEGIN IMMEDIATE`), so two connections never lease the same run. PostgreSQL: the
 * same statement with `FOR UPDATE SKIP LOCKED` on the subquery (and the lease condition repeated in the
 * outer `WHERE`, which READ COMMITTED re-checks on the locked row).
 */
const ACQUIRE_LEASE_SQL = `UPDATE runs SET lease_owner = @owner, lease_expires_at = @expiresAt
  WHERE id = (
    SELECT id FROM runs
    WHERE status IN ('queued', 'running', 'waiting')
      AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= @now)
      AND (status IN ('queued', 'running') OR wake_requested = 1 OR abort_requested = 1 OR (not_before IS NOT NULL AND not_before <= @now))
    ORDER BY created_at, id
    LIMIT 1
  )
  AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= @now)
  RETURNING *`;

const AUDIT_INSERT_COLUMNS = AUDIT.columns.filter((c) => c.field !== 'seq');

/** Builds `UPDATE … SET` assignments for the defined fields of `patch`, skipping `skip`. */
function assignments<T extends object>(mapping: TableMapping<T>, patch: Partial<T>, skip: string, params: Row): string {
  const sets: string[] = [];
  for (const field of Object.keys(patch).sort()) {
    const value = (patch as Row)[field];
    const col = mapping.column(field);
    if (field === skip || value === undefined || !col) continue;
    sets.push(`"${col.column}" = @v_${field}`);
    params[`v_${field}`] = TableMapping.encode(col.kind, value);
  }
  return sets.length > 0 ? sets.join(', ') : `"${skip}" = "${skip}"`;
}

/** Prepared statements cached by SQL text (one cache per connection). @internal */
export class StatementCache {
  readonly #cache = new Map<string, Statement>();
  constructor(readonly db: Database) {}

  /** The prepared statement for `sql`, prepared once per connection. */
  get(sql: string): Statement {
    let stmt = this.#cache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.#cache.set(sql, stmt);
    }
    return stmt;
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
 * Creates the repositories for one transaction (or one auto-committed call) on `stmts.db`.
 * Every call maps driver errors to typed storage errors.
 * @internal
 */
export function createSqliteSession(stmts: StatementCache, location: string): SqliteSessionHandle {
  let active = true;
  const run = async <T>(work: () => T): Promise<T> => {
    if (!active) throw new StorageError('a storage session was used after its transaction ended');
    try {
      return work();
    } catch (error) {
      throw toStorageError(error, location);
    }
  };
  const all = (sql: string, params: unknown): Row[] => stmts.get(sql).all(params) as Row[];
  const one = (sql: string, params: unknown): Row | undefined => stmts.get(sql).get(params) as Row | undefined;
  const exec = (sql: string, params: unknown): number => stmts.get(sql).run(params).changes;
  const insertSql = (m: { table: string; columnList: string; paramList: string }) => `INSERT INTO ${m.table} (${m.columnList}) VALUES (${m.paramList})`;
  const byId = <T extends object>(m: TableMapping<T>, pk: string, id: string): T | undefined => {
    const row = one(`SELECT * FROM ${m.table} WHERE "${pk}" = @id`, { id });
    return row ? m.fromRow(row) : undefined;
  };
  const mustInsert = <T extends object>(m: TableMapping<T>, record: T): void => {
    exec(insertSql(m), m.toParams(record));
  };
  const states = (list: readonly LedgerState[]) => JSON.stringify([...list]);
  const limit = (n: number | undefined) => (n === undefined ? -1 : Math.max(0, Math.floor(n)));

  const session: StorageSession = {
    ledger: {
      get: (key) => run(() => byId(LEDGER, 'key', key)),
      findByCall: (scopeId, callId) =>
        run(() => {
          const row = one(`SELECT * FROM ledger WHERE scope_id = @scopeId AND call_id = @callId`, { scopeId, callId });
          return row ? LEDGER.fromRow(row) : undefined;
        }),
      insert: (entry) => run(() => exec(`${insertSql(LEDGER)} ON CONFLICT DO NOTHING`, LEDGER.toParams(entry)) === 1),
      compareAndSet: (key, expectedToken, patch, expectedStates) =>
        run(() => {
          const params: Row = { key, expectedToken };
          const sets = assignments(LEDGER, patch, 'key', params);
          let sql = `UPDATE ledger SET ${sets} WHERE key = @key AND token = @expectedToken`;
          if (expectedStates) {
            sql += ` AND state IN (SELECT value FROM json_each(@expectedStates))`;
            params.expectedStates = states(expectedStates);
          }
          return exec(sql, params) === 1;
        }),
      listByState: (list, options = {}) =>
        run(() => {
          const params: Row = { states: states(list), limit: limit(options.limit) };
          let where = `state IN (SELECT value FROM json_each(@states))`;
          if (options.claimedBefore !== undefined) {
            where += ` AND claimed_at < @claimedBefore`;
            params.claimedBefore = options.claimedBefore;
          }
          return all(`SELECT * FROM ledger WHERE ${where} ORDER BY claimed_at, key LIMIT @limit`, params).map((r) => LEDGER.fromRow(r));
        }),
      usageForGrant: (grantId, from, to) =>
        run(() => {
          const row = one(
            `SELECT COUNT(*) AS invocations, COALESCE(SUM(bytes), 0) AS bytes FROM ledger WHERE grant_id = @grantId AND claimed_at >= @from AND claimed_at < @to`,
            { grantId, from, to },
          );
          return { invocations: Number(row?.invocations ?? 0), bytes: Number(row?.bytes ?? 0) };
        }),
      deleteSettledBefore: (settledBefore, list) =>
        run(() =>
          exec(
            `DELETE FROM ledger WHERE state IN (SELECT value FROM json_each(@states)) AND state NOT IN ('running', 'unknown') AND settled_at IS NOT NULL AND settled_at < @settledBefore`,
            { states: states(list), settledBefore },
          ),
        ),
    },
    approvals: {
      insert: (record) => run(() => mustInsert(APPROVALS, record)),
      get: (id) => run(() => byId(APPROVALS, 'id', id)),
      compareAndSet: (id, expectedStatus, patch) =>
        run(() => {
          const params: Row = { id, expectedStatus };
          const sets = assignments(APPROVALS, patch, 'id', params);
          return exec(`UPDATE approvals SET ${sets} WHERE id = @id AND status = @expectedStatus`, params) === 1;
        }),
      list: (filter = {}) =>
        run(() =>
          all(
            `SELECT * FROM approvals WHERE (@status IS NULL OR status = @status) AND (@planId IS NULL OR plan_id = @planId) ORDER BY requested_at DESC, id DESC LIMIT @limit`,
            { status: filter.status ?? null, planId: filter.planId ?? null, limit: limit(filter.limit) },
          ).map((r) => APPROVALS.fromRow(r)),
        ),
    },
    grants: {
      insert: (record) => run(() => mustInsert(GRANTS, record)),
      get: (id) => run(() => byId(GRANTS, 'id', id)),
      update: (record) =>
        run(() => {
          const params = GRANTS.toParams(record);
          const sets = GRANTS.columns.filter((c) => c.field !== 'id').map((c) => `"${c.column}" = @${c.field}`).join(', ');
          if (exec(`UPDATE grants SET ${sets} WHERE id = @id`, params) !== 1) throw new StorageError(`no grant with id ${record.id}`);
        }),
      list: (filter = {}) =>
        run(() =>
          all(`SELECT * FROM grants WHERE (@status IS NULL OR status = @status) ORDER BY created_at, id`, { status: filter.status ?? null }).map((r) =>
            GRANTS.fromRow(r),
          ),
        ),
    },
    plans: {
      insert: (record) => run(() => mustInsert(PLANS, record)),
      get: (id) => run(() => byId(PLANS, 'id', id)),
      compareAndSet: (id, expectedRevision, record) =>
        run(() => {
          const params: Row = { ...PLANS.toParams({ ...record, id }), expectedRevision };
          const sets = PLANS.columns.filter((c) => c.field !== 'id').map((c) => `"${c.column}" = @${c.field}`).join(', ');
          return exec(`UPDATE plans SET ${sets} WHERE id = @id AND revision = @expectedRevision`, params) === 1;
        }),
    },
    policies: {
      put: (record) =>
        run(() => {
          const sets = POLICIES.columns.filter((c) => c.field !== 'id').map((c) => `"${c.column}" = excluded."${c.column}"`).join(', ');
          exec(`${insertSql(POLICIES)} ON CONFLICT (id) DO UPDATE SET ${sets}`, POLICIES.toParams(record));
        }),
      get: (id) => run(() => byId(POLICIES, 'id', id)),
      listByKind: (kind) =>
        run(() => all(`SELECT * FROM policies WHERE kind = @kind ORDER BY created_at, id`, { kind }).map((r) => POLICIES.fromRow(r))),
    },
    audit: {
      append: (record) =>
        run(() => {
          const params = AUDIT.toParams(record);
          delete params.seq;
          const row = one(
            `INSERT INTO audit (${AUDIT_INSERT_COLUMNS.map((c) => `"${c.column}"`).join(', ')}) VALUES (${AUDIT_INSERT_COLUMNS.map((c) => `@${c.field}`).join(', ')}) RETURNING *`,
            params,
          );
          return AUDIT.fromRow(row!);
        }),
      list: (filter = {}) =>
        run(() =>
          all(
            `SELECT * FROM audit WHERE seq > @after AND (@action IS NULL OR action = @action) AND (@capabilityId IS NULL OR capability_id = @capabilityId) AND (@invocationId IS NULL OR invocation_id = @invocationId) ORDER BY seq LIMIT @limit`,
            {
              after: filter.after ?? 0,
              action: filter.action ?? null,
              capabilityId: filter.capabilityId ?? null,
              invocationId: filter.invocationId ?? null,
              limit: limit(filter.limit ?? 100),
            },
          ).map((r) => AUDIT.fromRow(r)),
        ),
    },
    runs: {
      insert: (record) => run(() => mustInsert(RUNS, record)),
      get: (id) => run(() => byId(RUNS, 'id', id)),
      patch: (id, patch, expectLeaseOwner) =>
        run(() => {
          const params: Row = { id };
          const sets = assignments<RunRecord>(RUNS, patch, 'id', params);
          let sql = `UPDATE runs SET ${sets} WHERE id = @id`;
          if (expectLeaseOwner !== undefined) {
            sql += ` AND lease_owner = @expectLeaseOwner`;
            params.expectLeaseOwner = expectLeaseOwner;
          }
          const row = one(`${sql} RETURNING *`, params);
          return row ? RUNS.fromRow(row) : undefined;
        }),
      list: (filter = {}) =>
        run(() => {
          const params: Row = { limit: limit(filter.limit) };
          const where: string[] = [];
          if (filter.status !== undefined) {
            where.push('status = @status');
            params.status = filter.status;
          }
          if (filter.sessionId !== undefined) {
            where.push('session_id = @sessionId');
            params.sessionId = filter.sessionId;
          }
          const clause = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
          return all(`SELECT * FROM runs${clause} ORDER BY created_at DESC, id DESC LIMIT @limit`, params).map((r) => RUNS.fromRow(r));
        }),
      acquireLease: (owner, now, leaseMs) =>
        run(() => {
          const row = one(ACQUIRE_LEASE_SQL, { owner, now, expiresAt: now + leaseMs });
          return row ? RUNS.fromRow(row) : undefined;
        }),
      renewLease: (id, owner, now, leaseMs) =>
        run(() => exec(`UPDATE runs SET lease_expires_at = @expiresAt WHERE id = @id AND lease_owner = @owner`, { id, owner, expiresAt: now + leaseMs }) === 1),
      releaseLease: (id, owner) =>
        run(() => exec(`UPDATE runs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = @id AND lease_owner = @owner`, { id, owner }) === 1),
      totalsBetween: (from, to) =>
        run(() => {
          // PostgreSQL: SUM((usage->>'costUsd')::double precision)
          const row = one(
            `SELECT COUNT(*) AS runs, COALESCE(SUM(json_extract(usage, '$.costUsd')), 0) AS cost FROM runs WHERE created_at >= @from AND created_at < @to`,
            { from, to },
          );
          return { runs: Number(row?.runs ?? 0), costUsd: Number(row?.cost ?? 0) };
        }),
    },
    events: {
      append: (event) =>
        run(() => {
          // Runs inside the write transaction: the per-run MAX and the global sequence are taken under the
          // write lock, so commits happen in global_seq order and a reader paging by global_seq misses nothing.
          // (PostgreSQL: serialize appends, e.g. pg_advisory_xact_lock, for the same guarantee.)
          const row = one(
            `INSERT INTO run_events (run_id, seq, type, at, data)
             VALUES (@runId, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_events WHERE run_id = @runId), @type, @at, @data)
             RETURNING *`,
            { runId: event.runId, type: event.type, at: event.at, data: TableMapping.encode('json', event.data) },
          );
          return RUN_EVENTS.fromRow(row!);
        }),
      listByRun: (runId, options = {}) =>
        run(() =>
          all(`SELECT * FROM run_events WHERE run_id = @runId AND seq > @after ORDER BY seq LIMIT @limit`, {
            runId,
            after: options.afterSeq ?? 0,
            limit: limit(options.limit ?? 100),
          }).map((r) => RUN_EVENTS.fromRow(r)),
        ),
      listAfter: (after = 0, max = 100) =>
        run(() =>
          all(`SELECT * FROM run_events WHERE global_seq > @after ORDER BY global_seq LIMIT @limit`, { after, limit: limit(max) }).map((r) =>
            RUN_EVENTS.fromRow(r),
          ),
        ),
    },
    messages: {
      append: (runId, message, at) =>
        run(() => {
          const row = one(
            `INSERT INTO run_messages (run_id, seq, message, at)
             VALUES (@runId, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_messages WHERE run_id = @runId), @message, @at)
             RETURNING *`,
            { runId, message: TableMapping.encode('json', message), at },
          );
          return RUN_MESSAGES.fromRow(row!);
        }),
      list: (runId) => run(() => all(`SELECT * FROM run_messages WHERE run_id = @runId ORDER BY seq`, { runId }).map((r) => RUN_MESSAGES.fromRow(r))),
    },
    inbox: {
      enqueue: (record) => run(() => mustInsert(INBOX, record)),
      listQueued: (runId) =>
        run(() =>
          all(`SELECT * FROM inbox WHERE run_id = @runId AND status = 'queued' ORDER BY created_at, id`, { runId }).map((r) => INBOX.fromRow(r)),
        ),
      markApplied: (ids, at) =>
        run(() =>
          exec(`UPDATE inbox SET status = 'applied', applied_at = @at WHERE id IN (SELECT value FROM json_each(@ids)) AND status = 'queued'`, {
            ids: JSON.stringify([...ids]),
            at,
          }),
        ),
    },
    decisions: {
      insert: (record) => run(() => exec(`${insertSql(DECISIONS)} ON CONFLICT (dedupe_key) DO NOTHING`, DECISIONS.toParams(record)) === 1),
      list: (filter = {}) =>
        run(() =>
          all(
            `SELECT * FROM decisions WHERE (@status IS NULL OR status = @status) AND (@subjectId IS NULL OR subject_id = @subjectId) ORDER BY created_at DESC, id DESC`,
            { status: filter.status ?? null, subjectId: filter.subjectId ?? null },
          ).map((r) => DECISIONS.fromRow(r)),
        ),
    },
    settings: {
      get: (key) =>
        run(() => {
          const row = one(`SELECT value FROM settings WHERE key = @key`, { key });
          return row ? (JSON.parse(row.value as string) as JsonValue) : undefined;
        }),
      set: (key, value) =>
        run(() => {
          exec(`INSERT INTO settings (key, value) VALUES (@key, @value) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, {
            key,
            value: JSON.stringify(value ?? null),
          });
        }),
    },
  };
  return {
    session,
    end: () => {
      active = false;
    },
  };
}

/** Repository methods that only read (run without a write transaction when called on the adapter). @internal */
export const READ_METHODS: ReadonlySet<string> = new Set([
  'get',
  'findByCall',
  'listByState',
  'usageForGrant',
  'list',
  'listByKind',
  'totalsBetween',
  'listByRun',
  'listAfter',
  'listQueued',
]);
