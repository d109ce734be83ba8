// How a caller waits for an add-a-film run, and what it costs as the store's history grows: ms per run for each block
// of 20 runs. `bus`: an in-process listener on the run event bus; `events`: the run's event stream,
// `host.events({ runId })` (what the README shows); `poll`: `waitForRunStatus` from `@media-agent/sdk/testing`.
// Usage: node --import tsx bench/_probe-wait.ts sqlite|memory bus|events|poll [runs]
import { startFilmHost } from './_add-a-film-ours';
import { FILM_GOAL } from './_add-a-film';
import { MemoryStorage } from '../packages/sdk/src/storage';
import { createSqliteStorage } from '../packages/sdk/src/sqlite';
import { waitForRunStatus } from '../packages/sdk/src/testing';
import { mkdtempSync } from 'node:fs';
const kind = process.argv[2] ?? 'memory';
const mode = process.argv[3] ?? 'bus';
const N = Number(process.argv[4] ?? 200);
const storage =
  kind === 'sqlite' ? createSqliteStorage({ path: mkdtempSync('/tmp/wm-') + '/a.sqlite' }) : new MemoryStorage();
const h = await startFilmHost(storage as never);
const host = h.host;
const once = async () => {
  if (mode === 'bus') return h.once();
  const run = await host.startRun({ goal: FILM_GOAL, mode: 'execute', actor: 'user:admin' });
  if (mode === 'events') {
    for await (const _e of host.events({ runId: run.id })) {
      /* until the end */
    }
  } else await waitForRunStatus(host, run.id, ['succeeded']);
};
const out: string[] = [];
for (let b = 0; b < N / 20; b++) {
  const t0 = performance.now();
  for (let i = 0; i < 20; i++) await once();
  out.push(((performance.now() - t0) / 20).toFixed(2));
}
await h.check();
console.log(kind, mode, out.join(' '));
await h.close();
