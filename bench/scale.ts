/**
 * Benchmark `scale`: the scale-out scenario at a larger count. {@link PROCESSES} host processes (real
 * child processes, `node --import tsx`) share one database and drive {@link RUNS} add-a-film runs (one
 * distinct film each) against one MoviePilot 3.x simulator over HTTP, while a controller SIGKILLs a
 * random worker at random moments and starts it again. Each worker drives
 * up to {@link CONCURRENCY} runs at once with a {@link LEASE_MS} ms lease (a killed worker's runs are
 * taken over by the others after it), and subscribes to every event of every process from the first.
 * The first {@link AIMED_KILLS} kills wait until the simulator holds the answer to a `download.add` it
 * already executed ({@link SUBMIT_ANSWER_DELAY_MS} ms) and kill the process that sent it, so the takeover of a
 * submit whose outcome is unknown happens in every run of the benchmark; the rest hit a random worker.
 * A killed worker is started again at once; each kill comes {@link KILL_MIN_MS}–{@link KILL_MAX_MS} ms
 * after the previous one, and only while fewer than {@link MAX_DOWN} processes are down (killed and not
 * back yet).
 *
 * Each storage runs the scenario twice, on a fresh database each time: without kills (the throughput of
 * the processes together) and with them. Printed per line (a SQLite file in `os.tmpdir()`; PostgreSQL
 * when `MEDIA_AGENT_PG_URL` or the default server answers; a fresh schema, dropped afterwards): runs/s (runs ÷ the time from the first run started to the last run ended),
 * kills survived, final run statuses, downloader jobs, submits settled by the verifier after a kill,
 * duplicate jobs (must be 0), films without a
 * job, stuck runs (not ended when the time was up), and events lost, duplicated or out of order for the
 * subscribers in processes that survived. The scenario itself is
 * packages/host-adapter-v3/test/scale-out/harness.ts (the CI test runs it with a bounded count).
 *
 * Figures are from one run on the machine that printed them; compare rows, not machines.
 * Run with `npm run bench -- scale`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printMachine, printTable } from './_report';
import { runScaleOut, type ScaleOutResult } from '../packages/host-adapter-v3/test/scale-out/harness';
import {
  dropPostgresSchema,
  postgresUnreachable,
  PG_SERVER_URL,
  type ScaleStorageSpec,
} from '../packages/host-adapter-v3/test/scale-out/storage-spec';

/** Runs per storage, one film each. */
const RUNS = 200;
/** Host processes sharing the database. */
const PROCESSES = 4;
/** Runs each process drives at once. */
const CONCURRENCY = 4;
/** Run lease (ms): a killed process's runs are taken over after it. */
const LEASE_MS = 2_000;
/** Pause before each kill, drawn uniformly (ms). */
const KILL_MIN_MS = 200;
const KILL_MAX_MS = 1_000;
/** Kills aimed at a process whose `download.add` the simulator executed and has not answered yet (the first ones). */
const AIMED_KILLS = 3;
/** Processes that may be down (killed, not back yet) at once. */
const MAX_DOWN = 2;
/** How long the simulator holds back its answer to `download.add` after adding the job (ms). */
const SUBMIT_ANSWER_DELAY_MS = 250;
/** Longest the runs may take before the rest count as stuck. */
const TIMEOUT_MS = 300_000;

/** The storages to run on: a SQLite file always; PostgreSQL when reachable (a fresh schema each time). */
function storages(
  dir: string,
  name: string,
  postgres: boolean,
): Array<{ spec: ScaleStorageSpec; cleanup: () => Promise<void> }> {
  const list: Array<{ spec: ScaleStorageSpec; cleanup: () => Promise<void> }> = [
    { spec: { kind: 'sqlite', path: join(dir, `${name}.sqlite`) }, cleanup: async () => undefined },
  ];
  if (postgres) {
    const schema = `ma_bench_scale_${name}_${process.pid}_${Date.now()}`;
    list.push({
      spec: { kind: 'postgres', url: PG_SERVER_URL, schema },
      cleanup: () => dropPostgresSchema(PG_SERVER_URL, schema),
    });
  }
  return list;
}

function row(r: ScaleOutResult): string[] {
  const survivors = r.subscribers.filter((s) => !s.killed).length;
  return [
    r.storage,
    String(r.runs),
    String(r.processes),
    ((r.runs * 1000) / r.elapsedMs).toFixed(2),
    `${r.kills} (${r.aimedKills} mid-submit)`,
    Object.entries(r.statuses)
      .map(([status, n]) => `${status} ${n}`)
      .join(', '),
    String(r.jobs),
    String(r.reconciledSubmits),
    String(r.duplicateJobs.length),
    String(r.filmsWithoutJob.length),
    String(r.stuck.length),
    `${r.lostEvents} / ${r.duplicateEvents} / ${r.outOfOrderEvents} (${survivors} subscribers, ${r.events} events)`,
    String(r.crashes.length + r.workerErrors.length),
  ];
}

/** Entry point called by `bench/run.ts`. */
export async function run(): Promise<void> {
  printMachine();
  console.log(
    `${RUNS} add-a-film runs, ${PROCESSES} host processes × ${CONCURRENCY} runs at once, lease ${LEASE_MS} ms, a random worker SIGKILLed every ${KILL_MIN_MS}–${KILL_MAX_MS} ms (at most ${MAX_DOWN} down at once) and restarted; PostgreSQL: a fresh schema, dropped afterwards.`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-bench-scale-'));
  const rows: string[][] = [];
  const problems: string[] = [];
  const started = performance.now();
  const unreachable = await postgresUnreachable();
  if (unreachable) console.log(`PostgreSQL rows skipped: no server at ${PG_SERVER_URL} (${unreachable})`);
  try {
    for (const killing of [false, true])
      for (const { spec, cleanup } of storages(dir, killing ? 'kills' : 'calm', !unreachable)) {
        try {
          const r = await runScaleOut({
            storage: spec,
            runs: RUNS,
            processes: PROCESSES,
            concurrency: CONCURRENCY,
            leaseMs: LEASE_MS,
            kill: killing && { minMs: KILL_MIN_MS, maxMs: KILL_MAX_MS },
            maxDown: MAX_DOWN,
            aimedKills: killing ? AIMED_KILLS : 0,
            submitAnswerDelayMs: SUBMIT_ANSWER_DELAY_MS,
            timeoutMs: TIMEOUT_MS,
            log: (line) => console.log(`  ${spec.kind}${killing ? ', kills' : ''}: ${line}`),
          });
          rows.push(row(r));
          for (const d of r.duplicateJobs) problems.push(`${r.storage}: duplicate jobs for ${d.media}: ${d.jobs}`);
          for (const s of r.stuck) problems.push(`${r.storage}: run ${s.id} (${s.film}) stuck ${s.status}`);
          for (const c of [...r.crashes, ...r.workerErrors]) problems.push(`${r.storage}: ${c}`);
          if (r.filmsWithoutJob.length) problems.push(`${r.storage}: no job for ${r.filmsWithoutJob.join(', ')}`);
          if (killing) console.log(`  ${spec.kind}, kills: seed ${r.seed}`);
        } finally {
          await cleanup();
        }
      }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log('');
  printTable(
    [
      'storage',
      'runs',
      'processes',
      'runs/s',
      'kills survived',
      'run statuses',
      'jobs',
      'submits settled by the verifier',
      'duplicate jobs',
      'films without job',
      'stuck runs',
      'events lost / duplicated / out of order',
      'worker crashes',
    ],
    rows,
    new Set([1, 2, 3, 4, 6, 7, 8, 9, 10, 12]),
  );
  console.log('');
  console.log(
    'runs/s = runs ÷ wall time from the first run started to the last run ended (kills, lease takeovers and restarts included).',
  );
  console.log(
    `kills: the first ${AIMED_KILLS} wait until the simulator holds the answer to a download.add it executed (${SUBMIT_ANSWER_DELAY_MS} ms) and kill the process that sent it ("mid-submit"); the rest hit a random worker. Submits settled by the verifier = submits whose outcome was unknown after a kill, settled from the downloader's task list (no second download.add).`,
  );
  console.log(
    "events: for each subscriber in a process that was never killed, the store's events it did not deliver, delivered twice, or delivered out of the store's global order (summed; must be 0).",
  );
  for (const p of problems) console.log(`! ${p}`);
  console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
