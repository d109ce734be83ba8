/**
 * Every released schema version's snapshot (./snapshots, written by that version's own code: README.md there)
 * migrates to STORAGE_SCHEMA_VERSION with today's code, on SQLite and PostgreSQL, and then:
 *
 * - every row the old version wrote reads back through today's repositories with the values it had (all
 *   snapshots, both stores);
 * - the migrated schema is the schema a fresh store gets (columns, indexes: all snapshots);
 * - the storage conformance suite passes on the migrated store: SQLite's OLDEST and NEWEST snapshot, PostgreSQL's
 *   NEWEST. The whole matrix (every version × 60 cases × 2 stores) would take minutes on a loaded machine and adds
 *   little: the versions in between are covered by the read-back and schema checks, which run every migration step
 *   on data. PostgreSQL's oldest is left out of the suite too: each case there loads, migrates and drops a schema
 *   (about 1.5 s; 60 cases took 45 s on top on a loaded 2-CPU machine), and its schema equals a fresh one (checked
 *   above), which the suite already runs on in conformance.test.ts. Each conformance case gets a copy
 *   migrated by today's code WITH the old rows in it, then emptied of rows (counters reset): the cases assert exact
 *   lists, orders and sequences of what they wrote (list() equals these two runs, the first audit seq, the lease
 *   goes to this run), which pre-existing rows would change without anything being wrong. So the suite checks the
 *   migrated schema's behaviour (constraints, indexes, defaults, types), the read-back checks the old data; the one
 *   case about a new store (version 0 before the first migrate) is skipped there.
 *
 * Also: a snapshot exists for every version from 1 to STORAGE_SCHEMA_VERSION - 1 (the next migration's author is
 * reminded to add one), an old store used without migrate() is refused and left as it was, and a store newer than
 * the code is refused with STORAGE_SCHEMA_TOO_NEW and left byte-for-byte untouched.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { STORAGE_SCHEMA_VERSION } from '../../src/ports/storage-adapter';
import { createSqliteStorage } from '../../src/sqlite';
import { describeStorageConformance } from '../../src/testing/index';
import { expectCode } from './expect-code';
import { adminPool, closeAdmin, describePostgres, dropSchema, freshSchemaName, pgStorage } from './postgres-available';
import {
  copySqliteSnapshot,
  emptyPostgresRows,
  emptySqliteRows,
  expectRowsReadBack,
  loadPostgresSnapshot,
  snapshotRows,
  snapshotVersions,
} from './schema-snapshots';

/** The first schema version that had a PostgreSQL store. */
const FIRST_POSTGRES_VERSION = 5;
const SQLITE_VERSIONS = snapshotVersions('sqlite');
const POSTGRES_VERSIONS = snapshotVersions('postgres');
const TIMEOUT = 60_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(closeAdmin);

const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const squash = (sql: string | null): string | null => sql?.replace(/\s+/g, ' ').trim() ?? null;

/** A migrated SQLite copy of snapshot `version` (closed and deleted after the case). */
async function migratedSqlite(version: number) {
  const { dir, path } = copySqliteSnapshot(version);
  const storage = createSqliteStorage({ path });
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => storage.close(),
  );
  await storage.migrate();
  return { storage, path };
}

/** Tables and indexes of a SQLite file as `sqlite_master` has them (whitespace of the DDL squashed). */
function sqliteSchema(path: string): unknown[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare(`SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`)
      .all()
      .map((row) => ({ ...(row as Record<string, string>), sql: squash((row as { sql: string | null }).sql) }));
  } finally {
    db.close();
  }
}

describe('schema snapshots: one for every released version', () => {
  it('has a SQLite snapshot and its rows for every version from 1 to STORAGE_SCHEMA_VERSION - 1, and none newer', () => {
    const released = Array.from({ length: STORAGE_SCHEMA_VERSION - 1 }, (_, i) => i + 1);
    expect(
      SQLITE_VERSIONS,
      'a version without a snapshot: run `node --import tsx scripts/make-schema-snapshots.ts`',
    ).toEqual(released);
    expect(snapshotVersions('rows')).toEqual(released);
    expect(POSTGRES_VERSIONS).toEqual(released.filter((v) => v >= FIRST_POSTGRES_VERSION));
    for (const version of released) expect(snapshotRows(version).version).toBe(version);
  });

  it('keeps each SQLite snapshot small, checkpointed and at its version', () => {
    for (const version of SQLITE_VERSIONS) {
      const { dir, path } = copySqliteSnapshot(version);
      try {
        expect(readFileSync(path).length, `sqlite-v${version}.sqlite`).toBeLessThan(200 * 1024);
        const db = new Database(path, { readonly: true });
        expect(db.pragma('user_version', { simple: true })).toBe(version);
        db.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});

describe('schema snapshots: SQLite', () => {
  const fresh = () => {
    const { dir, path } = copySqliteSnapshot(SQLITE_VERSIONS[0]!);
    rmSync(path);
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return path;
  };

  for (const version of SQLITE_VERSIONS) {
    // riverqueue/river#64 and IBM/CAST#699: migrations that passed on an empty database failed on the rows an
    // installed version had written. Here every step from `version` on runs over rows holding NULLs, unicode,
    // 16 KiB texts and 2^53 - 1.
    it(
      `v${version}: migrates to the current version and every row reads back with the values v${version} wrote (riverqueue/river#64)`,
      async () => {
        const { storage } = await migratedSqlite(version);
        expect(await storage.schemaVersion()).toBe(STORAGE_SCHEMA_VERSION);
        await expectRowsReadBack(storage, snapshotRows(version));
      },
      TIMEOUT,
    );

    // mastra-ai/mastra#11789: an upgrade kept an existing table as it was (CREATE TABLE IF NOT EXISTS), so a
    // column the new code writes was missing on upgraded stores only.
    it(
      `v${version}: the migrated schema is a fresh store's: same tables, columns, indexes (mastra-ai/mastra#11789)`,
      async () => {
        const { storage, path } = await migratedSqlite(version);
        await storage.close();
        const freshPath = fresh();
        const made = createSqliteStorage({ path: freshPath });
        await made.migrate();
        await made.close();
        expect(sqliteSchema(path)).toEqual(sqliteSchema(freshPath));
      },
      TIMEOUT,
    );
  }

  // langchain-ai/langgraph#3557: an upgraded library on an old database failed until its setup ran again. Here
  // the repositories refuse an old store with a message naming migrate(), leave the file as it was, and migrate()
  // then keeps every row.
  for (const version of [SQLITE_VERSIONS[0]!, SQLITE_VERSIONS.at(-1)!]) {
    it(
      `v${version}: without migrate() the repositories refuse the old store and leave the file as it was (langchain-ai/langgraph#3557)`,
      async () => {
        const { dir, path } = copySqliteSnapshot(version);
        cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
        const before = sha256(path);
        const s = createSqliteStorage({ path });
        const error = await expectCode(s.settings.get('snap.unicode'), 'STORAGE_FAILED');
        expect(String(error)).toMatch(`schema version ${version}; call migrate() first`);
        await expectCode(s.ledger.get('x'), 'STORAGE_FAILED');
        expect(await s.schemaVersion()).toBe(version);
        await s.close();
        expect(sha256(path)).toBe(before);
        const migrated = createSqliteStorage({ path });
        cleanups.push(() => migrated.close());
        await migrated.migrate();
        await expectRowsReadBack(migrated, snapshotRows(version));
      },
      TIMEOUT,
    );
  }

  it(
    'refuses a snapshot copy whose user_version is newer than the code with STORAGE_SCHEMA_TOO_NEW, byte for byte untouched',
    async () => {
      const newest = SQLITE_VERSIONS.at(-1)!;
      const { dir, path } = copySqliteSnapshot(newest);
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const raw = new Database(path);
      raw.pragma(`user_version = ${STORAGE_SCHEMA_VERSION + 1}`);
      raw.close();
      expect(existsSync(`${path}-wal`)).toBe(false);
      const before = sha256(path);
      const s = createSqliteStorage({ path });
      await expectCode(s.migrate(), 'STORAGE_SCHEMA_TOO_NEW');
      await expectCode(s.runs.get('snap-run-3'), 'STORAGE_SCHEMA_TOO_NEW');
      await expectCode(s.settings.set('k', 1), 'STORAGE_SCHEMA_TOO_NEW');
      expect(await s.schemaVersion()).toBe(STORAGE_SCHEMA_VERSION + 1);
      await s.close();
      expect(sha256(path)).toBe(before);
      expect(existsSync(`${path}-wal`)).toBe(false);
    },
    TIMEOUT,
  );
});

/** A fresh schema loaded from PostgreSQL snapshot `version` (dropped after the case). */
async function loadedSchema(version: number): Promise<string> {
  const schema = freshSchemaName(`ma_snap_v${version}`);
  cleanups.push(() => dropSchema(schema));
  await loadPostgresSnapshot(version, schema);
  return schema;
}

/** Columns and indexes of `schema`, its name replaced by `{schema}`. */
async function pgSchema(schema: string): Promise<unknown> {
  const columns = await adminPool().query(
    `SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity, identity_generation
       FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, ordinal_position`,
    [schema],
  );
  const indexes = await adminPool().query(
    'SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname',
    [schema],
  );
  const constraints = await adminPool().query(
    `SELECT conrelid::regclass::text AS tbl, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE connamespace = $1::regnamespace ORDER BY conname`,
    [schema],
  );
  return JSON.parse(
    JSON.stringify({ columns: columns.rows, indexes: indexes.rows, constraints: constraints.rows }).replaceAll(
      schema,
      '{schema}',
    ),
  );
}

/** Every row of every table of `schema`, as sorted JSON texts per table. */
async function pgRows(schema: string): Promise<Record<string, string[]>> {
  const tables = await adminPool().query('SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename', [
    schema,
  ]);
  const out: Record<string, string[]> = {};
  for (const { tablename } of tables.rows as { tablename: string }[]) {
    const { rows } = await adminPool().query(`SELECT to_jsonb(t)::text AS row FROM "${schema}"."${tablename}" t`);
    out[tablename] = (rows as { row: string }[]).map((r) => r.row).sort();
  }
  return out;
}

/** The columns, indexes and constraints of a fresh schema migrated by today's code (made once, dropped at the end). */
let freshPgSchema: Promise<unknown> | undefined;
function freshPostgresSchema(): Promise<unknown> {
  freshPgSchema ??= (async () => {
    const name = freshSchemaName('ma_snap_fresh');
    const made = pgStorage(name);
    try {
      await made.migrate();
      return await pgSchema(name);
    } finally {
      await made.close();
      await dropSchema(name);
    }
  })();
  return freshPgSchema;
}

describePostgres('schema snapshots: PostgreSQL', () => {
  // One load and migration per version for both checks (each costs seconds on a loaded server).
  for (const version of POSTGRES_VERSIONS) {
    it(
      `v${version}: migrates, every row reads back with the values v${version} wrote (riverqueue/river#64), and the schema is a fresh schema's: same columns, indexes, constraints (mastra-ai/mastra#11789)`,
      async () => {
        const schema = await loadedSchema(version);
        const storage = pgStorage(schema);
        cleanups.push(() => storage.close());
        await storage.migrate();
        expect(await storage.schemaVersion()).toBe(STORAGE_SCHEMA_VERSION);
        await expectRowsReadBack(storage, snapshotRows(version));
        expect(await pgSchema(schema)).toEqual(await freshPostgresSchema());
      },
      TIMEOUT,
    );
  }

  it(
    'refuses a snapshot whose schema_migrations names a newer version with STORAGE_SCHEMA_TOO_NEW, tables and rows untouched',
    async () => {
      const schema = await loadedSchema(POSTGRES_VERSIONS.at(-1)!);
      await adminPool().query(
        `INSERT INTO "${schema}".schema_migrations (version, name, applied_at) VALUES ($1, 'from a newer SDK', 1)`,
        [STORAGE_SCHEMA_VERSION + 1],
      );
      const before = { schema: await pgSchema(schema), rows: await pgRows(schema) };
      const s = pgStorage(schema);
      cleanups.push(() => s.close());
      await expectCode(s.migrate(), 'STORAGE_SCHEMA_TOO_NEW');
      await expectCode(s.runs.get('snap-run-3'), 'STORAGE_SCHEMA_TOO_NEW');
      await expectCode(s.settings.set('k', 1), 'STORAGE_SCHEMA_TOO_NEW');
      expect(await s.schemaVersion()).toBe(STORAGE_SCHEMA_VERSION + 1);
      await s.close();
      expect({ schema: await pgSchema(schema), rows: await pgRows(schema) }).toEqual(before);
    },
    TIMEOUT,
  );
});

/** Whether a conformance case applies to a store migrated from a snapshot (the new-store case does not: see below). */
function appliesToSnapshot(name: string): boolean {
  return !name.startsWith('migrate() sets schemaVersion() to STORAGE_SCHEMA_VERSION');
}

/**
 * The conformance suite's `it` for migrated snapshots: the one case about a NEW store (schemaVersion() is 0 before
 * the first migrate) does not apply to a store that was at an old version; the cases above cover that migration.
 */
function conformanceIt(name: string, fn: () => Promise<void>): void {
  if (!appliesToSnapshot(name)) return;
  it(name, fn, TIMEOUT);
}

/**
 * {@link conformanceIt} for PostgreSQL, where each case loads, migrates and empties a schema of its own (about
 * 1.5 s on the shared server): the cases run a few at a time (vitest's maxConcurrency), each in its own schema.
 */
function concurrentConformanceIt(name: string, fn: () => Promise<void>): void {
  if (!appliesToSnapshot(name)) return;
  it.concurrent(name, fn, TIMEOUT);
}

// The conformance suite on migrated snapshots: SQLite's oldest and newest, PostgreSQL's newest (see the header): each case
// gets a copy migrated by today's code, then emptied of rows (the cases assert exact lists and sequences).
for (const version of [...new Set([SQLITE_VERSIONS[0]!, SQLITE_VERSIONS.at(-1)!])]) {
  describeStorageConformance(
    `sqlite migrated from the v${version} snapshot`,
    async () => {
      const { dir, path } = copySqliteSnapshot(version);
      const migrating = createSqliteStorage({ path });
      await migrating.migrate();
      await migrating.close();
      emptySqliteRows(path);
      return {
        storage: createSqliteStorage({ path }),
        cleanup: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
    { describe, it: conformanceIt },
  );
}
for (const version of [POSTGRES_VERSIONS.at(-1)!]) {
  describeStorageConformance(
    `postgres migrated from the v${version} snapshot`,
    async () => {
      const schema = freshSchemaName(`ma_snap_v${version}`);
      await loadPostgresSnapshot(version, schema);
      const migrating = pgStorage(schema);
      await migrating.migrate();
      await migrating.close();
      await emptyPostgresRows(schema);
      return { storage: pgStorage(schema), cleanup: () => dropSchema(schema) };
    },
    { describe: describePostgres, it: concurrentConformanceIt },
  );
}
