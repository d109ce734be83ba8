// One process of the 4-process PostgreSQL rows of `npm run bench -- loop` (started by _loop-postgres.ts
// with `node --import tsx`). Configuration in the LOOP_PG_WORKER environment variable (JSON):
//   { mode: 'driver', url, schema }            a host (the loop benchmark's) on the shared schema; runs the
//                                              conversation one run at a time (any process may drive it)
//   { mode: 'bare', url, schema, recording }   replays the recorded statements of one run with bare pg
// It answers { type: 'ready' } over IPC; on each { type: 'go', windowMs, warmupMs } it warms up, counts the
// runs (or replays) that end within the window and answers { type: 'done', runs } (or { type: 'failed',
// message }); { type: 'stop' } ends it.
import pg from 'pg';
import type { RunStatus } from '../packages/sdk/src/storage';
import { PostgresStorage } from '../packages/sdk/src/postgres';
import { ourHost } from './loop';
import { replayRecordedRun, type RecordedStatement } from './_loop-postgres-replay';

interface WorkerConfig {
  mode: 'driver' | 'bare';
  url: string;
  schema: string;
  /** Path of the JSON file with the recorded statements (bare mode). */
  recording?: string;
}

const config = JSON.parse(process.env.LOOP_PG_WORKER ?? '') as WorkerConfig;
const send = (m: unknown) => process.send?.(m);

/** Runs the conversation (or its replay) once. */
let once: () => Promise<void>;
let close: () => Promise<void>;
if (config.mode === 'driver') {
  const { host } = await ourHost(
    new PostgresStorage({ connectionString: config.url, schema: config.schema }),
    1,
    'scripted',
  );
  let n = 0;
  once = async () => {
    const run = await host.startRun({
      goal: `Look up the releases (pid ${process.pid}, run ${++n}).`,
      mode: 'plan_only',
      actor: 'user:admin',
    });
    let status: RunStatus | undefined;
    // Any process may drive the run: follow it through storage (LISTEN/NOTIFY wakes the subscriber).
    for await (const e of host.events({ runId: run.id, pollMs: 50 }))
      if (e.type === 'run_status') status = e.data.status;
    if (status !== 'succeeded') throw new Error(`run ${run.id} ended ${status}`);
  };
  close = () => host.stop();
} else {
  const { readFileSync } = await import('node:fs');
  const recording = JSON.parse(readFileSync(config.recording!, 'utf8')) as RecordedStatement[];
  const client = new pg.Client({ connectionString: config.url });
  await client.connect();
  once = () => replayRecordedRun(client, config.schema, recording);
  close = () => client.end();
}

process.on('message', (m: { type: string; windowMs: number; warmupMs: number }) => {
  if (m.type === 'stop') {
    void close()
      .catch(() => undefined)
      .finally(() => process.exit(0));
    return;
  }
  if (m.type !== 'go') return;
  void (async () => {
    try {
      const warm = Date.now() + m.warmupMs;
      while (Date.now() < warm) await once();
      const end = Date.now() + m.windowMs;
      let runs = 0;
      while (Date.now() < end) {
        await once();
        if (Date.now() <= end) runs++;
      }
      send({ type: 'done', runs });
    } catch (error) {
      send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    }
  })();
});
send({ type: 'ready' });
