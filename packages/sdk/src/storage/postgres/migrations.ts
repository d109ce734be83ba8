/**
 * Versioned schema migrations of the PostgreSQL store, one-to-one with the SQLite ones (same versions, tables,
 * columns and indexes): `TEXT` → `text`, `INTEGER` → `bigint` (times in ms, byte counts), 0/1 → `boolean`, JSON
 * columns → `json`. `json` rather than `jsonb`: the text is stored as written, which round-trips every value
 * `JSON.stringify` produces (`jsonb` refuses the `\u0000` escape) and costs no conversion on write; the one query
 * that looks inside JSON (`usage->>'costUsd'`) works on both.
 *
 * @remarks
 * Every pending migration runs in one transaction that first takes a transaction-level advisory lock keyed by
 * the schema name, so concurrent migrators in several processes run one after the other (the later one finds
 * the schema current and does nothing), and a failure — the server going away included — leaves the schema as
 * it was: PostgreSQL's DDL is transactional. The version is read before anything is written: a schema written
 * by a newer SDK is refused untouched.
 * @packageDocumentation
 */
import { StorageSchemaTooNewError } from '../errors';
import { AUDIT_GENESIS_HASH, linkAuditRows } from '../../core/audit-chain';
import { AUDIT_SEAL_PAGE_ROWS, auditPageSql, auditRowOf } from '../sql/audit-rows';
import type { SqlMigration } from '../sql/migration';
import { STORAGE_SCHEMA_VERSION } from '../../ports/storage-adapter';
import type { SqlCompiler } from './postgres-executor';

/** One schema step of this store (its code step runs on the migrating connection, in the migration's transaction). @internal */
export type PgMigration = SqlMigration<(client: MigrationClient, compiler: SqlCompiler) => Promise<void>>;

/**
 * Seals the audit rows written before schema 10 into one chain, in `seq` order, a page at a time (docs/audit.md).
 * @internal
 */
export async function sealPgAudit(client: MigrationClient, compiler: SqlCompiler): Promise<void> {
  const select = compiler.compile(auditPageSql('"{schema}".audit', (n) => `$${n}`, false)).text;
  const update = compiler.compile(`UPDATE "{schema}".audit AS a SET prev_hash = u.prev_hash, hash = u.hash
    FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(seq, prev_hash, hash) WHERE a.seq = u.seq`).text;
  let head = AUDIT_GENESIS_HASH;
  for (let after = 0; ; ) {
    const page = (await client.query(select, [after, AUDIT_SEAL_PAGE_ROWS])).rows.map(auditRowOf);
    if (page.length === 0) return;
    const linked = linkAuditRows(head, page);
    await client.query(update, [
      linked.rows.map((r) => r.seq),
      linked.rows.map((r) => r.prevHash),
      linked.rows.map((r) => r.hash),
    ]);
    head = linked.head;
    after = page[page.length - 1]!.seq;
  }
}

/** Every migration, oldest first. The last one's version equals {@link STORAGE_SCHEMA_VERSION}. @internal */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: 'initial',
    statements: [
      `CREATE TABLE "{schema}".ledger (
        key text PRIMARY KEY,
        capability_id text NOT NULL,
        capability_version bigint NOT NULL,
        scope_id text NOT NULL,
        call_id text,
        args_hash text NOT NULL,
        state text NOT NULL CHECK (state IN ('running', 'succeeded', 'failed', 'pending', 'unknown')),
        token text NOT NULL,
        actor text NOT NULL,
        invocation_id text NOT NULL,
        run_id text,
        task_id text,
        approval_id text,
        grant_id text,
        bytes bigint NOT NULL,
        output json,
        error json,
        input_summary text NOT NULL,
        attempts bigint NOT NULL,
        claimed_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        settled_at bigint
      )`,
      `CREATE UNIQUE INDEX ledger_scope_call ON "{schema}".ledger (scope_id, call_id) WHERE call_id IS NOT NULL`,
      `CREATE INDEX ledger_grant_claimed ON "{schema}".ledger (grant_id, claimed_at, bytes) WHERE grant_id IS NOT NULL`,
      `CREATE INDEX ledger_state_claimed ON "{schema}".ledger (state, claimed_at)`,
      `CREATE INDEX ledger_state_settled ON "{schema}".ledger (state, settled_at)`,
      `CREATE TABLE "{schema}".approvals (
        id text PRIMARY KEY,
        plan_type text NOT NULL,
        plan_id text NOT NULL,
        payload_hash text NOT NULL,
        revision bigint NOT NULL,
        status text NOT NULL CHECK (status IN ('requested', 'approved', 'rejected', 'revoked', 'consumed')),
        requested_by text NOT NULL,
        reason text,
        requested_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        decided_by text,
        decided_at bigint,
        consumed_by text,
        consumed_at bigint
      )`,
      `CREATE INDEX approvals_status ON "{schema}".approvals (status, requested_at)`,
      `CREATE INDEX approvals_plan ON "{schema}".approvals (plan_id, requested_at)`,
      `CREATE TABLE "{schema}".grants (
        id text PRIMARY KEY,
        action text NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'revoked')),
        expires_at bigint,
        policy_revision_id text,
        scope json NOT NULL,
        budget json NOT NULL,
        reason text,
        created_by text NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      )`,
      `CREATE INDEX grants_status ON "{schema}".grants (status, created_at)`,
      `CREATE TABLE "{schema}".plans (
        id text PRIMARY KEY,
        type text NOT NULL,
        payload json NOT NULL,
        payload_hash text NOT NULL,
        revision bigint NOT NULL,
        media_entity_id text,
        media_kind text,
        bytes bigint NOT NULL,
        created_by text NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      )`,
      `CREATE TABLE "{schema}".policies (
        id text PRIMARY KEY,
        kind text NOT NULL,
        status text NOT NULL CHECK (status IN ('draft', 'published', 'retired')),
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      )`,
      `CREATE INDEX policies_kind ON "{schema}".policies (kind, created_at)`,
      `CREATE TABLE "{schema}".audit (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        at bigint NOT NULL,
        action text NOT NULL,
        actor text NOT NULL,
        capability_id text NOT NULL,
        invocation_id text NOT NULL,
        run_id text,
        task_id text,
        outcome text NOT NULL,
        approval_id text,
        grant_id text,
        idempotency_key text,
        input_summary text NOT NULL,
        reason text
      )`,
      `CREATE INDEX audit_capability ON "{schema}".audit (capability_id, seq)`,
      `CREATE INDEX audit_invocation ON "{schema}".audit (invocation_id, seq)`,
      `CREATE TABLE "{schema}".settings (
        key text PRIMARY KEY,
        value json NOT NULL
      )`,
    ],
  },
  {
    version: 2,
    name: 'runs',
    statements: [
      `CREATE TABLE "{schema}".runs (
        id text PRIMARY KEY,
        goal text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('execute', 'plan_only')),
        status text NOT NULL CHECK (status IN ('queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled', 'budget_exceeded')),
        step text NOT NULL CHECK (step IN ('drive', 'goal_settled', 'finalize')),
        started_by text NOT NULL,
        session_id text,
        capability_allowlist json,
        budgets json NOT NULL,
        usage json NOT NULL,
        plan json,
        report json,
        final_text text,
        error json,
        abort_requested boolean NOT NULL,
        abort_reason text,
        wake_requested boolean NOT NULL,
        lease_owner text,
        lease_expires_at bigint,
        not_before bigint,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        started_at bigint,
        ended_at bigint
      )`,
      `CREATE INDEX runs_status_created ON "{schema}".runs (status, created_at, id)`,
      `CREATE INDEX runs_session_created ON "{schema}".runs (session_id, created_at, id) WHERE session_id IS NOT NULL`,
      `CREATE INDEX runs_created ON "{schema}".runs (created_at, id)`,
      // global_seq is handed out from the one-row counter event_sequence, in commit order (run-event-repository.ts).
      `CREATE TABLE "{schema}".run_events (
        global_seq bigint PRIMARY KEY,
        run_id text NOT NULL,
        seq bigint NOT NULL,
        type text NOT NULL,
        at bigint NOT NULL,
        data json NOT NULL,
        UNIQUE (run_id, seq)
      )`,
      `CREATE TABLE "{schema}".event_sequence (
        id integer PRIMARY KEY CHECK (id = 1),
        value bigint NOT NULL
      )`,
      `INSERT INTO "{schema}".event_sequence (id, value) VALUES (1, 0)`,
      `CREATE TABLE "{schema}".run_messages (
        run_id text NOT NULL,
        seq bigint NOT NULL,
        message json NOT NULL,
        at bigint NOT NULL,
        PRIMARY KEY (run_id, seq)
      )`,
      `CREATE TABLE "{schema}".inbox (
        id text PRIMARY KEY,
        run_id text NOT NULL,
        text text NOT NULL,
        actor text NOT NULL,
        status text NOT NULL CHECK (status IN ('queued', 'applied')),
        created_at bigint NOT NULL,
        applied_at bigint
      )`,
      `CREATE INDEX inbox_run_status ON "{schema}".inbox (run_id, status, created_at, id)`,
      `CREATE TABLE "{schema}".decisions (
        id text PRIMARY KEY,
        kind text NOT NULL,
        dedupe_key text NOT NULL UNIQUE,
        subject_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('open', 'resolved')),
        reason text NOT NULL,
        data json NOT NULL,
        created_at bigint NOT NULL,
        resolved_at bigint
      )`,
      `CREATE INDEX decisions_status_created ON "{schema}".decisions (status, created_at)`,
      `CREATE INDEX decisions_subject_created ON "{schema}".decisions (subject_id, created_at)`,
    ],
  },
  {
    version: 3,
    name: 'subagents and runtime state',
    statements: [
      `ALTER TABLE "{schema}".runs ADD COLUMN origin text NOT NULL DEFAULT 'interactive' CHECK (origin IN ('interactive', 'background', 'channel'))`,
      `ALTER TABLE "{schema}".runs ADD COLUMN parent_run_id text`,
      `ALTER TABLE "{schema}".runs ADD COLUMN depth bigint NOT NULL DEFAULT 0`,
      `ALTER TABLE "{schema}".runs ADD COLUMN runtime_state json`,
      `CREATE INDEX runs_parent ON "{schema}".runs (parent_run_id) WHERE parent_run_id IS NOT NULL`,
    ],
  },
  {
    version: 4,
    name: 'grant usage counters',
    statements: [
      `CREATE TABLE "{schema}".grant_usage (
        grant_id text NOT NULL,
        day bigint NOT NULL,
        invocations bigint NOT NULL,
        bytes bigint NOT NULL,
        PRIMARY KEY (grant_id, day)
      )`,
      `INSERT INTO "{schema}".grant_usage (grant_id, day, invocations, bytes)
        SELECT grant_id, (claimed_at / 86400000) * 86400000, COUNT(*), COALESCE(SUM(bytes), 0)
        FROM "{schema}".ledger WHERE grant_id IS NOT NULL
        GROUP BY grant_id, claimed_at / 86400000`,
    ],
  },
  {
    version: 5,
    name: 'run checklist',
    statements: [`ALTER TABLE "{schema}".runs RENAME COLUMN plan TO checklist`],
  },
  {
    version: 6,
    name: 'decisions as records people resolve',
    statements: [
      `ALTER TABLE "{schema}".decisions DROP CONSTRAINT decisions_status_check`,
      `ALTER TABLE "{schema}".decisions ADD CONSTRAINT decisions_status_check CHECK (status IN ('open', 'awaiting_user', 'resolved', 'dismissed'))`,
      `ALTER TABLE "{schema}".decisions RENAME COLUMN data TO evidence`,
      `ALTER TABLE "{schema}".decisions ADD COLUMN subject_type text NOT NULL DEFAULT 'run'`,
      `ALTER TABLE "{schema}".decisions ADD COLUMN root_cause text`,
      `ALTER TABLE "{schema}".decisions ADD COLUMN options json NOT NULL DEFAULT '[]'`,
      // Decisions stored before this version were raised by the run they are about.
      `ALTER TABLE "{schema}".decisions ADD COLUMN raised_by text`,
      `UPDATE "{schema}".decisions SET raised_by = 'agent:' || subject_id`,
      `ALTER TABLE "{schema}".decisions ALTER COLUMN raised_by SET NOT NULL`,
      `ALTER TABLE "{schema}".decisions ADD COLUMN resolved_by text`,
      `ALTER TABLE "{schema}".decisions ADD COLUMN resolution json`,
      `ALTER TABLE "{schema}".decisions ADD COLUMN revision bigint NOT NULL DEFAULT 1`,
      `ALTER TABLE "{schema}".decisions ADD COLUMN updated_at bigint`,
      `UPDATE "{schema}".decisions SET updated_at = COALESCE(resolved_at, created_at)`,
      `ALTER TABLE "{schema}".decisions ALTER COLUMN updated_at SET NOT NULL`,
      `CREATE INDEX decisions_root_cause ON "{schema}".decisions (root_cause, created_at) WHERE root_cause IS NOT NULL`,
    ],
  },
  {
    version: 7,
    name: 'budget counters and reservations',
    statements: [
      `CREATE TABLE "{schema}".budget_usage (
        subject text NOT NULL,
        period text NOT NULL CHECK (period IN ('day', 'month')),
        start bigint NOT NULL,
        runs bigint NOT NULL,
        model_calls bigint NOT NULL,
        tokens bigint NOT NULL,
        cost_usd double precision NOT NULL,
        PRIMARY KEY (subject, period, start)
      )`,
      `CREATE TABLE "{schema}".budget_reservations (
        key text PRIMARY KEY,
        subject text NOT NULL,
        run_id text NOT NULL,
        state text NOT NULL CHECK (state IN ('reserved', 'settled', 'released')),
        day bigint NOT NULL,
        month bigint NOT NULL,
        runs bigint NOT NULL,
        model_calls bigint NOT NULL,
        tokens bigint NOT NULL,
        cost_usd double precision NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      )`,
      `CREATE INDEX budget_reservations_run ON "{schema}".budget_reservations (run_id, created_at)`,
      `CREATE INDEX budget_reservations_state ON "{schema}".budget_reservations (state, created_at)`,
    ],
  },
  {
    version: 8,
    name: 'ledger entries by run',
    // The verified goal report reads every entry a run claimed (docs/architecture.md#the-goal-report).
    statements: [`CREATE INDEX ledger_run ON "{schema}".ledger (run_id, claimed_at) WHERE run_id IS NOT NULL`],
  },
  {
    version: 9,
    name: 'drop indexes no query uses',
    // The indexes no repository statement can use, dropped from SQLite in the same version (see its migration 9):
    // each was rewritten by every insert for nothing. `listByState` uses the state prefix of `ledger_state_settled`.
    statements: [
      `DROP INDEX "{schema}".audit_capability`,
      `DROP INDEX "{schema}".audit_invocation`,
      `DROP INDEX "{schema}".budget_reservations_run`,
      `DROP INDEX "{schema}".budget_reservations_state`,
      `DROP INDEX "{schema}".runs_parent`,
      `DROP INDEX "{schema}".ledger_state_claimed`,
    ],
  },
  {
    version: 10,
    name: 'nas operations',
    // The same as SQLite's migration 10: audit chain columns, `runs.pruned_at`, named leases, terminal runs by end.
    statements: [
      `ALTER TABLE "{schema}".audit ADD COLUMN prev_hash text`,
      `ALTER TABLE "{schema}".audit ADD COLUMN hash text`,
      `ALTER TABLE "{schema}".runs ADD COLUMN pruned_at bigint`,
      `CREATE TABLE "{schema}".leases (
        name text PRIMARY KEY,
        owner text NOT NULL,
        expires_at bigint NOT NULL
      )`,
      `CREATE INDEX runs_ended ON "{schema}".runs (ended_at, id) WHERE ended_at IS NOT NULL AND pruned_at IS NULL`,
      `CREATE INDEX runs_pruned ON "{schema}".runs (ended_at, id) WHERE pruned_at IS NOT NULL`,
      `CREATE INDEX runs_by_parent ON "{schema}".runs (parent_run_id) WHERE parent_run_id IS NOT NULL`,
      `CREATE INDEX budget_reservations_by_run ON "{schema}".budget_reservations (run_id)`,
      `CREATE INDEX plans_updated ON "{schema}".plans (updated_at, id)`,
      `CREATE INDEX grant_usage_day ON "{schema}".grant_usage (day)`,
      `CREATE INDEX budget_usage_start ON "{schema}".budget_usage (start)`,
    ],
    step: sealPgAudit,
  },
  {
    version: 11,
    name: 'schedules',
    // The same as SQLite's migration 11: schedules, their tick claims, and the run origin `schedule` (PostgreSQL
    // changes the CHECK constraint in place).
    statements: [
      `ALTER TABLE "{schema}".runs DROP CONSTRAINT runs_origin_check`,
      `ALTER TABLE "{schema}".runs ADD CONSTRAINT runs_origin_check CHECK (origin IN ('interactive', 'background', 'channel', 'schedule'))`,
      `CREATE TABLE "{schema}".schedules (
        id text PRIMARY KEY,
        owner text NOT NULL,
        created_by text NOT NULL,
        client_key text,
        cron text,
        every_ms bigint,
        anchor_at bigint NOT NULL,
        timezone text NOT NULL,
        goal text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('execute', 'plan_only')),
        capability_allowlist json,
        budgets json NOT NULL,
        missed text NOT NULL CHECK (missed IN ('skip', 'catch_up_one')),
        status text NOT NULL CHECK (status IN ('active', 'paused')),
        next_tick_at bigint,
        last_tick_at bigint,
        last_run_id text,
        revision bigint NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      )`,
      `CREATE UNIQUE INDEX schedules_owner_client ON "{schema}".schedules (owner, client_key) WHERE client_key IS NOT NULL`,
      `CREATE INDEX schedules_due ON "{schema}".schedules (status, next_tick_at)`,
      `CREATE INDEX schedules_created ON "{schema}".schedules (created_at, id)`,
      `CREATE TABLE "{schema}".schedule_ticks (
        schedule_id text NOT NULL,
        tick_at bigint NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('fired', 'skipped')),
        run_id text,
        reason text CHECK (reason IN ('missed', 'daily_budget', 'refused')),
        first_tick_at bigint NOT NULL,
        ticks bigint NOT NULL,
        handled_at bigint NOT NULL,
        handled_by text NOT NULL,
        PRIMARY KEY (schedule_id, tick_at)
      )`,
    ],
  },
  {
    version: 12,
    name: 'approvals a household can trust',
    // The same columns as SQLite's migration 12; `proposed_payload_hash` is filled from `payload_hash`, then made
    // NOT NULL (no default left behind: every insert writes it).
    statements: [
      `ALTER TABLE "{schema}".approvals ADD COLUMN capability_id text`,
      `ALTER TABLE "{schema}".approvals ADD COLUMN impact json`,
      `ALTER TABLE "{schema}".approvals ADD COLUMN steps json NOT NULL DEFAULT '[]'`,
      `ALTER TABLE "{schema}".approvals ADD COLUMN approved_steps json`,
      `ALTER TABLE "{schema}".approvals ADD COLUMN proposed_payload json`,
      `ALTER TABLE "{schema}".approvals ADD COLUMN proposed_payload_hash text`,
      `ALTER TABLE "{schema}".approvals ADD COLUMN approved_payload json`,
      `ALTER TABLE "{schema}".approvals ADD COLUMN executed_payload_hash text`,
      `UPDATE "{schema}".approvals SET proposed_payload_hash = payload_hash`,
      `ALTER TABLE "{schema}".approvals ALTER COLUMN proposed_payload_hash SET NOT NULL`,
    ],
  },
  {
    version: 13,
    name: 'intents',
    // The same table as SQLite's migration 13.
    statements: [
      `CREATE TABLE "{schema}".intents (
        key text PRIMARY KEY,
        media_entity_id text NOT NULL,
        effect_class text NOT NULL,
        holder_run_id text,
        holder_actor text NOT NULL,
        capability_id text NOT NULL,
        plan_id text,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL
      )`,
      `CREATE INDEX intents_by_run ON "{schema}".intents (holder_run_id) WHERE holder_run_id IS NOT NULL`,
    ],
  },
  {
    version: 14,
    name: 'forks',
    // The same columns as SQLite's migration 14.
    statements: [
      `ALTER TABLE "{schema}".run_events ADD COLUMN message_count bigint`,
      `ALTER TABLE "{schema}".runs ADD COLUMN forked_from_run_id text`,
      `ALTER TABLE "{schema}".runs ADD COLUMN forked_at_seq bigint`,
    ],
  },
  {
    version: 15,
    name: 'channel outbox',
    // The same tables as SQLite's migration 15.
    statements: [
      `CREATE TABLE "{schema}".channel_outbox (
        id text PRIMARY KEY,
        channel_id text NOT NULL,
        chat_id text NOT NULL,
        seq bigint NOT NULL,
        run_id text,
        kind text NOT NULL,
        payload json NOT NULL,
        idempotency_key text NOT NULL UNIQUE,
        status text NOT NULL,
        attempts bigint NOT NULL,
        not_before bigint NOT NULL,
        sent_message_id text,
        last_error text,
        created_at bigint NOT NULL,
        sent_at bigint,
        UNIQUE (channel_id, chat_id, seq)
      )`,
      `CREATE INDEX channel_outbox_queued ON "{schema}".channel_outbox (channel_id, chat_id, seq) WHERE status = 'queued'`,
      `CREATE INDEX channel_outbox_by_run ON "{schema}".channel_outbox (run_id, created_at) WHERE run_id IS NOT NULL`,
      `CREATE TABLE "{schema}".channel_outbox_chats (
        channel_id text NOT NULL,
        chat_id text NOT NULL,
        last_seq bigint NOT NULL,
        claim_owner text,
        claim_until bigint,
        PRIMARY KEY (channel_id, chat_id)
      )`,
    ],
  },
];

if (PG_MIGRATIONS[PG_MIGRATIONS.length - 1]?.version !== STORAGE_SCHEMA_VERSION) {
  throw new Error('media-agent: the last PostgreSQL migration must have version STORAGE_SCHEMA_VERSION');
}

/** First key of the migration advisory lock (the second is the schema name's hash): "MAMG". @internal */
export const MIGRATION_LOCK_CLASS = 0x4d414d47;

/**
 * First key of the audit chain's advisory lock (the second is the schema name's hash): "MAAC". Every audit append
 * takes it, transaction-level, before reading the chain's head, so appenders in every process link one after the
 * other and the chain never forks (docs/audit.md).
 * @internal
 */
export const AUDIT_CHAIN_LOCK_CLASS = 0x4d414143;

/** What the migrator needs of a connection: simple queries, inside the transaction the caller opened. @internal */
export interface MigrationClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/** `schema_migrations` of `schema`: its highest version, 0 when the table (or the schema) does not exist. @internal */
export async function readSchemaVersion(client: MigrationClient, compiler: SqlCompiler): Promise<number> {
  const exists = await client.query('SELECT to_regclass($1) IS NOT NULL AS present', [
    `"${compiler.schema}".schema_migrations`,
  ]);
  if (exists.rows[0]?.present !== true) return 0;
  const { rows } = await client.query(
    compiler.compile('SELECT COALESCE(MAX(version), 0)::integer AS version FROM "{schema}".schema_migrations').text,
  );
  return Number(rows[0]?.version ?? 0);
}

/**
 * Applies every pending migration inside the caller's open transaction, after taking the schema's advisory lock
 * (held to the end of the transaction, so a concurrent migrator waits here, then finds nothing to do).
 * @param client - a connection inside `BEGIN`
 * @param compiler - the adapter's compiler (its schema)
 * @param now - the clock for `schema_migrations.applied_at` (ms)
 * @throws StorageSchemaTooNewError when the schema is newer than this SDK (before anything is written);
 *   driver errors otherwise (the caller rolls back and maps them)
 * @internal
 */
export async function applyPgMigrations(
  client: MigrationClient,
  compiler: SqlCompiler,
  now: () => number = Date.now,
): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, compiler.schema]);
  const current = await readSchemaVersion(client, compiler);
  if (current > STORAGE_SCHEMA_VERSION) throw new StorageSchemaTooNewError(current, STORAGE_SCHEMA_VERSION);
  if (current === STORAGE_SCHEMA_VERSION) return;
  await client.query(`CREATE SCHEMA IF NOT EXISTS "${compiler.schema}"`);
  await client.query(
    compiler.compile(`CREATE TABLE IF NOT EXISTS "{schema}".schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at bigint NOT NULL
    )`).text,
  );
  for (const migration of PG_MIGRATIONS) {
    if (migration.version <= current) continue;
    for (const sql of migration.statements) await client.query(compiler.compile(sql).text);
    await migration.step?.(client, compiler);
    await client.query(
      compiler.compile('INSERT INTO "{schema}".schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)').text,
      [migration.version, migration.name, now()],
    );
  }
}
