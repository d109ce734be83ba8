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
} from '../../core/records';
import type { DecisionRecord, InboxRecord, RunEventRecord, RunMessageRecord, RunRecord } from '../../core/run-records';
import type { StorageSession } from '../../ports/storage-adapter';
import { toStorageError } from './sqlite-errors';

type ColumnKind = 'value' | 'json' | 'jsonOrNull' | 'bool';
type Row = Record<string, unknown>;

/** Field ↔ column mapping of one table, with its fixed SQL built once. */
class TableMapping<T extends object> {
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
    this.columnList = this.columns.map((c) => `"${c.column}"`).join(', ');
    this.paramList = this.columns.map((c) => `@${c.field}`).join(', ');
    this.insertSql = `INSERT INTO ${table} (${this.columnList}) VALUES (${this.paramList})`;
    this.#plain = this.columns.every((c) => c.kind === 'value');
  }

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
    if (kind === 'jsonOrNull') return value === null || value === undefined ? null : JSON.stringify(value);
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

/** The audit columns but `seq` (assigned by SQLite): what an insert binds. */
const AUDIT_INSERT = new TableMapping<Omit<AuditRecord, 'seq'>>('audit', {
  id: 'value',
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
const AUDIT_INSERT_SQL = AUDIT_INSERT.insertSql;
const LEDGER_INSERT_SQL = `${LEDGER.insertSql} ON CONFLICT DO NOTHING`;
const LEDGER_BY_CALL_SQL = `SELECT * FROM ledger WHERE scope_id = @scopeId AND call_id = @callId`;
const USAGE_FOR_GRANT_SQL = `SELECT COUNT(*) AS invocations, COALESCE(SUM(bytes), 0) AS bytes FROM ledger WHERE grant_id = @grantId AND claimed_at >= @from AND claimed_at < @to`;
const DELETE_SETTLED_SQL = `DELETE FROM ledger WHERE state IN (SELECT value FROM json_each(@states)) AND state NOT IN ('running', 'unknown') AND settled_at IS NOT NULL AND settled_at < @settledBefore`;
const GRANT_USAGE_GET_SQL = `SELECT invocations, bytes FROM grant_usage WHERE grant_id = @grantId AND day = @day`;
const GRANT_USAGE_ADD_SQL = `INSERT INTO grant_usage (grant_id, day, invocations, bytes) VALUES (@grantId, @day, @invocations, @bytes)
  ON CONFLICT (grant_id, day) DO UPDATE SET invocations = grant_usage.invocations + excluded.invocations, bytes = grant_usage.bytes + excluded.bytes
  RETURNING invocations, bytes`;
const APPROVALS_LIST_SQL = `SELECT * FROM approvals WHERE (@status IS NULL OR status = @status) AND (@planId IS NULL OR plan_id = @planId) ORDER BY requested_at DESC, id DESC LIMIT @limit`;
const GRANTS_UPDATE_SQL = `UPDATE grants SET ${GRANTS.columns.filter((c) => c.field !== 'id').map((c) => `"${c.column}" = @${c.field}`).join(', ')} WHERE id = @id`;
const GRANTS_LIST_SQL = `SELECT * FROM grants WHERE (@status IS NULL OR status = @status) ORDER BY created_at, id`;
const PLANS_CAS_SQL = `UPDATE plans SET ${PLANS.columns.filter((c) => c.field !== 'id').map((c) => `"${c.column}" = @${c.field}`).join(', ')} WHERE id = @id AND revision = @expectedRevision`;
const POLICIES_PUT_SQL = `${POLICIES.insertSql} ON CONFLICT (id) DO UPDATE SET ${POLICIES.columns.filter((c) => c.field !== 'id').map((c) => `"${c.column}" = excluded."${c.column}"`).join(', ')}`;
const POLICIES_BY_KIND_SQL = `SELECT * FROM policies WHERE kind = @kind ORDER BY created_at, id`;
const AUDIT_LIST_SQL = `SELECT * FROM audit WHERE seq > @after AND (@action IS NULL OR action = @action) AND (@capabilityId IS NULL OR capability_id = @capabilityId) AND (@invocationId IS NULL OR invocation_id = @invocationId) ORDER BY seq LIMIT @limit`;
const RENEW_LEASE_SQL = `UPDATE runs SET lease_expires_at = @expiresAt WHERE id = @id AND lease_owner = @owner`;
const RELEASE_LEASE_SQL = `UPDATE runs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = @id AND lease_owner = @owner`;
// PostgreSQL: SUM((usage->>'costUsd')::double precision)
const RUN_TOTALS_SQL = `SELECT COUNT(*) AS runs, COALESCE(SUM(json_extract(usage, '$.costUsd')), 0) AS cost FROM runs WHERE created_at >= @from AND created_at < @to`;
// Runs inside the write transaction: the per-run MAX and the global sequence are taken under the write lock, so
// commits happen in global_seq order and a reader paging by global_seq misses nothing.
// (PostgreSQL: serialize appends, e.g. pg_advisory_xact_lock, for the same guarantee.)
const EVENT_APPEND_SQL = `INSERT INTO run_events (run_id, seq, type, at, data)
  VALUES (@runId, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_events WHERE run_id = @runId), @type, @at, @data)
  RETURNING *`;
const EVENTS_BY_RUN_SQL = `SELECT * FROM run_events WHERE run_id = @runId AND seq > @after ORDER BY seq LIMIT @limit`;
const EVENTS_AFTER_SQL = `SELECT * FROM run_events WHERE global_seq > @after ORDER BY global_seq LIMIT @limit`;
const MESSAGE_APPEND_SQL = `INSERT INTO run_messages (run_id, seq, message, at)
  VALUES (@runId, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_messages WHERE run_id = @runId), @message, @at)
  RETURNING *`;
const MESSAGES_LIST_SQL = `SELECT * FROM run_messages WHERE run_id = @runId ORDER BY seq`;
const INBOX_QUEUED_SQL = `SELECT * FROM inbox WHERE run_id = @runId AND status = 'queued' ORDER BY created_at, id`;
const INBOX_APPLIED_SQL = `UPDATE inbox SET status = 'applied', applied_at = @at WHERE id IN (SELECT value FROM json_each(@ids)) AND status = 'queued'`;
const DECISIONS_INSERT_SQL = `${DECISIONS.insertSql} ON CONFLICT (dedupe_key) DO NOTHING`;
const DECISIONS_LIST_SQL = `SELECT * FROM decisions WHERE (@status IS NULL OR status = @status) AND (@subjectId IS NULL OR subject_id = @subjectId) ORDER BY created_at DESC, id DESC`;
const SETTINGS_GET_SQL = `SELECT value FROM settings WHERE key = @key`;
const SETTINGS_SET_SQL = `INSERT INTO settings (key, value) VALUES (@key, @value) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;

/**
 * `UPDATE … SET` assignments for the defined fields of `patch` (skipping `skip`), and the cache key of the
 * statement they make: the same fields give the same SQL text, so it is prepared once.
 */
function assignments<T extends object>(mapping: TableMapping<T>, patch: Partial<T>, skip: string, params: Row): { sets: string; signature: string } {
  const fields: string[] = [];
  for (const field of Object.keys(patch)) {
    const value = (patch as Row)[field];
    const col = mapping.column(field);
    if (field === skip || value === undefined || !col) continue;
    fields.push(field);
    params[`v_${field}`] = TableMapping.encode(col.kind, value);
  }
  fields.sort();
  const signature = fields.join(',');
  if (fields.length === 0) return { sets: `"${skip}" = "${skip}"`, signature };
  return { sets: fields.map((f) => `"${mapping.column(f)!.column}" = @v_${f}`).join(', '), signature };
}

/** A repository whose methods return their result directly. @internal */
export type SyncRepository<R> = { [K in keyof R]: R[K] extends (...args: infer A) => Promise<infer T> ? (...args: A) => T : never };
/** Every repository of a session, synchronous (better-sqlite3 is). @internal */
export type SyncSession = { [K in keyof StorageSession]: SyncRepository<StorageSession[K]> };

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
    this.repos = this.#create();
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

  /** Inserts one audit row (outside `repos`, for batched rows); returns its `seq`. */
  insertAudit(record: AuditRecord): number {
    return Number(this.stmt(AUDIT_INSERT_SQL).run(AUDIT_INSERT.toParams(record)).lastInsertRowid);
  }

  #create(): SyncSession {
    const all = (sql: string, params: unknown): Row[] => this.stmt(sql).all(params) as Row[];
    const one = (sql: string, params: unknown): Row | undefined => this.stmt(sql).get(params) as Row | undefined;
    const exec = (sql: string, params: unknown): number => this.stmt(sql).run(params).changes;
    const byId = <T extends object>(m: TableMapping<T>, pk: string, id: string): T | undefined => {
      const row = one(m.selectBy(pk), { id });
      return row ? m.fromRow(row) : undefined;
    };
    const mustInsert = <T extends object>(m: TableMapping<T>, record: T): void => {
      exec(m.insertSql, m.toParams(record));
    };
    const states = (list: readonly LedgerState[]) => JSON.stringify([...list]);
    const limit = (n: number | undefined) => (n === undefined ? -1 : Math.max(0, Math.floor(n)));
    /** SQL text of a compare-and-set per (table, patched fields, extra condition). */
    const casSql = new Map<string, string>();
    const cas = (key: string, build: () => string): string => {
      let sql = casSql.get(key);
      if (sql === undefined) casSql.set(key, (sql = build()));
      return sql;
    };

    return {
      ledger: {
        get: (key) => byId(LEDGER, 'key', key),
        findByCall: (scopeId, callId) => {
          const row = one(LEDGER_BY_CALL_SQL, { scopeId, callId });
          return row ? LEDGER.fromRow(row) : undefined;
        },
        insert: (entry) => exec(LEDGER_INSERT_SQL, LEDGER.toParams(entry)) === 1,
        compareAndSet: (key, expectedToken, patch, expectedStates) => {
          const params: Row = { key, expectedToken };
          const { sets, signature } = assignments(LEDGER, patch, 'key', params);
          if (expectedStates) params.expectedStates = states(expectedStates);
          const sql = cas(`ledger|${signature}|${expectedStates ? 's' : ''}`, () => {
            const where = `key = @key AND token = @expectedToken${expectedStates ? ` AND state IN (SELECT value FROM json_each(@expectedStates))` : ''}`;
            return `UPDATE ledger SET ${sets} WHERE ${where}`;
          });
          return exec(sql, params) === 1;
        },
        listByState: (list, options = {}) => {
          const params: Row = { states: states(list), limit: limit(options.limit) };
          const before = options.claimedBefore !== undefined;
          if (before) params.claimedBefore = options.claimedBefore;
          const where = `state IN (SELECT value FROM json_each(@states))${before ? ` AND claimed_at < @claimedBefore` : ''}`;
          return all(`SELECT * FROM ledger WHERE ${where} ORDER BY claimed_at, key LIMIT @limit`, params).map((r) => LEDGER.fromRow(r));
        },
        usageForGrant: (grantId, from, to) => {
          const row = one(USAGE_FOR_GRANT_SQL, { grantId, from, to });
          return { invocations: Number(row?.invocations ?? 0), bytes: Number(row?.bytes ?? 0) };
        },
        deleteSettledBefore: (settledBefore, list) => exec(DELETE_SETTLED_SQL, { states: states(list), settledBefore }),
      },
      approvals: {
        insert: (record) => mustInsert(APPROVALS, record),
        get: (id) => byId(APPROVALS, 'id', id),
        compareAndSet: (id, expectedStatus, patch) => {
          const params: Row = { id, expectedStatus };
          const { sets, signature } = assignments(APPROVALS, patch, 'id', params);
          return exec(cas(`approvals|${signature}`, () => `UPDATE approvals SET ${sets} WHERE id = @id AND status = @expectedStatus`), params) === 1;
        },
        list: (filter = {}) =>
          all(APPROVALS_LIST_SQL, { status: filter.status ?? null, planId: filter.planId ?? null, limit: limit(filter.limit) }).map((r) => APPROVALS.fromRow(r)),
      },
      grants: {
        insert: (record) => mustInsert(GRANTS, record),
        get: (id) => byId(GRANTS, 'id', id),
        update: (record) => {
          if (exec(GRANTS_UPDATE_SQL, GRANTS.toParams(record)) !== 1) throw new StorageError(`no grant with id ${record.id}`);
        },
        list: (filter = {}) => all(GRANTS_LIST_SQL, { status: filter.status ?? null }).map((r) => GRANTS.fromRow(r)),
      },
      plans: {
        insert: (record) => mustInsert(PLANS, record),
        get: (id) => byId(PLANS, 'id', id),
        compareAndSet: (id, expectedRevision, record) => exec(PLANS_CAS_SQL, { ...PLANS.toParams({ ...record, id }), expectedRevision }) === 1,
      },
      policies: {
        put: (record) => {
          exec(POLICIES_PUT_SQL, POLICIES.toParams(record));
        },
        get: (id) => byId(POLICIES, 'id', id),
        listByKind: (kind) => all(POLICIES_BY_KIND_SQL, { kind }).map((r) => POLICIES.fromRow(r)),
      },
      audit: {
        // A plain INSERT: the stored row is the record with its new seq (no RETURNING, nothing to decode).
        append: (record) => ({ ...record, seq: this.insertAudit(record) }),
        list: (filter = {}) =>
          all(AUDIT_LIST_SQL, {
            after: filter.after ?? 0,
            action: filter.action ?? null,
            capabilityId: filter.capabilityId ?? null,
            invocationId: filter.invocationId ?? null,
            limit: limit(filter.limit ?? 100),
          }).map((r) => AUDIT.fromRow(r)),
      },
      runs: {
        insert: (record) => mustInsert(RUNS, record),
        get: (id) => byId(RUNS, 'id', id),
        patch: (id, patch, expectLeaseOwner) => {
          const params: Row = { id };
          const { sets, signature } = assignments<RunRecord>(RUNS, patch, 'id', params);
          const owner = expectLeaseOwner !== undefined;
          if (owner) params.expectLeaseOwner = expectLeaseOwner;
          const sql = cas(`runs|${signature}|${owner ? 'o' : ''}`, () => `UPDATE runs SET ${sets} WHERE id = @id${owner ? ` AND lease_owner = @expectLeaseOwner` : ''} RETURNING *`);
          const row = one(sql, params);
          return row ? RUNS.fromRow(row) : undefined;
        },
        list: (filter = {}) => {
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
        },
        acquireLease: (owner, now, leaseMs) => {
          const row = one(ACQUIRE_LEASE_SQL, { owner, now, expiresAt: now + leaseMs });
          return row ? RUNS.fromRow(row) : undefined;
        },
        renewLease: (id, owner, now, leaseMs) => exec(RENEW_LEASE_SQL, { id, owner, expiresAt: now + leaseMs }) === 1,
        releaseLease: (id, owner) => exec(RELEASE_LEASE_SQL, { id, owner }) === 1,
        totalsBetween: (from, to) => {
          const row = one(RUN_TOTALS_SQL, { from, to });
          return { runs: Number(row?.runs ?? 0), costUsd: Number(row?.cost ?? 0) };
        },
      },
      events: {
        append: (event) => {
          const row = one(EVENT_APPEND_SQL, { runId: event.runId, type: event.type, at: event.at, data: TableMapping.encode('json', event.data) });
          return RUN_EVENTS.fromRow(row!);
        },
        listByRun: (runId, options = {}) =>
          all(EVENTS_BY_RUN_SQL, { runId, after: options.afterSeq ?? 0, limit: limit(options.limit ?? 100) }).map((r) => RUN_EVENTS.fromRow(r)),
        listAfter: (after = 0, max = 100) => all(EVENTS_AFTER_SQL, { after, limit: limit(max) }).map((r) => RUN_EVENTS.fromRow(r)),
      },
      messages: {
        append: (runId, message, at) => {
          const row = one(MESSAGE_APPEND_SQL, { runId, message: TableMapping.encode('json', message), at });
          return RUN_MESSAGES.fromRow(row!);
        },
        list: (runId) => all(MESSAGES_LIST_SQL, { runId }).map((r) => RUN_MESSAGES.fromRow(r)),
      },
      inbox: {
        enqueue: (record) => mustInsert(INBOX, record),
        listQueued: (runId) => all(INBOX_QUEUED_SQL, { runId }).map((r) => INBOX.fromRow(r)),
        markApplied: (ids, at) => exec(INBOX_APPLIED_SQL, { ids: JSON.stringify([...ids]), at }),
      },
      decisions: {
        insert: (record) => exec(DECISIONS_INSERT_SQL, DECISIONS.toParams(record)) === 1,
        list: (filter = {}) =>
          all(DECISIONS_LIST_SQL, { status: filter.status ?? null, subjectId: filter.subjectId ?? null }).map((r) => DECISIONS.fromRow(r)),
      },
      settings: {
        get: (key) => {
          const row = one(SETTINGS_GET_SQL, { key });
          return row ? (JSON.parse(row.value as string) as JsonValue) : undefined;
        },
        set: (key, value) => {
          exec(SETTINGS_SET_SQL, { key, value: JSON.stringify(value ?? null) });
        },
      },
      grantUsage: {
        get: (grantId, day) => {
          const row = one(GRANT_USAGE_GET_SQL, { grantId, day });
          return { grantId, day, invocations: Number(row?.invocations ?? 0), bytes: Number(row?.bytes ?? 0) };
        },
        add: (grantId, day, invocations, bytes) => {
          const row = one(GRANT_USAGE_ADD_SQL, { grantId, day, invocations, bytes })!;
          return { grantId, day, invocations: Number(row.invocations), bytes: Number(row.bytes) };
        },
      },
    };
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
      const sync = this.core.repos[name] as unknown as Record<string, (...args: unknown[]) => unknown>;
      const out: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
      for (const method of Object.keys(sync)) {
        const fn = sync[method]!;
        out[method] = (...args) => {
          if (!this.active) return Promise.reject(new StorageError('a storage session was used after its transaction ended'));
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
