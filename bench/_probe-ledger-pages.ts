// Ledger key lookups and claims on a large ledger, by page size: what a smaller default page would cost at scale.
// `PAGE=512 N=50000 node --import tsx bench/_probe-ledger-pages.ts` (SHORT=1: 50-character keys instead of the
// runtime's `capability:vN:run:argsHash`, about 118). A store made by SqliteStorage (its page size, auto_vacuum and
// schema), then driven with better-sqlite3 directly: N entries in one transaction, 20,000 random lookups by key,
// 3,000 inserts each in a transaction of its own. CPU time is the figure to compare (wall time is noisy).
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import Database from 'better-sqlite3';
import { createSqliteStorage } from '../packages/sdk/src/sqlite';

const P = Number(process.env.PAGE ?? 1024);
const N = Number(process.env.N ?? 50_000);
const path = `${mkdtempSync('/tmp/ledger-pages-')}/l.sqlite`;
const storage = createSqliteStorage({ path, pageSizeBytes: P });
await storage.migrate();
await storage.close();
const db = new Database(path);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('cache_size = -32768');
const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const key = () => (process.env.SHORT ? `k:${hex(24)}` : `download.plan:v1:run_${hex(16)}:${hex(32)}`);
const insert = db.prepare(`INSERT INTO ledger (key, capability_id, capability_version, scope_id, call_id, args_hash,
  state, token, actor, invocation_id, run_id, grant_id, bytes, output, input_summary, attempts, claimed_at,
  updated_at, settled_at)
  VALUES (?, 'download.plan', 1, ?, ?, ?, 'succeeded', ?, 'user:admin', ?, ?, 'g1', 0, ?, ?, 1, ?, ?, ?)`);
const keys: string[] = [];
const add = (i: number) => {
  const k = key();
  keys.push(k);
  const t = Date.now();
  const out = JSON.stringify({ jobId: 'x'.repeat(60) });
  const input = JSON.stringify({ planId: 'p'.repeat(80) });
  insert.run(k, `run_${i}`, `c${i}`, hex(32), hex(16), hex(16), `run_${i}`, out, input, t, t, t);
};
db.transaction(() => {
  for (let i = 0; i < N; i++) add(i);
})();
db.pragma('wal_checkpoint(TRUNCATE)');
const get = db.prepare('SELECT * FROM ledger WHERE key = ?');
const c0 = process.cpuUsage();
for (let i = 0; i < 20_000; i++) get.get(keys[Math.floor(Math.random() * keys.length)]);
const c1 = process.cpuUsage(c0);
for (let i = 0; i < 3000; i++) db.transaction(() => add(N + i))();
const c2 = process.cpuUsage(c0);
const ms = (c: NodeJS.CpuUsage) => +((c.user + c.system) / 1000).toFixed(0);
console.log(
  JSON.stringify({
    pageSize: P,
    entries: N,
    lookupCpuMs: ms(c1),
    insertCpuMs: ms(c2) - ms(c1),
    pages: db.pragma('page_count', { simple: true }),
  }),
);
db.close();
