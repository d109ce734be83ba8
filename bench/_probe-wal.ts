// Which b-trees (tables, indexes) one add-a-film run writes to the WAL, page by page, per commit.
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync } from 'node:fs';
import { startFilmHost } from './_add-a-film-ours';
import { createSqliteStorage } from '../packages/sdk/src/sqlite';
const path = mkdtempSync('/tmp/w-') + '/a.sqlite';
const h = await startFilmHost(
  createSqliteStorage({ path, ...(process.env.PAGE ? { pageSizeBytes: Number(process.env.PAGE) } : {}) }) as never,
);
for (let i = 0; i < Number(process.env.WARM ?? 20); i++) await h.once();
const side = new Database(path);
side.pragma('wal_checkpoint(TRUNCATE)');
const before = new Map<number, string>();
for (const r of side.prepare('SELECT name, pageno FROM dbstat').all() as { name: string; pageno: number }[])
  before.set(r.pageno, r.name);
await h.once();
const wal = readFileSync(path + '-wal');
const pageSize = wal.readUInt32BE(8);
const names = new Map<number, string>();
for (const r of side.prepare('SELECT name, pageno FROM dbstat').all() as { name: string; pageno: number }[])
  names.set(r.pageno, r.name);
const byName = new Map<string, number>();
let frames = 0;
let commits = 0;
let line: string[] = [];
for (let off = 32; off + 24 + pageSize <= wal.length; off += 24 + pageSize) {
  const pg = wal.readUInt32BE(off);
  const commit = wal.readUInt32BE(off + 4);
  const a = names.get(pg);
  const b = before.get(pg);
  const n =
    pg === 1
      ? 'page1'
      : a === undefined && b === undefined
        ? 'ptrmap/freelist'
        : a === b || b === undefined
          ? a!
          : a === undefined
            ? `${b}(freed)`
            : `${a}|${b}`;
  byName.set(n, (byName.get(n) ?? 0) + 1);
  line.push(n);
  frames++;
  if (commit) {
    commits++;
    if (process.env.SEQ) console.log(`commit ${commits}: ${line.join(' ')}`);
    line = [];
  }
}
console.log('frames', frames, 'commits', commits, 'KiB', ((frames * (pageSize + 24)) / 1024).toFixed(1));
for (const [k, v] of [...byName].sort((a, b) => b[1] - a[1])) console.log(String(v).padStart(4), k);
await h.close();
