/**
 * The storage floor of a durable add-a-film run on SQLite: the exact statements media-agent's runs issued
 * (captured with their parameters, transactions included), replayed on bare better-sqlite3 with the same pragmas,
 * on a copy of the same database — no runtime, no mapping, no JSON (the audit chain link, which the runtime computes in
 * JavaScript, is a constant). What is left is what the statements themselves
 * cost; a durable run of this design cannot take less.
 *
 * Rounds interleave the replay with media-agent's own SQLite runs and its memory runs (the same workload), so
 * the three figures share the machine's state. Usage: `node --import tsx bench/_probe-sql-floor.ts [runs] [rounds]`.
 */
import Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFilmHost } from './_add-a-film-ours';
import { createSqliteStorage } from '../packages/sdk/src/sqlite';
import { MemoryStorage } from '../packages/sdk/src/storage';
import { formatSpread, spread } from './_stats';

const N = Number(process.argv[2] ?? 50);
const ROUNDS = Number(process.argv[3] ?? 9);
const wchar = () => Number(/wchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

type Call = { sql: string; method: 'run' | 'get' | 'all'; params: unknown[] };
const pragmas: string[] = [];
let capture: Call[] | undefined;
let replaying = false;
const proto = (Database as unknown as { prototype: Record<string, (...a: unknown[]) => unknown> }).prototype;
const prepare = proto.prepare!;
proto.prepare = function (this: unknown, sql: unknown) {
  const statement = prepare.call(this, sql) as Record<string, (...a: unknown[]) => unknown>;
  for (const method of ['run', 'get', 'all'] as const) {
    const f = statement[method]!.bind(statement);
    statement[method] = (...params: unknown[]) => {
      capture?.push({ sql: String(sql), method, params: structuredClone(params) });
      return f(...params);
    };
  }
  return statement;
};
const pragma = proto.pragma!;
proto.pragma = function (this: unknown, ...a: unknown[]) {
  if (!replaying && typeof a[0] === 'string' && a[0].includes('=')) pragmas.push(a[0]);
  return pragma.apply(this, a);
};

const dir = mkdtempSync(join(tmpdir(), 'sql-floor-'));
const file = join(dir, 'agent.sqlite');
const film = await startFilmHost(createSqliteStorage({ path: file }) as never);
for (let i = 0; i < 20; i++) await film.once();
// The state the captured runs start from: checkpointed into the main file, then copied.
const side = new Database(file);
side.pragma('wal_checkpoint(TRUNCATE)');
side.close();
const start = join(dir, 'start.sqlite');
copyFileSync(file, start);
const captured: Call[] = [];
capture = captured;
for (let i = 0; i < N; i++) await film.once();
capture = undefined;
await film.check();
await film.close();
const commits = captured.filter((c) => c.sql === 'COMMIT').length / N;
console.log(`captured ${N} runs: ${(captured.length / N).toFixed(1)} statements and ${commits} commits per run`);

/** Replays the captured statements on a fresh copy of the start state; ms and KiB written per run. */
function replay(round: number): { ms: number; kib: number } {
  const path = join(dir, `replay-${round}.sqlite`);
  copyFileSync(start, path);
  replaying = true;
  const db = new Database(path);
  for (const p of [...new Set(pragmas)]) if (!/page_size|auto_vacuum/.test(p)) db.pragma(p);
  // The audit chain link is computed in JavaScript by the runtime; here it is a constant (no runtime work).
  db.function('media_agent_audit_row_hash', { deterministic: false }, (_head: unknown) => 'f'.repeat(64));
  const statements = new Map<string, Database.Statement>();
  for (const c of captured) if (!statements.has(c.sql)) statements.set(c.sql, db.prepare(c.sql));
  const w0 = wchar();
  const t0 = performance.now();
  for (const c of captured)
    (statements.get(c.sql) as unknown as Record<string, (...a: unknown[]) => unknown>)[c.method]!(...c.params);
  const ms = (performance.now() - t0) / N;
  const kib = (wchar() - w0) / 1024 / N;
  db.close();
  replaying = false;
  rmSync(path, { force: true });
  rmSync(`${path}-wal`, { force: true });
  rmSync(`${path}-shm`, { force: true });
  return { ms, kib };
}

const sqlite = await startFilmHost(createSqliteStorage({ path: join(dir, 'runtime.sqlite') }) as never);
const memory = await startFilmHost(new MemoryStorage() as never);
const timed = async (h: typeof sqlite) => {
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await h.once();
  return (performance.now() - t0) / N;
};
for (let i = 0; i < 40; i++) {
  await sqlite.once();
  await memory.once();
}
replay(-1);
const rows: Array<{ floor: number; kib: number; sqlite: number; memory: number }> = [];
for (let r = 0; r < ROUNDS; r++) {
  const { ms, kib } = replay(r);
  rows.push({ floor: ms, kib, sqlite: await timed(sqlite), memory: await timed(memory) });
}
await sqlite.close();
await memory.close();
rmSync(dir, { recursive: true, force: true });
const fmt = (xs: number[]) => formatSpread(spread(xs), 2);
console.log(`${ROUNDS} rounds × ${N} runs, median (IQR), ms per run`);
console.log(
  `  statements replayed on bare better-sqlite3: ${fmt(rows.map((r) => r.floor))}, ${spread(rows.map((r) => r.kib)).median.toFixed(1)} KiB written`,
);
console.log(`  media-agent on SQLite:                      ${fmt(rows.map((r) => r.sqlite))}`);
console.log(`  media-agent in memory:                      ${fmt(rows.map((r) => r.memory))}`);
console.log(`  SQLite − memory (the storage's whole cost):  ${fmt(rows.map((r) => r.sqlite - r.memory))}`);
console.log(`  replayed statements ÷ (SQLite − memory):    ${fmt(rows.map((r) => r.floor / (r.sqlite - r.memory)))}`);
