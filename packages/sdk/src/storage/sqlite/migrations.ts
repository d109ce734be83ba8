/**
 * Versioned schema migrations of the SQLite store.
 *
 * @remarks
 * Each migration runs in its own `BEGIN IMMEDIATE` transaction together with its
 * `schema_migrations` row and the `PRAGMA user_version` bump, so a crash or a concurrent migrator
 * in another process leaves the store at either the old or the new version, never in between.
 *
 * The DDL is written so a PostgreSQL implementation maps it one-to-one: `TEXT` → `text`,
 * `INTEGER` → `bigint` (times in ms), JSON columns `TEXT` → `jsonb`/`text`,
 * `INTEGER PRIMARY KEY AUTOINCREMENT` → `bigint GENERATED ALWAYS AS IDENTITY`; the same unique
 * and secondary indexes; no foreign keys (records may reference ids kept by the host).
 * @packageDocumentation
 */
import type { Database } from 'better-sqlite3';
import { StorageSchemaTooNewError } from '../errors';
import { AUDIT_GENESIS_HASH, linkAuditRows } from '../../core/audit-chain';
import { AUDIT_SEAL_PAGE_ROWS, auditPageSql, auditRowOf } from '../sql/audit-rows';
import type { SqlMigration } from '../sql/migration';
import type { Row } from '../sql/table-mapping';
import { STORAGE_SCHEMA_VERSION } from '../../ports/storage-adapter';

/** One schema step of this store (its code step runs on the connection, inside the migration's transaction). @internal */
export type SqliteMigration = SqlMigration<(db: Database) => void>;

/**
 * Seals the audit rows written before schema 10 into one chain, in `seq` order, a page at a time (docs/audit.md).
 * @internal
 */
export function sealSqliteAudit(db: Database): void {
  const select = db.prepare(auditPageSql('audit', () => '?', false));
  const update = db.prepare('UPDATE audit SET prev_hash = ?, hash = ? WHERE seq = ?');
  let head = AUDIT_GENESIS_HASH;
  for (let after = 0; ; ) {
    const page = (select.all(after, AUDIT_SEAL_PAGE_ROWS) as Row[]).map(auditRowOf);
    if (page.length === 0) return;
    const linked = linkAuditRows(head, page);
    for (const row of linked.rows) update.run(row.prevHash, row.hash, row.seq);
    head = linked.head;
    after = page[page.length - 1]!.seq;
  }
}

/** The columns of the runs table at version 10, in their order: what migration 11 copies. */
const RUN_COLUMNS_V11 = [
  'id, goal, mode, status, step, started_by, session_id, capability_allowlist, budgets, usage, checklist, report',
  'final_text, error, abort_requested, abort_reason, wake_requested, lease_owner, lease_expires_at, not_before',
  'created_at, updated_at, started_at, ended_at, origin, parent_run_id, depth, runtime_state, pruned_at',
].join(', ');

/** Every migration, oldest first. The last one's version equals {@link STORAGE_SCHEMA_VERSION}. @internal */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'initial',
    statements: [
      `CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at INTEGER NOT NULL
      )`,
      `CREATE TABLE ledger (
        key TEXT PRIMARY KEY,
        capability_id TEXT NOT NULL,
        capability_version INTEGER NOT NULL,
        scope_id TEXT NOT NULL,
        call_id TEXT,
        args_hash TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('running', 'succeeded', 'failed', 'pending', 'unknown')),
        token TEXT NOT NULL,
        actor TEXT NOT NULL,
        invocation_id TEXT NOT NULL,
        run_id TEXT,
        task_id TEXT,
        approval_id TEXT,
        grant_id TEXT,
        bytes INTEGER NOT NULL,
        output TEXT,
        error TEXT,
        input_summary TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        claimed_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        settled_at INTEGER
      )`,
      `CREATE UNIQUE INDEX ledger_scope_call ON ledger (scope_id, call_id) WHERE call_id IS NOT NULL`,
      `CREATE INDEX ledger_grant_claimed ON ledger (grant_id, claimed_at, bytes) WHERE grant_id IS NOT NULL`,
      `CREATE INDEX ledger_state_claimed ON ledger (state, claimed_at)`,
      `CREATE INDEX ledger_state_settled ON ledger (state, settled_at)`,
      `CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        plan_type TEXT NOT NULL,
        plan_id TEXT NOT NULL,
        payload_hash TEXT NOT NULL,
        revision INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('requested', 'approved', 'rejected', 'revoked', 'consumed')),
        requested_by TEXT NOT NULL,
        reason TEXT,
        requested_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        decided_by TEXT,
        decided_at INTEGER,
        consumed_by TEXT,
        consumed_at INTEGER
      )`,
      `CREATE INDEX approvals_status ON approvals (status, requested_at)`,
      `CREATE INDEX approvals_plan ON approvals (plan_id, requested_at)`,
      `CREATE TABLE grants (
        id TEXT PRIMARY KEY,
        action TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'revoked')),
        expires_at INTEGER,
        policy_revision_id TEXT,
        scope TEXT NOT NULL,
        budget TEXT NOT NULL,
        reason TEXT,
        created_by TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`,
      `CREATE INDEX grants_status ON grants (status, created_at)`,
      `CREATE TABLE plans (
        id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        payload TEXT NOT NULL,
        payload_hash TEXT NOT NULL,
        revision INTEGER NOT NULL,
        media_entity_id TEXT,
        media_kind TEXT,
        bytes INTEGER NOT NULL,
        created_by TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`,
      `CREATE TABLE policies (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('draft', 'published', 'retired')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`,
      `CREATE INDEX policies_kind ON policies (kind, created_at)`,
      `CREATE TABLE audit (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        at INTEGER NOT NULL,
        action TEXT NOT NULL,
        actor TEXT NOT NULL,
        capability_id TEXT NOT NULL,
        invocation_id TEXT NOT NULL,
        run_id TEXT,
        task_id TEXT,
        outcome TEXT NOT NULL,
        approval_id TEXT,
        grant_id TEXT,
        idempotency_key TEXT,
        input_summary TEXT NOT NULL,
        reason TEXT
      )`,
      `CREATE INDEX audit_capability ON audit (capability_id, seq)`,
      `CREATE INDEX audit_invocation ON audit (invocation_id, seq)`,
      `CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      )`,
    ],
  },
  {
    version: 2,
    name: 'runs',
    statements: [
      // Booleans are INTEGER 0/1 (PostgreSQL: boolean); JSON columns TEXT (PostgreSQL: jsonb).
      `CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        goal TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('execute', 'plan_only')),
        status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled', 'budget_exceeded')),
        step TEXT NOT NULL CHECK (step IN ('drive', 'goal_settled', 'finalize')),
        started_by TEXT NOT NULL,
        session_id TEXT,
        capability_allowlist TEXT,
        budgets TEXT NOT NULL,
        usage TEXT NOT NULL,
        plan TEXT,
        report TEXT,
        final_text TEXT,
        error TEXT,
        abort_requested INTEGER NOT NULL CHECK (abort_requested IN (0, 1)),
        abort_reason TEXT,
        wake_requested INTEGER NOT NULL CHECK (wake_requested IN (0, 1)),
        lease_owner TEXT,
        lease_expires_at INTEGER,
        not_before INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        started_at INTEGER,
        ended_at INTEGER
      )`,
      // acquireLease scans non-terminal statuses oldest first; list by status newest first.
      `CREATE INDEX runs_status_created ON runs (status, created_at, id)`,
      `CREATE INDEX runs_session_created ON runs (session_id, created_at, id) WHERE session_id IS NOT NULL`,
      // totalsBetween (per-day budgets) and the unfiltered list.
      `CREATE INDEX runs_created ON runs (created_at, id)`,
      // AUTOINCREMENT: a committed global sequence is never reused, even after the newest rows were deleted. (A
      // rolled-back append's number may be handed out again: it was never visible outside its transaction.)
      `CREATE TABLE run_events (
        global_seq INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        at INTEGER NOT NULL,
        data TEXT NOT NULL,
        UNIQUE (run_id, seq)
      )`,
      `CREATE TABLE run_messages (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        message TEXT NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (run_id, seq)
      )`,
      `CREATE TABLE inbox (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        text TEXT NOT NULL,
        actor TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'applied')),
        created_at INTEGER NOT NULL,
        applied_at INTEGER
      )`,
      `CREATE INDEX inbox_run_status ON inbox (run_id, status, created_at, id)`,
      `CREATE TABLE decisions (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        dedupe_key TEXT NOT NULL UNIQUE,
        subject_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
        reason TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        resolved_at INTEGER
      )`,
      `CREATE INDEX decisions_status_created ON decisions (status, created_at)`,
      `CREATE INDEX decisions_subject_created ON decisions (subject_id, created_at)`,
    ],
  },
  {
    version: 3,
    name: 'subagents and runtime state',
    statements: [
      `ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT 'interactive' CHECK (origin IN ('interactive', 'background', 'channel'))`,
      `ALTER TABLE runs ADD COLUMN parent_run_id TEXT`,
      `ALTER TABLE runs ADD COLUMN depth INTEGER NOT NULL DEFAULT 0`,
      `ALTER TABLE runs ADD COLUMN runtime_state TEXT`,
      `CREATE INDEX runs_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL`,
    ],
  },
  {
    version: 4,
    name: 'grant usage counters',
    statements: [
      // Per-grant, per-UTC-day counters charged by every claim a grant authorizes, in the claim's transaction:
      // the budget check reads one row instead of counting the day's ledger entries. `day` is the start of the UTC
      // day in ms. (PostgreSQL: the same table; `day` bigint.)
      `CREATE TABLE grant_usage (
        grant_id TEXT NOT NULL,
        day INTEGER NOT NULL,
        invocations INTEGER NOT NULL,
        bytes INTEGER NOT NULL,
        PRIMARY KEY (grant_id, day)
      )`,
      // Backfill from the ledger, every day at once (no clock needed): each entry authorized by a grant counts
      // once, on the day of its latest claim — what the budget check counted before this version. Integer
      // division truncates in SQLite and PostgreSQL alike (claimed_at is never negative).
      `INSERT INTO grant_usage (grant_id, day, invocations, bytes)
        SELECT grant_id, (claimed_at / 86400000) * 86400000, COUNT(*), COALESCE(SUM(bytes), 0)
        FROM ledger WHERE grant_id IS NOT NULL
        GROUP BY grant_id, claimed_at / 86400000`,
    ],
  },
  {
    version: 5,
    name: 'run checklist',
    statements: [
      // The run's step list written by the update_plan tool is its checklist ("plan" names the reviewed artifact an
      // approval binds to). SQLite ≥ 3.25 and PostgreSQL both rename a column in place.
      `ALTER TABLE runs RENAME COLUMN plan TO checklist`,
    ],
  },
  {
    version: 6,
    name: 'decisions as records people resolve',
    // SQLite cannot change a CHECK constraint in place: the table is rebuilt, rows copied (decisions stored
    // before this version were raised by the run they are about).
    statements: [
      `CREATE TABLE decisions_v6 (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        dedupe_key TEXT NOT NULL UNIQUE,
        subject_type TEXT NOT NULL,
        subject_id TEXT NOT NULL,
        root_cause TEXT,
        status TEXT NOT NULL CHECK (status IN ('open', 'awaiting_user', 'resolved', 'dismissed')),
        reason TEXT NOT NULL,
        evidence TEXT NOT NULL,
        options TEXT NOT NULL,
        raised_by TEXT NOT NULL,
        resolved_by TEXT,
        resolution TEXT,
        revision INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        resolved_at INTEGER
      )`,
      `INSERT INTO decisions_v6 SELECT id, kind, dedupe_key, 'run', subject_id, NULL, status, reason, data, '[]',
        'agent:' || subject_id, NULL, NULL, 1, created_at, COALESCE(resolved_at, created_at), resolved_at FROM decisions`,
      `DROP TABLE decisions`,
      `ALTER TABLE decisions_v6 RENAME TO decisions`,
      `CREATE INDEX decisions_status_created ON decisions (status, created_at)`,
      `CREATE INDEX decisions_subject_created ON decisions (subject_id, created_at)`,
      `CREATE INDEX decisions_root_cause ON decisions (root_cause, created_at) WHERE root_cause IS NOT NULL`,
    ],
  },
  {
    version: 7,
    name: 'budget counters and reservations',
    // Spending per subject (an actor, or the household total) and period (UTC day, UTC month), with the
    // reservations model calls make against it (docs/budgets.md). Costs are USD as REAL.
    statements: [
      `CREATE TABLE budget_usage (
        subject TEXT NOT NULL,
        period TEXT NOT NULL CHECK (period IN ('day', 'month')),
        start INTEGER NOT NULL,
        runs INTEGER NOT NULL,
        model_calls INTEGER NOT NULL,
        tokens INTEGER NOT NULL,
        cost_usd REAL NOT NULL,
        PRIMARY KEY (subject, period, start)
      )`,
      `CREATE TABLE budget_reservations (
        key TEXT PRIMARY KEY,
        subject TEXT NOT NULL,
        run_id TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('reserved', 'settled', 'released')),
        day INTEGER NOT NULL,
        month INTEGER NOT NULL,
        runs INTEGER NOT NULL,
        model_calls INTEGER NOT NULL,
        tokens INTEGER NOT NULL,
        cost_usd REAL NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`,
      `CREATE INDEX budget_reservations_run ON budget_reservations (run_id, created_at)`,
      `CREATE INDEX budget_reservations_state ON budget_reservations (state, created_at)`,
    ],
  },
  {
    version: 8,
    name: 'ledger entries by run',
    // The verified goal report reads every entry a run claimed (docs/architecture.md#the-goal-report).
    statements: [`CREATE INDEX ledger_run ON ledger (run_id, claimed_at) WHERE run_id IS NOT NULL`],
  },
  {
    version: 9,
    name: 'drop indexes no query uses',
    // Every index is rewritten by each insert (and each update of its columns) in the commit that makes it, so
    // an index no statement's plan uses costs pages per run for nothing (`EXPLAIN QUERY PLAN` of every
    // repository statement). The audit and reservation lists filter with `(@x IS NULL OR col = @x)`, which no
    // index serves (audit pages by `seq`, its primary key); nothing reads runs by parent; the ledger's
    // `listByState` (recovery sweeps: `running`, `unknown`) is served by the state prefix of
    // `ledger_state_settled`, which also serves the retention delete. (PostgreSQL: the same drops.)
    statements: [
      `DROP INDEX audit_capability`,
      `DROP INDEX audit_invocation`,
      `DROP INDEX budget_reservations_run`,
      `DROP INDEX budget_reservations_state`,
      `DROP INDEX runs_parent`,
      `DROP INDEX ledger_state_claimed`,
    ],
  },
  {
    version: 10,
    name: 'nas operations',
    // The tamper-evident audit chain (docs/audit.md): each row's hash over its canonical content and the previous
    // row's hash; rows written before this version are sealed by the step below, in this migration's transaction. A run whose
    // events and messages retention removed keeps its row (goal, status, report) with `pruned_at` set. Leases by
    // name let one process of many do host-wide work (scheduled maintenance).
    statements: [
      `ALTER TABLE audit ADD COLUMN prev_hash TEXT`,
      `ALTER TABLE audit ADD COLUMN hash TEXT`,
      `ALTER TABLE runs ADD COLUMN pruned_at INTEGER`,
      `CREATE TABLE leases (
        name TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      )`,
      // Retention finds terminal runs by end time, oldest first, and skips the ones already pruned.
      `CREATE INDEX runs_ended ON runs (ended_at, id) WHERE ended_at IS NOT NULL AND pruned_at IS NULL`,
      // Retention: pruned runs by end time (run reports), child runs by parent (a parent stays while a child runs),
      // a run's reservations, plans by age, and counters by period.
      `CREATE INDEX runs_pruned ON runs (ended_at, id) WHERE pruned_at IS NOT NULL`,
      `CREATE INDEX runs_by_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL`,
      `CREATE INDEX budget_reservations_by_run ON budget_reservations (run_id)`,
      `CREATE INDEX plans_updated ON plans (updated_at, id)`,
      `CREATE INDEX grant_usage_day ON grant_usage (day)`,
      `CREATE INDEX budget_usage_start ON budget_usage (start)`,
    ],
    step: sealSqliteAudit,
  },
  {
    version: 11,
    name: 'schedules',
    // Schedules and the claims of their ticks (docs/schedules.md): a tick record's primary key (schedule, tick) is
    // the claim, stored in the transaction that creates the tick's run. Runs gain the origin `schedule`: SQLite
    // cannot change a CHECK constraint in place, so the runs table is rebuilt the way SQLite documents
    // (https://www.sqlite.org/lang_altertable.html#otheralter: create the new table, copy, drop, rename, recreate
    // the indexes; runs has no triggers or views, and no foreign keys point at it), its columns in the same order.
    statements: [
      `CREATE TABLE runs_v11 (
        id TEXT PRIMARY KEY,
        goal TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('execute', 'plan_only')),
        status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled', 'budget_exceeded')),
        step TEXT NOT NULL CHECK (step IN ('drive', 'goal_settled', 'finalize')),
        started_by TEXT NOT NULL,
        session_id TEXT,
        capability_allowlist TEXT,
        budgets TEXT NOT NULL,
        usage TEXT NOT NULL,
        checklist TEXT,
        report TEXT,
        final_text TEXT,
        error TEXT,
        abort_requested INTEGER NOT NULL CHECK (abort_requested IN (0, 1)),
        abort_reason TEXT,
        wake_requested INTEGER NOT NULL CHECK (wake_requested IN (0, 1)),
        lease_owner TEXT,
        lease_expires_at INTEGER,
        not_before INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        started_at INTEGER,
        ended_at INTEGER,
        origin TEXT NOT NULL DEFAULT 'interactive' CHECK (origin IN ('interactive', 'background', 'channel', 'schedule')),
        parent_run_id TEXT,
        depth INTEGER NOT NULL DEFAULT 0,
        runtime_state TEXT,
        pruned_at INTEGER
      )`,
      `INSERT INTO runs_v11 (${RUN_COLUMNS_V11}) SELECT ${RUN_COLUMNS_V11} FROM runs`,
      `DROP TABLE runs`,
      `ALTER TABLE runs_v11 RENAME TO runs`,
      `CREATE INDEX runs_status_created ON runs (status, created_at, id)`,
      `CREATE INDEX runs_session_created ON runs (session_id, created_at, id) WHERE session_id IS NOT NULL`,
      `CREATE INDEX runs_created ON runs (created_at, id)`,
      `CREATE INDEX runs_ended ON runs (ended_at, id) WHERE ended_at IS NOT NULL AND pruned_at IS NULL`,
      `CREATE INDEX runs_pruned ON runs (ended_at, id) WHERE pruned_at IS NOT NULL`,
      `CREATE INDEX runs_by_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL`,
      `CREATE TABLE schedules (
        id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        created_by TEXT NOT NULL,
        client_key TEXT,
        cron TEXT,
        every_ms INTEGER,
        anchor_at INTEGER NOT NULL,
        timezone TEXT NOT NULL,
        goal TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('execute', 'plan_only')),
        capability_allowlist TEXT,
        budgets TEXT NOT NULL,
        missed TEXT NOT NULL CHECK (missed IN ('skip', 'catch_up_one')),
        status TEXT NOT NULL CHECK (status IN ('active', 'paused')),
        next_tick_at INTEGER,
        last_tick_at INTEGER,
        last_run_id TEXT,
        revision INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`,
      // An idempotent create: one schedule per owner and client key.
      `CREATE UNIQUE INDEX schedules_owner_client ON schedules (owner, client_key) WHERE client_key IS NOT NULL`,
      // The scheduler's poll: active schedules by their next tick.
      `CREATE INDEX schedules_due ON schedules (status, next_tick_at)`,
      // The list, oldest first (all, or one owner's).
      `CREATE INDEX schedules_created ON schedules (created_at, id)`,
      `CREATE TABLE schedule_ticks (
        schedule_id TEXT NOT NULL,
        tick_at INTEGER NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ('fired', 'skipped')),
        run_id TEXT,
        reason TEXT CHECK (reason IN ('missed', 'daily_budget', 'refused')),
        first_tick_at INTEGER NOT NULL,
        ticks INTEGER NOT NULL,
        handled_at INTEGER NOT NULL,
        handled_by TEXT NOT NULL,
        PRIMARY KEY (schedule_id, tick_at)
      )`,
    ],
  },
  {
    version: 12,
    name: 'approvals a household can trust',
    // What an approval shows and records (docs/approvals.md): the capability that asked, its impact report, the
    // plan's steps and the ones approved, the proposed, approved (edited) and executed payloads. Approvals stored
    // before read back with no steps, nothing computed, and the payload hash they were asked for as the proposed
    // one (SQLite adds a NOT NULL column only with a default: '' here, replaced by the UPDATE below).
    statements: [
      `ALTER TABLE approvals ADD COLUMN capability_id TEXT`,
      `ALTER TABLE approvals ADD COLUMN impact TEXT`,
      `ALTER TABLE approvals ADD COLUMN steps TEXT NOT NULL DEFAULT '[]'`,
      `ALTER TABLE approvals ADD COLUMN approved_steps TEXT`,
      `ALTER TABLE approvals ADD COLUMN proposed_payload TEXT`,
      `ALTER TABLE approvals ADD COLUMN proposed_payload_hash TEXT NOT NULL DEFAULT ''`,
      `ALTER TABLE approvals ADD COLUMN approved_payload TEXT`,
      `ALTER TABLE approvals ADD COLUMN executed_payload_hash TEXT`,
      `UPDATE approvals SET proposed_payload_hash = payload_hash`,
    ],
  },
  {
    version: 13,
    name: 'intents',
    // One intent, one job (docs/intents.md): who holds each (media entity, effect class). The primary key is the
    // claim: of any number of processes acquiring a key at once, one holds it.
    statements: [
      `CREATE TABLE intents (
        key TEXT PRIMARY KEY,
        media_entity_id TEXT NOT NULL,
        effect_class TEXT NOT NULL,
        holder_run_id TEXT,
        holder_actor TEXT NOT NULL,
        capability_id TEXT NOT NULL,
        plan_id TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      )`,
      // A run's end releases every intent it holds.
      `CREATE INDEX intents_by_run ON intents (holder_run_id) WHERE holder_run_id IS NOT NULL`,
    ],
  },
  {
    version: 14,
    name: 'forks',
    // Conversation control (docs/forks.md): the last event of each step commit records how many messages the run had
    // stored (a step boundary a fork may start at); a fork records the run and event it was forked from. NULL on
    // every row written before.
    statements: [
      `ALTER TABLE run_events ADD COLUMN message_count INTEGER`,
      `ALTER TABLE runs ADD COLUMN forked_from_run_id TEXT`,
      `ALTER TABLE runs ADD COLUMN forked_at_seq INTEGER`,
    ],
  },
  {
    version: 15,
    name: 'channel outbox',
    // What runs say on message channels (docs/channels.md): rows in order per chat, unique by idempotency key, and
    // per chat the last seq handed out and the dispatcher's claim.
    statements: [
      `CREATE TABLE channel_outbox (
        id TEXT PRIMARY KEY,
        channel_id TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        run_id TEXT,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        idempotency_key TEXT NOT NULL UNIQUE,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        not_before INTEGER NOT NULL,
        sent_message_id TEXT,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        sent_at INTEGER,
        UNIQUE (channel_id, chat_id, seq)
      )`,
      // The dispatcher's due chats: the first queued row of each chat.
      `CREATE INDEX channel_outbox_queued ON channel_outbox (channel_id, chat_id, seq) WHERE status = 'queued'`,
      `CREATE INDEX channel_outbox_by_run ON channel_outbox (run_id, created_at) WHERE run_id IS NOT NULL`,
      `CREATE TABLE channel_outbox_chats (
        channel_id TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        last_seq INTEGER NOT NULL,
        claim_owner TEXT,
        claim_until INTEGER,
        PRIMARY KEY (channel_id, chat_id)
      )`,
    ],
  },
];

if (SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]?.version !== STORAGE_SCHEMA_VERSION) {
  throw new Error('media-agent: the last SQLite migration must have version STORAGE_SCHEMA_VERSION');
}

/** Reads `PRAGMA user_version` (the schema version; 0 for a new file). Reads the header only, writes nothing. @internal */
export function readUserVersion(db: Database): number {
  return Number(db.pragma('user_version', { simple: true }));
}

/**
 * Applies every pending migration, each in its own `BEGIN IMMEDIATE` transaction.
 * Re-reads the version inside each transaction, so concurrent migrators in several processes are safe.
 * @param db - open connection (WAL already configured)
 * @param now - clock for `schema_migrations.applied_at` (ms)
 * @throws StorageSchemaTooNewError when the store is newer than this SDK (nothing is touched);
 *   raw SQLite errors otherwise (the caller maps them)
 * @internal
 */
export function applySqliteMigrations(db: Database, now: () => number = Date.now): void {
  for (;;) {
    db.exec('BEGIN IMMEDIATE');
    try {
      const current = readUserVersion(db);
      if (current > STORAGE_SCHEMA_VERSION) throw new StorageSchemaTooNewError(current, STORAGE_SCHEMA_VERSION);
      if (current === STORAGE_SCHEMA_VERSION) {
        db.exec('COMMIT');
        return;
      }
      const next = SQLITE_MIGRATIONS.find((m) => m.version === current + 1);
      if (!next) throw new Error(`media-agent: no SQLite migration from schema version ${current}`);
      for (const sql of next.statements) db.exec(sql);
      next.step?.(db);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        next.version,
        next.name,
        now(),
      );
      db.exec(`PRAGMA user_version = ${next.version | 0}`);
      db.exec('COMMIT');
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }
}
