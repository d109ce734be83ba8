import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync } from 'node:fs';
import { startFilmHost } from './_add-a-film-ours';
import { createSqliteStorage } from '../packages/sdk/src/sqlite';
const counts = new Map<string, number>();
const times = new Map<string, number>();
let on = false;
const seq: string[] = [];
let trace = false;
const bump = (k: string) => {
  if (on) counts.set(k, (counts.get(k) ?? 0) + 1);
  if (trace) seq.push(k.slice(0, 110));
  if (trace && process.env.STACK && k.includes(process.env.STACK))
    console.log(
      k.slice(0, 80),
      new Error()
        .stack!.split('\n')
        .filter((l) => l.includes('/src/'))
        .filter((l) => !l.includes('storage/sq'))
        .slice(0, 6)
        .join('\n'),
    );
};
const proto = (Database as unknown as { prototype: Record<string, (...a: unknown[]) => unknown> }).prototype;
const prep = proto.prepare!;
proto.prepare = function (this: unknown, sql: unknown) {
  const st = prep.call(this, sql) as Record<string, (...a: unknown[]) => unknown>;
  const key = String(sql).replace(/\s+/g, ' ').slice(0, 150);
  for (const m of ['run', 'get', 'all', 'iterate']) {
    const f = st[m]!.bind(st);
    st[m] = (...a: unknown[]) => {
      bump(`${m} ${key}`);
      const t = process.hrtime.bigint();
      try {
        return f(...a);
      } finally {
        if (on) times.set(`${m} ${key}`, (times.get(`${m} ${key}`) ?? 0) + Number(process.hrtime.bigint() - t) / 1e6);
      }
    };
  }
  return st;
};
const ex = proto.exec!;
proto.exec = function (this: unknown, sql: unknown) {
  bump(`exec ${String(sql).slice(0, 80)}`);
  return ex.call(this, sql);
};
const pr = proto.pragma!;
proto.pragma = function (this: unknown, ...a: unknown[]) {
  bump(`pragma ${String(a[0])}`);
  return pr.apply(this, a);
};
const wchar = () => Number(/wchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
const h = await startFilmHost(createSqliteStorage({ path: mkdtempSync('/tmp/f-') + '/a.sqlite' }) as never);
for (let i = 0; i < 20; i++) await h.once();
const N = 50;
on = true;
const w0 = wchar();
for (let i = 0; i < N; i++) await h.once();
on = false;
const w = wchar() - w0;
trace = true;
await h.once();
trace = false;
if (process.env.SEQ) {
  console.log(seq.join('\n'));
  process.exit(0);
}
const rows = [...counts].sort((a, b) => b[1] - a[1]);
let total = 0;
for (const [, n] of rows) total += n;
console.log('statements/run', (total / N).toFixed(1), 'KiB/run', (w / 1024 / N).toFixed(1));
let ms = 0;
for (const [, t] of times) ms += t;
console.log('statement ms/run', (ms / N).toFixed(3));
for (const [k, n] of rows)
  console.log((n / N).toFixed(2).padStart(6), (((times.get(k) ?? 0) / N) * 1000).toFixed(0).padStart(5) + 'us', k);
await h.close();
