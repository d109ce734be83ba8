// The PostgreSQL rows of `npm run bench -- loop` (called from loop.ts; files starting with `_` are not
// benchmarks): the run driver on `PostgresStorage` in 1 process and in 4 processes on one schema, each
// against a bare `pg` baseline that sends the same statements in the same transactions.
//
// The baseline: one run of the conversation is driven on `PostgresStorage` with every statement the adapter
// sends recorded (text and values, in order, BEGIN…COMMIT included); "bare pg" replays that recording with
// node-postgres alone on one connection per process — the same rows in the same number of transactions, the
// SDK's ids replaced by fresh ones and the global event sequence the counter hands out passed on as the
// adapter does (bench/_loop-postgres-replay.ts). Its steps/s is the storage work of a run alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { AgentHost, StorageAdapter } from '../packages/sdk/src/index';
import { PostgresStorage } from '../packages/sdk/src/postgres';
import { printTable } from './_report';
import { createBareSchema } from './_bare-postgres';
import { recordStatements, replayRecordedRun, type RecordedStatement } from './_loop-postgres-replay';
import {
  dropPostgresSchema,
  PG_SERVER_URL,
  postgresUnreachable,
} from '../packages/host-adapter-v3/test/scale-out/storage-spec';

/** What loop.ts lends: its host with the benchmark's conversation, and the check that a run played it. */
export interface LoopPostgresDeps {
  ourHost: (
    storage: StorageAdapter,
    concurrency: number,
    kind: 'scripted',
  ) => Promise<{ host: AgentHost; once: () => Promise<void> }>;
  checkOurs: (host: AgentHost) => Promise<void>;
  /** Steps per run. */
  turns: number;
}

/** Host processes of the multi-process rows. */
const PROCESSES = 4;
/** Warm-up of each line before it is measured, ms. */
const WARMUP_MS = 500;
/** Windows per line in the 1-process group (interleaved with the other line), ms each. */
const WINDOW_MS = 1_000;
const ROUNDS = 3;
/** Windows of the 4-process lines ({@link ROUNDS} each, interleaved, the first after a warm-up of {@link WARMUP_MS} × 2), ms. */
const MULTI_WINDOW_MS = 2_000;

const workerScript = fileURLToPath(new URL('./_loop-postgres-worker.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

interface PgLine {
  what: string;
  processes: number;
  runs: number;
  ms: number;
}

async function window(once: () => Promise<void>, ms: number): Promise<{ runs: number; ms: number }> {
  let runs = 0;
  const started = performance.now();
  while (performance.now() - started < ms) {
    await once();
    runs++;
  }
  return { runs, ms: performance.now() - started };
}

/** {@link PROCESSES} worker processes of one kind on one schema, measured window by window. */
interface WorkerGroup {
  /** Every process warms up for `warmupMs`, then counts its runs ending within `windowMs`; resolves with their sum. */
  go(windowMs: number, warmupMs: number): Promise<number>;
  stop(): void;
}

/** Starts {@link PROCESSES} worker processes in `mode` on `schema` and waits until each is ready. */
async function startGroup(mode: 'driver' | 'bare', schema: string, recording?: string): Promise<WorkerGroup> {
  const children: ChildProcess[] = [];
  const exits: Array<Promise<never>> = [];
  const ready: Array<Promise<void>> = [];
  for (let i = 0; i < PROCESSES; i++) {
    const child = spawn(process.execPath, ['--import', 'tsx', workerScript], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: {
        ...process.env,
        LOOP_PG_WORKER: JSON.stringify({ mode, url: PG_SERVER_URL, schema, ...(recording ? { recording } : {}) }),
      },
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    children.push(child);
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`loop worker (${mode}) exited ${code}: ${stderr.trim()}`))),
    );
    exited.catch(() => undefined);
    exits.push(exited);
    ready.push(
      Promise.race([
        new Promise<void>((resolve) => child.on('message', (m: { type: string }) => m.type === 'ready' && resolve())),
        exited,
      ]),
    );
  }
  const stop = () => {
    for (const c of children) if (c.exitCode === null) c.send({ type: 'stop' }, () => undefined);
    for (const c of children) setTimeout(() => c.exitCode === null && c.kill('SIGKILL'), 5_000).unref();
  };
  try {
    await Promise.all(ready);
  } catch (error) {
    stop();
    throw error;
  }
  return {
    stop,
    go: async (windowMs, warmupMs) => {
      const counts = children.map((child, i) =>
        Promise.race([
          new Promise<number>((resolve, reject) => {
            const onMessage = (m: { type: string; runs?: number; message?: string }) => {
              if (m.type !== 'done' && m.type !== 'failed') return;
              child.off('message', onMessage);
              if (m.type === 'done') resolve(m.runs!);
              else reject(new Error(`loop worker (${mode}): ${m.message}`));
            };
            child.on('message', onMessage);
          }),
          exits[i]!,
        ]),
      );
      for (const c of children) c.send({ type: 'go', warmupMs, windowMs });
      return (await Promise.all(counts)).reduce((a, n) => a + n, 0);
    },
  };
}

/**
 * Measures and prints the PostgreSQL lines of the loop benchmark, or one line saying why not (no server at
 * `MEDIA_AGENT_PG_URL`, default `postgres://postgres@127.0.0.1:5432/test`). Every schema it makes is dropped.
 */
export async function runLoopPostgres(deps: LoopPostgresDeps): Promise<void> {
  const unreachable = await postgresUnreachable();
  if (unreachable) {
    console.log(`PostgreSQL lines skipped: no server at ${PG_SERVER_URL} (${unreachable})`);
    return;
  }
  const prefix = `ma_bench_loop_${process.pid}_${Date.now()}`;
  const schemas: string[] = [];
  const schema = (name: string) => {
    schemas.push(`${prefix}_${name}`);
    return `${prefix}_${name}`;
  };
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-bench-loop-pg-'));
  const lines: PgLine[] = [];
  let recording: RecordedStatement[] = [];
  try {
    // Record the statements of one run (after a warm-up), then check the run played the conversation.
    const recordSchema = schema('record');
    const rec = await deps.ourHost(
      new PostgresStorage({ connectionString: PG_SERVER_URL, schema: recordSchema }),
      1,
      'scripted',
    );
    try {
      for (let i = 0; i < 5; i++) await rec.once();
      recording = await recordStatements(recordSchema, rec.once);
      await deps.checkOurs(rec.host);
    } finally {
      await rec.host.stop();
    }
    const recordingFile = join(dir, 'recording.json');
    writeFileSync(recordingFile, JSON.stringify(recording));

    // 1 process: the driver and the bare replay, interleaved.
    const driver = await deps.ourHost(
      new PostgresStorage({ connectionString: PG_SERVER_URL, schema: schema('driver1') }),
      1,
      'scripted',
    );
    const bareSchema = schema('bare1');
    await createBareSchema(PG_SERVER_URL, bareSchema);
    const client = new pg.Client({ connectionString: PG_SERVER_URL });
    await client.connect();
    try {
      const contenders = [
        { what: 'media-agent run driver (PostgresStorage)', once: driver.once, total: { runs: 0, ms: 0 } },
        {
          what: 'bare pg (the recorded statements)',
          once: () => replayRecordedRun(client, bareSchema, recording),
          total: { runs: 0, ms: 0 },
        },
      ];
      for (const c of contenders) await window(c.once, WARMUP_MS);
      for (let round = 0; round < ROUNDS; round++)
        for (let k = 0; k < contenders.length; k++) {
          const c = contenders[(k + round) % contenders.length]!;
          const w = await window(c.once, WINDOW_MS);
          c.total.runs += w.runs;
          c.total.ms += w.ms;
        }
      await deps.checkOurs(driver.host);
      for (const c of contenders) lines.push({ what: c.what, processes: 1, ...c.total });
    } finally {
      await client.end();
      await driver.host.stop();
    }

    // 4 processes on one schema each side: both groups started, then windows in turn.
    const bare4 = schema('bare4');
    await createBareSchema(PG_SERVER_URL, bare4);
    const groups = [
      { what: 'media-agent run driver (PostgresStorage)', group: await startGroup('driver', schema('driver4')) },
      { what: 'bare pg (the recorded statements)', group: await startGroup('bare', bare4, recordingFile) },
    ];
    try {
      const totals = groups.map(() => 0);
      for (let round = 0; round < ROUNDS; round++)
        for (let k = 0; k < groups.length; k++) {
          const i = (k + round) % groups.length;
          totals[i]! += await groups[i]!.group.go(MULTI_WINDOW_MS, round === 0 ? WARMUP_MS * 2 : 0);
        }
      for (const [i, g] of groups.entries())
        lines.push({ what: g.what, processes: PROCESSES, runs: totals[i]!, ms: MULTI_WINDOW_MS * ROUNDS });
    } finally {
      for (const g of groups) g.group.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    for (const s of schemas) await dropPostgresSchema(PG_SERVER_URL, s).catch(() => undefined);
  }

  const stepsPerSec = (l: PgLine) => (l.runs * deps.turns) / (l.ms / 1000);
  const bareOf = (l: PgLine) => lines.find((b) => b.processes === l.processes && b.what.startsWith('bare'))!;
  const transactions = recording.filter((s) => /^\s*BEGIN\b/i.test(s.text)).length;
  console.log('');
  console.log(
    `PostgreSQL (${PG_SERVER_URL}, a fresh schema per line, dropped afterwards): the same conversation, one run at a time per process; ${PROCESSES} processes share one schema and any of them may drive a run another started (followed through storage).`,
  );
  printTable(
    ['implementation', 'processes', 'runs', 'steps/s', 'ms/step', '÷ bare pg'],
    lines.map((l) => {
      const sps = stepsPerSec(l);
      return [
        l.what,
        String(l.processes),
        String(l.runs),
        sps.toLocaleString('en-US', { maximumFractionDigits: 0 }),
        (1000 / sps).toFixed(3),
        l.what.startsWith('bare') ? 'baseline' : (sps / stepsPerSec(bareOf(l))).toFixed(2),
      ];
    }),
    new Set([1, 2, 3, 4, 5]),
  );
  console.log(
    `bare pg = the ${recording.length} statements PostgresStorage sent during one run (${transactions} transactions, the rest on their own), recorded and replayed with node-postgres alone on one connection per process: the same rows in the same transactions, fresh ids, no SDK code. ÷ bare pg = steps/s of the line ÷ steps/s of bare pg with the same number of processes.`,
  );
  console.log(
    `1 process: ${ROUNDS} interleaved windows of ${WINDOW_MS} ms per line after a ${WARMUP_MS} ms warm-up; ${PROCESSES} processes: ${ROUNDS} interleaved windows of ${MULTI_WINDOW_MS} ms per line (the first after a ${WARMUP_MS * 2} ms warm-up), the runs that ended within them counted.`,
  );
}
