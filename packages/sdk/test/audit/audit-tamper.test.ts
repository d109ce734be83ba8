// Tampering with a real store behind the SDK's back — a plain SQL client edits, deletes and inserts audit rows — and
// verify (host.audit.verify() and the `media-agent` command line in a child process) names each. An export is checked
// by an independent verifier written here from docs/audit.md with node:crypto only. Rows written before schema 10 are
// sealed by the migration, once. A pruned prefix verifies with its checkpoint, not without.
// Peer reports: brandonrc/mobula#59 (the chain proves tampering of retained rows; removing the newest rows needs an
// external copy of the head — the export's header and last hash are that copy), TokenDanceLab/AgentHub#1541 (content
// not covered by the hash: here an edited `outcome` is found).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type AgentHost, ConsoleLogger, createAgentHost } from '../../src';
import { ManualClock } from '../../src/ports/clock';
import { AUDIT_GENESIS_HASH } from '../../src/core/audit-chain';
import type { AuditRecord } from '../../src/core/records';
import { SecretRedactor } from '../../src/core/secret-redactor';
import { PostgresStorage } from '../../src/postgres';
import { SqliteStorage } from '../../src/sqlite';
import { redactingStorage } from '../../src/storage/redacting-storage';
import { PG_MIGRATIONS } from '../../src/storage/postgres/migrations';
import { SQLITE_MIGRATIONS } from '../../src/storage/sqlite/migrations';
import { verifyAuditPages } from '../../src/runtime/audit-trail';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import { makeHost } from '../helpers';
import {
  adminPool,
  closeAdmin,
  describePostgres,
  dropSchema,
  freshSchemaName,
  PG_URL,
} from '../storage/postgres-available';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const BIN = join(repoRoot, 'packages/sdk/bin/media-agent.mjs');
const SECRET = 'sk-live-4f9a8b7c6d5e';
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  await closeAdmin();
});

function tempFile(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-audit-'));
  dirs.push(dir);
  return join(dir, name);
}

function row(i: number, overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    id: `row-${i}`,
    seq: 0,
    at: 1_750_000_000_000 + i * 1000,
    action: 'capability.invoke',
    actor: 'user:alice',
    capabilityId: 'media.search',
    invocationId: `inv-${i}`,
    runId: null,
    taskId: null,
    outcome: 'succeeded',
    approvalId: null,
    grantId: null,
    idempotencyKey: null,
    inputSummary: JSON.stringify({ query: `film ${i}`, note: `token ${SECRET}` }),
    reason: null,
    ...overrides,
  };
}

/** Appends rows 1..n through the redaction boundary: odd rows with `audit.append`, even ones batched. */
async function appendRows(storage: StorageAdapter, n: number, from = 1): Promise<void> {
  const view = redactingStorage(storage, new SecretRedactor({ secrets: [SECRET] }));
  const batched: Promise<void>[] = [];
  for (let i = from; i < from + n; i++)
    if (i % 2) await view.audit.append(row(i));
    else batched.push(view.appendAuditBatched(row(i)));
  await Promise.all(batched);
}

/** The `media-agent` command line in a child process. */
function cli(
  args: string[],
  as: { uid?: number; gid?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: repoRoot, ...as });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * An independent verifier of an export, from docs/audit.md alone (node:crypto, no SDK code): the header's prevHash
 * starts the chain; each row's hash is SHA-256 of prevHash, "\n" and the canonical JSON of its content (keys sorted,
 * no whitespace). Returns the last hash, or throws at the first row that does not verify.
 */
function independentVerify(text: string): string {
  const [header, ...rows] = text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  if (header!.format !== 'media-agent-audit/1' || header!.algorithm !== 'sha256') throw new Error('unknown format');
  let prev = header!.prevHash as string;
  for (const r of rows) {
    const { seq, prevHash, hash, ...content } = r;
    const canonical = `{${Object.keys(content)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${JSON.stringify(content[k])}`)
      .join(',')}}`;
    const digest = createHash('sha256').update(`${prevHash}\n${canonical}`, 'utf8').digest('hex');
    if (prevHash !== prev || digest !== hash) throw new Error(`row ${seq} does not verify`);
    prev = hash as string;
  }
  return prev;
}

async function collect(lines: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const line of lines) out += line;
  return out;
}

describe('audit chain on SQLite: tampering found by host.audit.verify() and the command line', () => {
  let host: AgentHost | undefined;
  afterEach(async () => {
    await host?.stop();
    host = undefined;
  });

  it('an untouched store verifies (API and CLI, exit 0); rows are hashed after redaction; an export verifies independently', async () => {
    const made = await makeHost({ kind: 'sqlite' });
    host = made.host;
    const path = (made.storage as SqliteStorage).path;
    await appendRows(made.storage, 8);
    const rows = await host.audit({ limit: 100 });
    expect(rows).toHaveLength(8);
    expect(rows.every((r) => !r.inputSummary.includes(SECRET))).toBe(true); // redacted before hashing
    expect(rows[0]!.prevHash).toBe(AUDIT_GENESIS_HASH);
    const result = await host.audit.verify();
    expect(result).toMatchObject({ ok: true, rows: 8, headHash: rows[7]!.hash, breakCount: 0 });

    const exported = await collect(host.audit.export());
    expect(independentVerify(exported)).toBe(result.headHash);
    // a segment by time verifies on its own, from the hash of the row before it
    const segment = await collect(host.audit.export({ from: rows[3]!.at, to: rows[6]!.at }));
    expect(JSON.parse(segment.split('\n')[0]!)).toMatchObject({ prevHash: rows[2]!.hash, from: rows[3]!.at });
    expect(segment.trimEnd().split('\n')).toHaveLength(4); // header + rows 4, 5, 6
    expect(independentVerify(segment)).toBe(rows[5]!.hash);

    const verified = await cli(['audit', 'verify', path]);
    expect(verified).toMatchObject({ code: 0 });
    expect(verified.stdout).toContain('audit chain intact: 8 rows');
    const out = tempFile('audit.jsonl');
    expect(await cli(['audit', 'export', path, '--out', out])).toMatchObject({ code: 0 });
    expect(independentVerify(readFileSync(out, 'utf8'))).toBe(result.headHash);
  }, 60_000);

  it('an edit, a deletion and an insertion with a plain SQLite client are each named, by the API and by the CLI (exit 1)', async () => {
    const made = await makeHost({ kind: 'sqlite' });
    host = made.host;
    const path = (made.storage as SqliteStorage).path;
    await appendRows(made.storage, 8);
    const raw = new Database(path);
    raw.prepare(`UPDATE audit SET outcome = 'failed' WHERE seq = 3`).run();
    raw.prepare('DELETE FROM audit WHERE seq = 5').run();
    raw
      .prepare(
        `INSERT INTO audit (id, at, action, actor, capability_id, invocation_id, outcome, input_summary)
         VALUES ('forged', 1, 'capability.invoke', 'user:mallory', 'media.delete', 'inv-x', 'succeeded', '{}')`,
      )
      .run();
    raw.close();
    // the SDK appends on: its row links to the last chained row, past the forged one
    await appendRows(made.storage, 1, 9);

    const result = await host.audit.verify();
    expect(result.ok).toBe(false);
    expect(result.breaks.map((b) => [b.seq, b.change])).toEqual([
      [3, 'edited'],
      [6, 'deleted'],
      [9, 'inserted'],
    ]);
    expect(result.firstBreak).toMatchObject({ seq: 3, id: 'row-3', change: 'edited' });
    await expect(host.audit.verify({ throwOnBreak: true })).rejects.toMatchObject({
      code: 'AUDIT_CHAIN_BROKEN',
      details: { firstBreak: { seq: 3, change: 'edited' } },
    });

    const human = await cli(['audit', 'verify', path]);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('first break: seq 3, id row-3: edited');
    expect(human.stdout).toContain('seq 6, id row-6: deleted');
    expect(human.stdout).toContain('seq 9, id forged: inserted');
    const json = await cli(['audit', 'verify', path, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, breakCount: 3, firstBreak: { seq: 3 } });
  }, 60_000);

  it('a prefix pruned with its audit.pruned checkpoint verifies; without one it is reported deleted', async () => {
    const path = tempFile('pruned.sqlite');
    const storage = new SqliteStorage({ path });
    await storage.migrate();
    await appendRows(storage, 6);
    const removed = (await storage.audit.list({ limit: 3 })) as AuditRecord[];
    const raw = new Database(path);
    raw.prepare('DELETE FROM audit WHERE seq <= 3').run();
    raw.close();
    expect(await verifyAuditPages((after, limit) => storage.audit.list({ after, limit }))).toMatchObject({
      ok: false,
      firstBreak: { seq: 4, change: 'deleted' },
    });
    expect((await cli(['audit', 'verify', path])).code).toBe(1);
    // what retention appends after removing rows 1..3
    await storage.audit.append(
      row(100, {
        id: 'checkpoint-1',
        action: 'audit.pruned',
        actor: 'system:maintenance',
        capabilityId: 'maintenance.prune',
        invocationId: 'prune-1',
        inputSummary: `{"firstSeq":1,"headHash":"${removed[2]!.hash}","rows":3,"throughSeq":3}`,
      }),
    );
    expect(await verifyAuditPages((after, limit) => storage.audit.list({ after, limit }))).toMatchObject({
      ok: true,
      rows: 4,
      checkpoints: 1,
    });
    const verified = await cli(['audit', 'verify', path, '--json']);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, checkpoints: 1 });
    await storage.close();
  }, 60_000);

  it('rows of a version 9 store are sealed once by the migration to 10; a row inserted later without a hash is reported, never sealed', async () => {
    const path = tempFile('v9.sqlite');
    const raw = new Database(path);
    for (const m of SQLITE_MIGRATIONS.filter((m) => m.version <= 9)) for (const sql of m.statements) raw.exec(sql);
    raw.pragma('user_version = 9');
    const insert = raw.prepare(
      `INSERT INTO audit (id, at, action, actor, capability_id, invocation_id, outcome, input_summary, reason)
       VALUES (?, ?, 'capability.invoke', 'user:alice', 'media.search', ?, 'succeeded', '{}', ?)`,
    );
    raw.transaction(() => {
      for (let i = 1; i <= 1200; i++) insert.run(`old-${i}`, i, `inv-${i}`, i % 7 ? null : 'r'); // > 2 seal pages
    })();
    raw.close();
    expect((await cli(['audit', 'verify', path, '--json'])).stdout).toContain('STORAGE_SCHEMA_TOO_OLD');

    const storage = new SqliteStorage({ path });
    await storage.migrate();
    const read = (after: number, limit: number) => storage.audit.list({ after, limit });
    expect(await verifyAuditPages(read)).toMatchObject({ ok: true, rows: 1200 });
    expect((await storage.audit.list({ limit: 1 }))[0]!.prevHash).toBe(AUDIT_GENESIS_HASH);
    await storage.close();

    const again = new Database(path);
    again
      .prepare(
        `INSERT INTO audit (id, at, action, actor, capability_id, invocation_id, outcome, input_summary)
         VALUES ('late', 1, 'capability.invoke', 'user:mallory', 'c', 'i', 'succeeded', '{}')`,
      )
      .run();
    again.close();
    const reopened = new SqliteStorage({ path });
    await reopened.migrate(); // at 10 already: nothing is sealed again
    expect(await verifyAuditPages((after, limit) => reopened.audit.list({ after, limit }))).toMatchObject({
      ok: false,
      firstBreak: { seq: 1201, id: 'late', change: 'inserted' },
    });
    await reopened.close();
  }, 60_000);

  it('the command line: usage errors and a missing file exit 2; a newer schema is named', async () => {
    expect((await cli(['audit'])).code).toBe(2);
    const missing = await cli(['audit', 'verify', tempFile('none.sqlite'), '--json']);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout).error.code).toMatch(/^STORAGE_/);
    const newer = tempFile('newer.sqlite');
    const raw = new Database(newer);
    raw.pragma('user_version = 99');
    raw.close();
    const result = await cli(['audit', 'verify', newer]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('STORAGE_SCHEMA_TOO_NEW');
  }, 60_000);

  it('the command line only reads: no -wal/-shm beside the file, its bytes and mtime unchanged; a user who may only read it (nobody, read-only directory) verifies it', async () => {
    const path = tempFile('readonly.sqlite');
    const storage = new SqliteStorage({ path });
    await storage.migrate();
    await appendRows(storage, 4);
    await storage.close();
    const dir = dirname(path);
    chmodSync(dir, 0o755);
    chmodSync(path, 0o644);
    const before = { bytes: readFileSync(path), mtime: statSync(path).mtimeMs, files: readdirSync(dir).sort() };
    expect(before.files).toEqual(['readonly.sqlite']);
    const verified = await cli(['audit', 'verify', path, '--json']);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, rows: 4 });
    expect((await cli(['audit', 'export', path])).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(before.files);
    expect(readFileSync(path).equals(before.bytes)).toBe(true);
    expect(statSync(path).mtimeMs).toBe(before.mtime);
    if (process.getuid?.() === 0) {
      // as `nobody`: the directory is root's, so SQLite could create no -shm there (SQLITE_READONLY_DIRECTORY before)
      const asNobody = await cli(['audit', 'verify', path, '--json'], { uid: 65534, gid: 65534 });
      expect(asNobody.stderr).toBe('');
      expect(asNobody.code).toBe(0);
      expect(JSON.parse(asNobody.stdout)).toMatchObject({ ok: true, rows: 4 });
      expect(readdirSync(dir).sort()).toEqual(before.files);
    }
  }, 60_000);

  it('a forged audit.pruned checkpoint hides a deleted prefix only from a verifier without the key; retention signs its own', async () => {
    const KEY = 'checkpoint-key-kept-off-the-database';
    const path = tempFile('signed.sqlite');
    const storage = new SqliteStorage({ path });
    await storage.migrate();
    await appendRows(storage, 8);
    host = createAgentHost({
      storage,
      clock: new ManualClock(Date.parse('2030-01-01')),
      logger: new ConsoleLogger('silent'),
      maintenance: { schedule: false },
      retention: { audit: { maxAgeDays: 1, maxCount: 4 } },
      audit: { checkpointKey: KEY },
    });
    await host.start({ workers: false });
    expect((await host.maintenance.prune()).kinds.audit?.rows).toBe(4);
    expect(await host.audit.verify()).toMatchObject({
      ok: true,
      checkpoints: 1,
      checkpointsUnsigned: 0,
      checkpointsSigned: true,
    });
    const [cp] = await host.audit({ action: 'audit.pruned' });
    expect(JSON.parse(cp!.inputSummary)).toMatchObject({
      firstSeq: 1,
      throughSeq: 4,
      signature: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    // A database editor deletes the oldest rows left and appends a checkpoint for them whose hash is computed right.
    const kept = await storage.audit.list({ limit: 100 });
    const raw = new Database(path);
    raw.prepare('DELETE FROM audit WHERE seq <= ?').run(kept[1]!.seq);
    raw.close();
    await storage.audit.append(
      row(200, {
        id: 'forged-checkpoint',
        action: 'audit.pruned',
        actor: 'system:maintenance',
        capabilityId: 'maintenance.prune',
        invocationId: 'prune-forged',
        inputSummary: `{"firstSeq":${kept[0]!.seq},"headHash":"${kept[1]!.hash}","rows":2,"throughSeq":${kept[1]!.seq}}`,
      }),
    );
    const found = await host.audit.verify(); // the host's key by default
    expect(found).toMatchObject({
      ok: false,
      firstBreak: { seq: kept[2]!.seq, change: 'deleted' },
      checkpointsUnsigned: 1,
    });
    const keyFile = tempFile('audit.key');
    writeFileSync(keyFile, `${KEY}\n`);
    const withFile = await cli(['audit', 'verify', path, '--key-file', keyFile]);
    expect(withFile.code).toBe(1);
    expect(withFile.stdout).toContain(`first break: seq ${kept[2]!.seq}, id row-7: deleted`);
    const withEnv = await cli(['audit', 'verify', path, '--json'], {
      env: { ...process.env, MEDIA_AGENT_AUDIT_KEY: KEY },
    });
    expect(withEnv.code).toBe(1);
    // Without a key the forgery passes, and the verifier says checkpoints were trusted by their structure only.
    const withoutKey = await cli(['audit', 'verify', path], { env: { ...process.env, MEDIA_AGENT_AUDIT_KEY: '' } });
    expect(withoutKey.code).toBe(0);
    expect(withoutKey.stdout).toContain('2 pruning checkpoint(s) trusted by their structure only');
    expect((await cli(['audit', 'verify', path, '--key-file', tempFile('missing.key')])).code).toBe(2);
  }, 60_000);

  it('an export range whose from is after its to is a usage error: exit 2 in the CLI, REQUEST_INVALID at host.audit.export()', async () => {
    const made = await makeHost({ kind: 'sqlite' });
    host = made.host;
    await appendRows(made.storage, 2);
    const path = (made.storage as SqliteStorage).path;
    const reversed = await cli(['audit', 'export', path, '--from', '2030-01-01', '--to', '2020-01-01', '--json']);
    expect(reversed.code).toBe(2);
    expect(JSON.parse(reversed.stdout).error).toMatchObject({ code: 'USAGE' });
    expect(reversed.stdout).toContain('is after --to');
    const from = Date.parse('2030-01-01');
    const to = Date.parse('2020-01-01');
    expect(() => host!.audit.export({ from, to })).toThrow(expect.objectContaining({ code: 'REQUEST_INVALID' }));
    expect((await cli(['audit', 'export', path, '--from', '2020-01-01', '--to', '2020-01-01'])).code).toBe(0);
  }, 60_000);
});

describePostgres('audit chain on PostgreSQL: tampering with a pg client, sealing, the command line', () => {
  let schema: string;
  let storage: PostgresStorage | undefined;
  afterEach(async () => {
    await storage?.close();
    storage = undefined;
    await dropSchema(schema);
  });
  const url = () => `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}schema=${schema}`;

  it('edits, deletions and insertions with a pg Pool are named by the API and the CLI; an export verifies independently', async () => {
    schema = freshSchemaName('ma_tamper');
    storage = new PostgresStorage({ connectionString: PG_URL, schema, poolSize: 2 });
    await storage.migrate();
    await appendRows(storage, 8);
    const read = (after: number, limit: number) => storage!.audit.list({ after, limit });
    const intact = await verifyAuditPages(read);
    expect(intact).toMatchObject({ ok: true, rows: 8 });
    const exported = await cli(['audit', 'export', url()]);
    expect(exported.code).toBe(0);
    expect(independentVerify(exported.stdout)).toBe(intact.headHash);
    expect((await cli(['audit', 'verify', url()])).code).toBe(0);

    const raw = new pg.Pool({ connectionString: PG_URL, max: 1 });
    await raw.query(`UPDATE "${schema}".audit SET reason = 'edited' WHERE seq = 2`);
    await raw.query(`DELETE FROM "${schema}".audit WHERE seq = 6`);
    await raw.query(
      `INSERT INTO "${schema}".audit (id, at, action, actor, capability_id, invocation_id, outcome, input_summary)
       VALUES ('forged', 1, 'capability.invoke', 'user:mallory', 'media.delete', 'inv-x', 'succeeded', '{}')`,
    );
    await raw.end();
    const result = await verifyAuditPages(read);
    expect(result.breaks.map((b) => [b.seq, b.change])).toEqual([
      [2, 'edited'],
      [7, 'deleted'],
      [9, 'inserted'],
    ]);
    const json = await cli(['audit', 'verify', url(), '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).breaks.map((b: { seq: number; change: string }) => `${b.seq}:${b.change}`)).toEqual([
      '2:edited',
      '7:deleted',
      '9:inserted',
    ]);
  }, 90_000);

  it('rows of a version 9 schema are sealed by the migration to 10, in seq order', async () => {
    schema = freshSchemaName('ma_seal');
    const admin = adminPool();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(
      `CREATE TABLE "${schema}".schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`,
    );
    for (const m of PG_MIGRATIONS.filter((m) => m.version <= 9)) {
      for (const sql of m.statements) await admin.query(sql.replaceAll('{schema}', schema));
      await admin.query(`INSERT INTO "${schema}".schema_migrations (version, name, applied_at) VALUES ($1, $2, 1)`, [
        m.version,
        m.name,
      ]);
    }
    await admin.query(
      `INSERT INTO "${schema}".audit (id, at, action, actor, capability_id, invocation_id, outcome, input_summary)
       SELECT 'old-' || g, g, 'capability.invoke', 'user:alice', 'media.search', 'inv-' || g, 'succeeded', '{}'
       FROM generate_series(1, 1100) AS g`,
    );
    expect((await cli(['audit', 'verify', url()])).code).toBe(2); // version 9: too old for the reader
    storage = new PostgresStorage({ connectionString: PG_URL, schema, poolSize: 2 });
    await storage.migrate();
    const read = (after: number, limit: number) => storage!.audit.list({ after, limit });
    expect(await verifyAuditPages(read)).toMatchObject({ ok: true, rows: 1100 });
    await appendRows(storage, 2, 2000);
    expect(await verifyAuditPages(read)).toMatchObject({ ok: true, rows: 1102 });
    expect((await cli(['audit', 'verify', url()])).code).toBe(0);
  }, 90_000);
});
