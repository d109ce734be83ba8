/**
 * PostgresStorage against a real server (MEDIA_AGENT_PG_URL): migrations (concurrent migrators, a newer schema,
 * the server going away mid-migration), typed errors (server down, credentials refused, statement timeout, pool
 * exhausted, connections terminated as on a restart), and transactions retried after a deadlock.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, expect, it } from 'vitest';
import { isMediaAgentError } from '../../src/core/errors';
import { STORAGE_SCHEMA_VERSION } from '../../src/ports/storage-adapter';
import { PostgresStorage } from '../../src/postgres';
import { MIGRATION_LOCK_CLASS, PG_MIGRATIONS } from '../../src/storage/postgres/migrations';
import {
  adminPool,
  closeAdmin,
  describePostgres,
  dropSchema,
  freshSchemaName,
  PG_URL,
  pgStorage,
} from './postgres-available';
import { expectCode } from './expect-code';
import { SECONDARY_INDEXES, V5_DECISION_COLUMNS, V5_DECISION_MIGRATED, V5_DECISION_VALUES } from './migration-rows';
import { runRecord } from './run-record';

const schemas: string[] = [];
const open: PostgresStorage[] = [];
const pools: pg.Pool[] = [];

function schema(): string {
  const name = freshSchemaName('ma_pg');
  schemas.push(name);
  return name;
}
function storage(name: string, options: Partial<ConstructorParameters<typeof PostgresStorage>[0]> = {}) {
  const s = pgStorage(name, options);
  open.push(s);
  return s;
}
/** A pool the test owns, with an application name that finds its backends in pg_stat_activity. */
function hostPool(max: number): { pool: pg.Pool; app: string } {
  const app = `ma-test-${randomBytes(4).toString('hex')}`;
  const pool = new pg.Pool({ connectionString: PG_URL, max, application_name: app });
  pool.on('error', () => undefined); // idle connections terminated by the test
  pools.push(pool);
  return { pool, app };
}

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const p of pools.splice(0)) await p.end().catch(() => undefined);
  for (const name of schemas.splice(0)) await dropSchema(name);
});
afterAll(closeAdmin);

/** Tables of `name` with their columns, and its schema_migrations rows: what "untouched" compares. */
async function snapshot(name: string): Promise<string> {
  const admin = adminPool();
  const columns = await admin.query(
    `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = $1 ORDER BY 1, 2`,
    [name],
  );
  const present = await admin.query('SELECT to_regclass($1) IS NOT NULL AS present', [`"${name}".schema_migrations`]);
  const versions = present.rows[0].present
    ? (await admin.query(`SELECT version, name, applied_at FROM "${name}".schema_migrations ORDER BY version`)).rows
    : [];
  return JSON.stringify({ columns: columns.rows, versions });
}

async function tablesOf(name: string): Promise<string[]> {
  const { rows } = await adminPool().query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`,
    [name],
  );
  return rows.map((r) => r.table_name as string);
}

/** Polls `query` (on the admin pool) until it returns a row; returns the first row. */
async function waitForRow(sql: string, params: unknown[], timeoutMs = 10_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await adminPool().query(sql, params);
    if (rows[0]) return rows[0];
    if (Date.now() > deadline) throw new Error(`no row for ${sql} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const settled = (p: Promise<unknown>) =>
  Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    new Promise((r) => setTimeout(() => r(false), 300)),
  ]);

describePostgres('PostgresStorage (PostgreSQL server)', () => {
  it('migrate() creates the schema and its tables at STORAGE_SCHEMA_VERSION, records each version once, and is idempotent', async () => {
    const name = schema();
    const s = storage(name);
    expect(await s.schemaVersion()).toBe(0);
    await s.migrate();
    await s.migrate();
    expect(await s.schemaVersion()).toBe(STORAGE_SCHEMA_VERSION);
    const { rows } = await adminPool().query(`SELECT version, name FROM "${name}".schema_migrations ORDER BY version`);
    expect(rows.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    expect(await tablesOf(name)).toEqual([
      'approvals',
      'audit',
      'budget_reservations',
      'budget_usage',
      'channel_outbox',
      'channel_outbox_chats',
      'decisions',
      'event_sequence',
      'grant_usage',
      'grants',
      'inbox',
      'intents',
      'leases',
      'ledger',
      'plans',
      'policies',
      'run_events',
      'run_messages',
      'runs',
      'schedule_ticks',
      'schedules',
      'schema_migrations',
      'settings',
    ]);
    // The secondary indexes: the same set as SQLite's (version 9 dropped those no query uses in both stores).
    const indexes = await adminPool().query(
      `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname NOT LIKE '%\\_pkey' AND indexname NOT LIKE '%\\_key' ORDER BY indexname`,
      [name],
    );
    expect(indexes.rows.map((r) => r.indexname)).toEqual(SECONDARY_INDEXES);
  });

  it('two migrators at once: one migrates while the other waits on the advisory lock, then finds nothing to do', async () => {
    const name = schema();
    // An outside session holds the schema's migration lock: both migrators must wait for it.
    const holder = await adminPool().connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, name]);
      const a = storage(name).migrate();
      const b = storage(name).migrate();
      expect(await settled(a)).toBe(false);
      expect(await settled(b)).toBe(false);
      const waiting = await adminPool().query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = $1::oid`,
        [MIGRATION_LOCK_CLASS],
      );
      expect(waiting.rows[0].n).toBeGreaterThanOrEqual(2);
      expect(await tablesOf(name)).toEqual([]);
      await holder.query('SELECT pg_advisory_unlock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, name]);
      await Promise.all([a, b]);
    } finally {
      holder.release();
    }
    const { rows } = await adminPool().query(`SELECT version FROM "${name}".schema_migrations ORDER BY version`);
    expect(rows.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    // Without a lock held outside, four migrators racing on a fresh schema all succeed.
    const race = schema();
    await Promise.all(Array.from({ length: 4 }, () => storage(race).migrate()));
    expect(await storage(race).schemaVersion()).toBe(STORAGE_SCHEMA_VERSION);
  });

  it('a schema written by a newer SDK is refused untouched by migrate() and by every repository', async () => {
    const name = schema();
    await storage(name).migrate();
    await adminPool().query(
      `INSERT INTO "${name}".schema_migrations (version, name, applied_at) VALUES (99, 'future', 1)`,
    );
    await adminPool().query(`ALTER TABLE "${name}".runs ADD COLUMN future_field text`);
    const before = await snapshot(name);
    const newer = storage(name);
    await expectCode(newer.migrate(), 'STORAGE_SCHEMA_TOO_NEW');
    await expectCode(newer.settings.get('k'), 'STORAGE_SCHEMA_TOO_NEW');
    await expectCode(
      newer.transaction(async (tx) => tx.settings.set('k', 1)),
      'STORAGE_SCHEMA_TOO_NEW',
    );
    expect(await newer.schemaVersion()).toBe(99);
    expect(await snapshot(name)).toBe(before);
    const { rows } = await adminPool().query(`SELECT count(*)::int AS n FROM "${name}".settings`);
    expect(rows[0].n).toBe(0);
  });

  it('migrates a version 5 schema: stored decisions keep their fields, become raised by their run, and take the new statuses', async () => {
    const name = schema();
    const admin = adminPool();
    await admin.query(`CREATE SCHEMA "${name}"`);
    await admin.query(
      `CREATE TABLE "${name}".schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`,
    );
    for (const m of PG_MIGRATIONS.filter((m) => m.version <= 5)) {
      for (const sql of m.statements) await admin.query(sql.replaceAll('{schema}', name));
      await admin.query(`INSERT INTO "${name}".schema_migrations (version, name, applied_at) VALUES ($1, $2, 1)`, [
        m.version,
        m.name,
      ]);
    }
    await admin.query(`INSERT INTO "${name}".decisions ${V5_DECISION_COLUMNS} VALUES ${V5_DECISION_VALUES}`);
    const s = storage(name);
    expect(await s.schemaVersion()).toBe(5);
    await s.migrate();
    expect(await s.schemaVersion()).toBe(STORAGE_SCHEMA_VERSION);
    const d1 = await s.decisions.get('d1');
    expect(d1).toEqual(V5_DECISION_MIGRATED);
    expect(await s.decisions.update({ ...d1!, status: 'awaiting_user', revision: 2 }, 1)).toBe(true);
    expect((await s.decisions.get('d1'))?.status).toBe('awaiting_user');
  });

  it('repositories refuse a schema that was not migrated (nothing is created)', async () => {
    const name = schema();
    const s = storage(name);
    await expectCode(s.settings.set('k', 1), 'STORAGE_FAILED');
    expect(await tablesOf(name)).toEqual([]);
  });

  it('server down at start: migrate() and every call fail with STORAGE_UNAVAILABLE, nothing is created, and the adapter works once a server answers', async () => {
    const name = schema();
    // Nothing listens on port 1 of the loopback address: the connection is refused.
    const down = storage(name, {
      connectionString: 'postgres://postgres@127.0.0.1:1/test',
      connectionTimeoutMs: 2_000,
    });
    const error = await expectCode(down.migrate(), 'STORAGE_UNAVAILABLE');
    expect(String((error as Error).message)).toContain('127.0.0.1:1/test');
    await expectCode(down.settings.get('k'), 'STORAGE_UNAVAILABLE');
    await expectCode(
      down.transaction(async () => 1),
      'STORAGE_UNAVAILABLE',
    );
    expect(await tablesOf(name)).toEqual([]);
  });

  it('the server going away in the middle of migrate() leaves nothing half-migrated; the next migrate() completes', async () => {
    const name = schema();
    await adminPool().query(`CREATE SCHEMA "${name}"`);
    // An outside transaction creates the `runs` table without committing: migration 2 blocks on it, after
    // migration 1 created its tables (in the same transaction).
    const blocker = await adminPool().connect();
    const { pool, app } = hostPool(2);
    try {
      await blocker.query('BEGIN');
      await blocker.query(`CREATE TABLE "${name}".runs (x int)`);
      const migrating = storage(name, { pool }).migrate();
      const row = await waitForRow(
        `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock' AND query LIKE $2`,
        [app, `CREATE TABLE "${name}".runs%`],
      );
      expect(await settled(migrating)).toBe(false);
      // What a server shutdown does to a connection: the backend is terminated (57P01).
      await adminPool().query('SELECT pg_terminate_backend($1)', [row.pid]);
      await expectCode(migrating, 'STORAGE_UNAVAILABLE');
      await blocker.query('ROLLBACK');
    } finally {
      blocker.release();
    }
    expect(await tablesOf(name)).toEqual([]);
    const s = storage(name, { pool });
    expect(await s.schemaVersion()).toBe(0);
    await s.migrate();
    expect(await s.schemaVersion()).toBe(STORAGE_SCHEMA_VERSION);
  });

  it('connections terminated mid-transaction (as on a server restart): the transaction fails with STORAGE_UNAVAILABLE, keeps nothing, and the next calls reconnect', async () => {
    const name = schema();
    const { pool, app } = hostPool(2);
    const s = storage(name, { pool });
    await s.migrate();
    await s.settings.set('before', 1);
    let reached!: () => void;
    const atGate = new Promise<void>((r) => (reached = r));
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const inFlight = s.transaction(async (tx) => {
      await tx.settings.set('in-flight', 1);
      reached();
      await gate;
      await tx.settings.set('after-restart', 2);
      return 'committed';
    });
    await atGate;
    const { rows } = await adminPool().query(
      'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1',
      [app],
    );
    expect(rows.length).toBeGreaterThan(0);
    open();
    await expectCode(inFlight, 'STORAGE_UNAVAILABLE');
    // The pool reconnects: the adapter works again and nothing of the transaction was kept.
    expect(await s.settings.get('in-flight')).toBeUndefined();
    expect(await s.settings.get('after-restart')).toBeUndefined();
    expect(await s.settings.get('before')).toBe(1);
    await s.transaction(async (tx) => tx.settings.set('later', 3));
    expect(await s.settings.get('later')).toBe(3);
  });

  it('a pool exhausted: a call waits at most connectionTimeoutMs, fails with STORAGE_POOL_EXHAUSTED having run nothing, and works once a connection is free', async () => {
    const name = schema();
    const { pool } = hostPool(1);
    const s = storage(name, { pool, connectionTimeoutMs: 300 });
    await s.migrate();
    const held = await pool.connect(); // the host keeps the pool's only connection busy
    try {
      const started = Date.now();
      const error = await expectCode(s.settings.set('k', 1), 'STORAGE_POOL_EXHAUSTED');
      expect(Date.now() - started).toBeLessThan(5_000);
      expect((error as { details: Record<string, unknown> }).details).toMatchObject({ waitedMs: 300, poolSize: 1 });
    } finally {
      held.release();
    }
    expect(await s.settings.get('k')).toBeUndefined();
    await s.settings.set('k', 2);
    expect(await s.settings.get('k')).toBe(2);
  });

  it('credentials refused: STORAGE_AUTH_FAILED', async () => {
    const url = new URL(PG_URL);
    url.username = `no_such_role_${randomBytes(3).toString('hex')}`;
    url.password = '';
    const s = storage(schema(), { connectionString: url.toString() });
    await expectCode(s.migrate(), 'STORAGE_AUTH_FAILED');
  });

  it('a statement past the statement timeout is cancelled: STORAGE_TIMEOUT, its transaction rolled back', async () => {
    const name = schema();
    const s = storage(name, { statementTimeoutMs: 200 });
    await s.migrate();
    await s.settings.set('locked', 0);
    const locker = await adminPool().connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`UPDATE "${name}".settings SET value = '1' WHERE key = 'locked'`);
      const error = await expectCode(
        s.transaction(async (tx) => {
          await tx.settings.set('other', 1);
          await tx.settings.set('locked', 2); // waits for the row lock past the timeout
        }),
        'STORAGE_TIMEOUT',
      );
      expect((error as { details: Record<string, unknown> }).details).toMatchObject({ timeoutMs: 200 });
      await locker.query('ROLLBACK');
    } finally {
      locker.release();
    }
    expect(await s.settings.get('other')).toBeUndefined();
    expect(await s.settings.get('locked')).toBe(0);
  });

  it('a transaction left idle past idleInTransactionTimeoutMs (a stuck process) is ended by the server: its locks are released for the others, and it fails with STORAGE_TIMEOUT, keeping nothing', async () => {
    const name = schema();
    const stuck = storage(name, { idleInTransactionTimeoutMs: 300 });
    const other = storage(name);
    await stuck.migrate();
    let appended!: () => void;
    const holding = new Promise<void>((r) => (appended = r));
    const stalled = stuck.transaction(async (tx) => {
      await tx.settings.set('stuck', 1);
      await tx.events.append({ runId: 'r', type: 'text_delta', at: 1, data: null }); // holds the event counter
      appended();
      await new Promise((r) => setTimeout(r, 1_000)); // awaits something else, far past the timeout
      await tx.settings.set('stuck-later', 2);
    });
    await holding;
    // Another process's append waits for the counter only until the server ends the idle transaction.
    const event = await other.events.append({ runId: 'r', type: 'text_delta', at: 2, data: null });
    expect(event.seq).toBe(1);
    const error = await expectCode(stalled, 'STORAGE_TIMEOUT');
    expect((error as { details: Record<string, unknown> }).details).toMatchObject({ timeoutMs: 300 });
    expect(await other.settings.get('stuck')).toBeUndefined();
    expect((await other.events.listAfter(0)).map((e) => e.at)).toEqual([2]);
    // The adapter goes on with a new connection.
    await stuck.settings.set('after', 3);
    expect(await other.settings.get('after')).toBe(3);
  });

  it('a deadlock between two processes is retried: both transactions commit, each once, the loser having run fn again', async () => {
    const name = schema();
    const a = storage(name);
    const b = storage(name);
    await a.migrate();
    let firstDone = 0;
    let both!: () => void;
    const barrier = new Promise<void>((r) => (both = r));
    const runs = { a: 0, b: 0 };
    const cross = (s: PostgresStorage, id: 'a' | 'b', first: string, second: string) =>
      s.transaction(async (tx) => {
        runs[id]++;
        await tx.grantUsage.add(first, 0, 1, 0);
        if (++firstDone === 2) both();
        await barrier;
        await tx.grantUsage.add(second, 0, 1, 0);
        return id;
      });
    const results = await Promise.allSettled([cross(a, 'a', 'g1', 'g2'), cross(b, 'b', 'g2', 'g1')]);
    expect(results, JSON.stringify({ results, runs })).toEqual([
      { status: 'fulfilled', value: 'a' },
      { status: 'fulfilled', value: 'b' },
    ]);
    // At least one retry; more when the retry, started while the survivor's wait was being resumed, deadlocks
    // again (a real race: the retried fn takes its first row before the survivor gets it). Each fn's writes are
    // kept exactly once either way:
    expect(runs.a + runs.b, JSON.stringify(runs)).toBeGreaterThanOrEqual(3);
    expect((await a.grantUsage.get('g1', 0)).invocations).toBe(2);
    expect((await a.grantUsage.get('g2', 0)).invocations).toBe(2);
  });

  it('retries used up: STORAGE_CONFLICT after maxTransactionAttempts, nothing kept', async () => {
    const name = schema();
    const a = storage(name, { maxTransactionAttempts: 1 });
    const b = storage(name, { maxTransactionAttempts: 1 });
    await a.migrate();
    let firstDone = 0;
    let both!: () => void;
    const barrier = new Promise<void>((r) => (both = r));
    const cross = (s: PostgresStorage, first: string, second: string) =>
      s.transaction(async (tx) => {
        await tx.grantUsage.add(first, 0, 1, 0);
        if (++firstDone === 2) both();
        await barrier;
        await tx.grantUsage.add(second, 0, 1, 0);
      });
    const results = await Promise.allSettled([cross(a, 'g1', 'g2'), cross(b, 'g2', 'g1')]);
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    const error = (rejected[0] as PromiseRejectedResult).reason;
    expect(isMediaAgentError(error, 'STORAGE_CONFLICT')).toBe(true);
    expect(error.details).toEqual({ attempts: 1 });
    expect((await a.grantUsage.get('g1', 0)).invocations + (await a.grantUsage.get('g2', 0)).invocations).toBe(2);
  });

  it('a statement that fails inside transaction(fn) rolls the transaction back even when fn swallows the error', async () => {
    const name = schema();
    const s = storage(name);
    await s.migrate();
    await s.runs.insert(runRecord('r1'));
    const error = await expectCode(
      s.transaction(async (tx) => {
        await tx.settings.set('kept?', 1);
        await tx.runs.insert(runRecord('r1')).catch(() => undefined);
        return 'swallowed';
      }),
      'STORAGE_FAILED',
    );
    expect(String((error as Error).message)).toContain('23505');
    expect(await s.settings.get('kept?')).toBeUndefined();
  });

  it('rejects invalid options with OPTIONS_INVALID', () => {
    const invalid = (options: ConstructorParameters<typeof PostgresStorage>[0]) => {
      let error: unknown;
      try {
        new PostgresStorage(options);
      } catch (e) {
        error = e;
      }
      expect(isMediaAgentError(error, 'OPTIONS_INVALID'), String(error)).toBe(true);
    };
    invalid({});
    invalid({ connectionString: PG_URL, schema: 'Bad-Name' });
    invalid({ connectionString: PG_URL, schema: 'x'.repeat(64) });
    invalid({ connectionString: PG_URL, poolSize: 0 });
    invalid({ connectionString: PG_URL, statementTimeoutMs: -1 });
    invalid({ connectionString: PG_URL, maxTransactionAttempts: 0 });
    invalid({ connectionString: PG_URL, idleInTransactionTimeoutMs: 1.5 });
  });
});
