import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFilmHost } from './_add-a-film-ours';
import { createSqliteStorage } from '../packages/sdk/src/sqlite';
import { MemoryStorage } from '../packages/sdk/src/storage';

const wchar = () => Number(/wchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
const kind = process.argv[2] ?? 'sqlite';
const N = Number(process.argv[3] ?? 200);
const dir = mkdtempSync(join(tmpdir(), 'film-'));
const storage =
  kind === 'sqlite'
    ? createSqliteStorage({
        path: join(dir, 'a.sqlite'),
        ...(process.env.PAGE ? { pageSizeBytes: Number(process.env.PAGE) } : {}),
      })
    : new MemoryStorage();
const h = await startFilmHost(storage as never);
for (let i = 0; i < 20; i++) {
  await h.once();
}
await h.check();
const { Session } = await import('node:inspector/promises');
const session = new Session();
if (process.env.PROF) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
}
const w0 = wchar();
const c0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  await h.once();
}
const ms = performance.now() - t0;
const cpu = process.cpuUsage(c0);
const w = wchar() - w0;
if (process.env.PROF) {
  const { profile } = await session.post('Profiler.stop');
  (await import('node:fs')).writeFileSync(process.env.PROF, JSON.stringify(profile));
}
await h.check();
console.log(
  JSON.stringify({
    kind,
    N,
    msPerRun: +(ms / N).toFixed(3),
    cpuMsPerRun: +((cpu.user + cpu.system) / 1000 / N).toFixed(3),
    kibPerRun: +(w / 1024 / N).toFixed(1),
  }),
);
await h.close();
