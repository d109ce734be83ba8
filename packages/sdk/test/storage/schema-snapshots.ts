/**
 * The schema snapshots of ./snapshots (README.md there): which exist, a private copy of a SQLite one, a fresh
 * PostgreSQL schema loaded from a dump, and the read-back check of the rows the old version wrote.
 */
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { snapshotSqlFor } from '../../../../scripts/schema-snapshots/dump-sql';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import { adminPool } from './postgres-available';

/** The folder of the snapshots. */
export const SNAPSHOT_DIR = join(import.meta.dirname, 'snapshots');

/** The versions that have a file of `kind`, ascending. */
export function snapshotVersions(kind: 'sqlite' | 'postgres' | 'rows'): number[] {
  const pattern = {
    sqlite: /^sqlite-v(\d+)\.sqlite$/,
    postgres: /^postgres-v(\d+)\.sql$/,
    rows: /^rows-v(\d+)\.json$/,
  }[kind];
  return readdirSync(SNAPSHOT_DIR)
    .map((name) => pattern.exec(name)?.[1])
    .filter((v): v is string => v !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** Path of the SQLite snapshot of `version`. */
export const sqliteSnapshot = (version: number): string => join(SNAPSHOT_DIR, `sqlite-v${version}.sqlite`);

/** A copy of the SQLite snapshot of `version` in a new temporary directory: `{ dir, path }`. */
export function copySqliteSnapshot(version: number): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), `media-agent-snap-v${version}-`));
  const path = join(dir, 'store.sqlite');
  copyFileSync(sqliteSnapshot(version), path);
  if (existsSync(`${sqliteSnapshot(version)}-wal`)) throw new Error(`snapshot v${version} has a -wal file beside it`);
  return { dir, path };
}

/** Creates `schema` on the test server from the PostgreSQL snapshot of `version` (one multi-statement query). */
export async function loadPostgresSnapshot(version: number, schema: string): Promise<void> {
  const sql = readFileSync(join(SNAPSHOT_DIR, `postgres-v${version}.sql`), 'utf8');
  await adminPool().query(snapshotSqlFor(sql, schema));
}

// biome-ignore lint/suspicious/noExplicitAny: the rows of old versions are JSON of shapes that changed since
type Row = Record<string, any>;

/** Every row of the data set as version N's repositories read it back (rows-vN.json). */
export interface SnapshotRows {
  version: number;
  settings: Record<string, unknown>;
  ledger: Row[];
  approvals: Row[];
  grants: Row[];
  plans: Row[];
  policies: Row[];
  audit: Row[];
  runs?: Row[];
  events?: Row[];
  messages?: Row[];
  inbox?: Row[];
  decisions?: Row[];
  grantUsage?: Row[];
  budgetUsage?: Row[];
  reservations?: Row[];
  schedules?: Row[];
  scheduleTicks?: Row[];
  intents?: Row[];
}

/** The rows of version `version`. */
export function snapshotRows(version: number): SnapshotRows {
  return JSON.parse(readFileSync(join(SNAPSHOT_DIR, `rows-v${version}.json`), 'utf8')) as SnapshotRows;
}

/**
 * Asserts that `current` holds every field of `old` with the value it had (`renamed` maps an old field name to
 * today's); fields added since are not compared here.
 */
export function expectSameFields(
  current: Row | undefined,
  old: Row,
  what: string,
  renamed: Record<string, string> = {},
) {
  expect(current, `${what}: missing after the migration`).toBeDefined();
  const picked = Object.fromEntries(Object.keys(old).map((key) => [key, current?.[renamed[key] ?? key]]));
  const expected = Object.fromEntries(Object.entries(old).map(([key, value]) => [key, value]));
  expect(picked, what).toEqual(expected);
}

const byKey = (rows: Row[], key: string): Map<unknown, Row> => new Map(rows.map((row) => [row[key], row]));

/**
 * Reads every row of `rows` back through today's repositories of the migrated `s` and compares each field the
 * old version returned. Decisions written before schema 6 were rebuilt by it: `data` is now `evidence`, and the
 * fields it added hold the documented values (subject type `run`, raised by the run, revision 1, no options).
 * Approvals written before schema 12 read back with no capability, impact, steps or payloads, and the payload hash
 * they were asked for as the proposed one.
 */
export async function expectRowsReadBack(s: StorageAdapter, rows: SnapshotRows): Promise<void> {
  const v = `v${rows.version}`;
  for (const [key, value] of Object.entries(rows.settings))
    expect(await s.settings.get(key), `${v} setting ${key}`).toEqual(value);
  for (const entry of rows.ledger) expectSameFields(await s.ledger.get(entry.key), entry, `${v} ledger ${entry.key}`);
  for (const record of rows.approvals) {
    const current = await s.approvals.get(record.id);
    expectSameFields(current, record, `${v} approval ${record.id}`);
    if (!('steps' in record))
      expect(current, `${v} approval ${record.id}: the fields schema 12 added`).toMatchObject({
        capabilityId: null,
        impact: null,
        steps: [],
        approvedSteps: null,
        proposedPayload: null,
        proposedPayloadHash: record.payloadHash,
        approvedPayload: null,
        executedPayloadHash: null,
      });
  }
  const grants = byKey(await s.grants.list(), 'id');
  for (const record of rows.grants) expectSameFields(grants.get(record.id), record, `${v} grant ${record.id}`);
  for (const record of rows.plans) expectSameFields(await s.plans.get(record.id), record, `${v} plan ${record.id}`);
  const policies = byKey(await s.policies.listByKind('acquisition'), 'id');
  for (const record of rows.policies) expectSameFields(policies.get(record.id), record, `${v} policy ${record.id}`);
  const audit = await s.audit.list();
  expect(
    audit.map((row) => row.id),
    `${v} audit order`,
  ).toEqual(rows.audit.map((row) => row.id));
  const auditById = byKey(audit, 'id');
  for (const row of rows.audit) expectSameFields(auditById.get(row.id), row, `${v} audit ${row.id}`);

  // Schema 5 renamed the run's `plan` (its step list) to `checklist`.
  const runRenamed: Record<string, string> = rows.version < 5 ? { plan: 'checklist' } : {};
  for (const run of rows.runs ?? []) expectSameFields(await s.runs.get(run.id), run, `${v} run ${run.id}`, runRenamed);
  if (rows.version < 5 && rows.runs)
    expect(
      rows.runs.some((run) => run.plan !== null),
      `${v}: a run with a step list to carry over`,
    ).toBe(true);
  for (const runId of new Set((rows.events ?? []).map((e) => e.runId as string))) {
    const events = await s.events.listByRun(runId);
    const old = (rows.events ?? []).filter((e) => e.runId === runId);
    expect(events.length, `${v} events of ${runId}`).toBe(old.length);
    for (const [i, event] of old.entries()) expectSameFields(events[i], event, `${v} event ${runId}#${event.seq}`);
  }
  for (const runId of new Set((rows.messages ?? []).map((m) => m.runId as string))) {
    const messages = await s.messages.list(runId);
    const old = (rows.messages ?? []).filter((m) => m.runId === runId);
    expect(messages.length, `${v} messages of ${runId}`).toBe(old.length);
    for (const [i, message] of old.entries())
      expectSameFields(messages[i], message, `${v} message ${runId}#${message.seq}`);
  }
  if (rows.inbox) {
    const queued = byKey(await s.inbox.listQueued('snap-run-1'), 'id');
    expect([...queued.keys()].sort(), `${v} queued inbox`).toEqual(rows.inbox.map((m) => m.id).sort());
    for (const message of rows.inbox) expectSameFields(queued.get(message.id), message, `${v} inbox ${message.id}`);
  }
  for (const old of rows.decisions ?? []) {
    const current = await s.decisions.get(old.id);
    if ('evidence' in old) {
      expectSameFields(current, old, `${v} decision ${old.id}`);
      continue;
    }
    expectSameFields(current, old, `${v} decision ${old.id} (rebuilt by schema 6)`, { data: 'evidence' });
    expect(current, `${v} decision ${old.id}: the fields schema 6 added`).toMatchObject({
      subjectType: 'run',
      rootCause: null,
      options: [],
      raisedBy: `agent:${old.subjectId}`,
      resolvedBy: null,
      resolution: null,
      revision: 1,
      updatedAt: old.resolvedAt ?? old.createdAt,
    });
  }
  for (const usage of rows.grantUsage ?? [])
    expect(await s.grantUsage.get(usage.grantId, usage.day), `${v} grant usage`).toEqual(usage);
  for (const counters of rows.budgetUsage ?? [])
    expectSameFields(
      await s.budgetUsage.get(counters.subject, counters.period, counters.start),
      counters,
      `${v} budget counters ${counters.subject}/${counters.period}`,
    );
  for (const record of rows.intents ?? [])
    expectSameFields(await s.intents.get(record.key), record, `${v} intent ${record.key}`);
  for (const record of rows.schedules ?? [])
    expectSameFields(await s.schedules.get(record.id), record, `${v} schedule ${record.id}`);
  for (const scheduleId of new Set((rows.scheduleTicks ?? []).map((t) => t.scheduleId as string))) {
    const ticks = await s.schedules.ticks(scheduleId);
    const old = (rows.scheduleTicks ?? []).filter((t) => t.scheduleId === scheduleId);
    expect(ticks.length, `${v} ticks of ${scheduleId}`).toBe(old.length);
    for (const [i, tick] of old.entries()) expectSameFields(ticks[i], tick, `${v} tick ${scheduleId}@${tick.tickAt}`);
  }
  if (rows.reservations) {
    const reservations = byKey(await s.budgetUsage.reservations(), 'key');
    for (const old of rows.reservations)
      expectSameFields(reservations.get(old.key), old, `${v} budget reservation ${old.key}`);
  }
}

/**
 * Deletes every row of a migrated SQLite store except `schema_migrations`, and resets its AUTOINCREMENT counters:
 * the conformance cases assert exact lists and sequences from an empty store (see schema-snapshots.test.ts).
 */
export function emptySqliteRows(path: string): void {
  const db = new Database(path);
  try {
    const tables = db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations'`,
      )
      .all() as { name: string }[];
    db.transaction(() => {
      for (const { name } of tables) db.exec(`DELETE FROM "${name}"`);
      db.exec('DELETE FROM sqlite_sequence');
    })();
  } finally {
    db.close();
  }
}

/** {@link emptySqliteRows} for a PostgreSQL schema: TRUNCATE … RESTART IDENTITY of every table but `schema_migrations`; the event counter back to 0. */
export async function emptyPostgresRows(schema: string): Promise<void> {
  const { rows } = await adminPool().query(
    `SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename NOT IN ('schema_migrations', 'event_sequence')`,
    [schema],
  );
  const tables = (rows as { tablename: string }[]).map((r) => `"${schema}"."${r.tablename}"`).join(', ');
  // event_sequence is the one-row counter run events take their global sequence from: reset, not emptied.
  await adminPool().query(`TRUNCATE ${tables} RESTART IDENTITY; UPDATE "${schema}".event_sequence SET value = 0`);
}
