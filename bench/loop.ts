/**
 * Benchmark `loop`: wall and CPU time per run of the add-a-film workload (`_add-a-film.ts`: a goal, 6
 * model turns, 5 tool calls — `catalog.lookup`, `release.search`, `download.plan` (propose),
 * `download.submit` (execute, under a standing grant), `download.status` — then the final text) on three
 * sides in this process, as a ratio to `@openai/agents`:
 *
 * - media-agent on SQLite (`startFilmHost` in `_add-a-film-ours.ts`: `AgentHost` with the worker pool, an
 *   `execute` run as `user:admin`; a real file in `os.tmpdir()`, WAL, `synchronous=NORMAL`, deleted
 *   afterwards, the default commit window of 50 ms). The ledger claim of `download.submit` is committed
 *   before its handler runs; a step waiting on a model call or a read commits with the steps after it, and
 *   every step, event, message and audit row is committed by the run's end. After SIGKILL the run resumes
 *   from its last commit on the next start, and an effect whose ledger claim was committed never runs twice.
 * - media-agent on `MemoryStorage`: the same driver and invocation path, nothing persisted: after SIGKILL
 *   the run is lost.
 * - `@openai/agents` (`Runner`, tracing disabled, `run(agent, goal)` without `stream: true`;
 *   `_loop-agents.ts`): the turn loop with history in memory and five function tools (arguments parsed,
 *   not validated), no approvals: after SIGKILL the run is lost.
 *
 * The model double is the same minimal one on every side (`FilmModel` / `FilmAgentsModel`): turn n = the
 * assistant messages already in the request, answered whole (text and the one tool call at once, no
 * streaming), no request copies, token usage by `filmUsage`. Handlers return fixed objects, so what is
 * measured is the loop around them. A run is timed from its start (`startRun` / `run()`) to its end (our
 * terminal `run_status` event, read from the run's event stream `host.events({ runId })` as a user waits for a
 * run; their returned result).
 *
 * Method: each side is warmed up ({@link WARMUP_RUNS} runs), then `BENCH_ROUNDS` (default
 * {@link DEFAULT_ROUNDS}, at least 9) rounds; in each round every side runs `BENCH_RUNS` (default
 * {@link DEFAULT_RUNS}) runs back to back, the order of the sides rotating each round (`roundOrder`), and
 * wall time (`performance.now`) and CPU time of the process (`process.cpuUsage`, user + system) are taken
 * around them. A ratio is formed per round (the @openai/agents ms per run ÷ the side's ms per run; above
 * 1: the side is faster), and the table prints the median and the interquartile range of those ratios and
 * of the per-run times (`_stats.ts`), so load that falls on one round falls on both sides of its ratio.
 * All hosts stay open through the rounds (an idle host's worker pool polls every 50 ms; that CPU is
 * counted for whichever side runs then). The load average is printed before and after.
 *
 * A second table counts and times the storage calls of our driver on SQLite per run (a wrapper around the
 * adapter, `_loop-storage-calls.ts`), to show where the driver's time goes. The PostgreSQL lines of
 * earlier versions (`_loop-postgres*.ts`) are no longer run: their worker processes start `plan_only`
 * runs, in which `download.submit` is denied, so they would not run this workload.
 *
 * Figures are from one run on the machine that printed them; compare rows, not machines.
 * Run with `npm run bench -- loop`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { setTracingDisabled } from '@openai/agents';
import type { AgentHost, StorageAdapter } from '../packages/sdk/src/index';
import { MemoryStorage } from '../packages/sdk/src/storage';
import { createSqliteStorage } from '../packages/sdk/src/sqlite';
import { FILM_TOOL_CALLS, FILM_TURNS } from './_add-a-film';
import { startFilmHost } from './_add-a-film-ours';
import { filmAgents } from './_loop-agents';
import { countingStorage, type CallStats } from './_loop-storage-calls';
import { installedVersion, printMachine, printTable } from './_report';
import { formatRatio, formatSpread, roundOrder, spread, envInt } from './_stats';

/** Rounds when `BENCH_ROUNDS` is not set. */
const DEFAULT_ROUNDS = 9;
/** Runs per side per round when `BENCH_RUNS` is not set. */
const DEFAULT_RUNS = 20;
/** Runs of each side before the first round (not counted). */
const WARMUP_RUNS = 30;
/** Runs counted in the storage-call table (their averages are printed). */
const PROFILE_RUNS = 20;

/** One side of the comparison while it is measured. */
interface Side {
  name: string;
  storage: string;
  /** What a SIGKILL in the middle of a run leaves. */
  afterKill: string;
  once: () => Promise<unknown>;
  /** Called after the warm-up, before the first round. */
  reset?: () => void;
  /** Throws when the runs since `reset` did not play the whole workload. */
  check: (runs: number) => Promise<void>;
  close: () => Promise<void>;
  /** Per round: wall and CPU ms per run. */
  wall: number[];
  cpu: number[];
}

const AGENTS = '@openai/agents Runner';

async function ourSide(storage: StorageAdapter, label: string, afterKill: string): Promise<Side> {
  const film = await startFilmHost(storage);
  return {
    name: 'media-agent AgentHost',
    storage: label,
    afterKill,
    once: film.once,
    check: film.check,
    close: film.close,
    wall: [],
    cpu: [],
  };
}

function agentsSide(): Side {
  const side = filmAgents();
  return {
    name: AGENTS,
    storage: 'in memory (no persistence)',
    afterKill: 'the run is lost',
    once: side.once,
    reset: side.reset,
    check: async (runs) => side.check(runs),
    close: async () => undefined,
    wall: [],
    cpu: [],
  };
}

/** Runs `runs` runs of `side` back to back; appends wall and CPU ms per run to the side's lists. */
async function measure(side: Side, runs: number): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) await side.once();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  side.wall.push(wall / runs);
  side.cpu.push((cpu.user + cpu.system) / 1000 / runs);
}

/** Runs the workload {@link PROFILE_RUNS} times (after a warm-up) on SQLite with every storage call counted. */
async function storageProfile(path: string): Promise<{ rows: Array<[string, CallStats]>; runMs: number }> {
  const stats = new Map<string, CallStats>();
  const film = await startFilmHost(countingStorage(createSqliteStorage({ path }), stats));
  try {
    for (let i = 0; i < 20; i++) await film.once();
    stats.clear();
    const t = performance.now();
    for (let i = 0; i < PROFILE_RUNS; i++) await film.once();
    const runMs = (performance.now() - t) / PROFILE_RUNS;
    await film.check();
    const rows = [...stats.entries()]
      .map(([name, s]): [string, CallStats] => [name, { count: s.count / PROFILE_RUNS, ms: s.ms / PROFILE_RUNS }])
      .sort((a, b) => b[1].ms - a[1].ms);
    return { rows, runMs };
  } finally {
    await film.close();
  }
}

/**
 * The add-a-film host of this benchmark on `storage` (`startFilmHost`), as `bench/_loop-postgres*.ts`
 * expect it. Those files are not run from here any more (see the header); the export keeps them compiling.
 */
export async function ourHost(
  storage: StorageAdapter,
  concurrency: number,
  _kind?: 'scripted',
): Promise<{ host: AgentHost; once: () => Promise<void> }> {
  const film = await startFilmHost(storage, concurrency);
  return {
    host: film.host,
    once: async () => {
      await film.once();
    },
  };
}

const fmt = (x: number, digits = 1) =>
  x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** Entry point called by `bench/run.ts`. */
export async function run(): Promise<void> {
  const rounds = envInt('BENCH_ROUNDS', DEFAULT_ROUNDS, 9);
  const runs = envInt('BENCH_RUNS', DEFAULT_RUNS, 1);
  setTracingDisabled(true);
  const realFetch = globalThis.fetch;
  let fetches = 0;
  globalThis.fetch = ((...args: Parameters<typeof fetch>) => {
    fetches++;
    return realFetch(...args);
  }) as typeof fetch;

  const started = performance.now();
  printMachine();
  console.log(
    `workload: add-a-film, ${FILM_TURNS} model turns and ${FILM_TOOL_CALLS} tool calls per run, the same minimal whole-turn model double on every side (no streaming, no request copies).`,
  );
  console.log(
    `method: ${WARMUP_RUNS} warm-up runs per side, then ${rounds} rounds (BENCH_ROUNDS) of ${runs} runs per side (BENCH_RUNS), the order of the sides rotating each round; one ratio per round; median (IQR) printed.`,
  );
  console.log(
    `@openai/agents ${installedVersion(fileURLToPath(new URL('../node_modules/@openai/agents', import.meta.url)))} from the root install (\`npm run bench -- peers\` pins its own, in bench/peers); all sides share this process, so CPU time includes the other hosts' idle polls.`,
  );
  console.log('');

  const dir = mkdtempSync(join(tmpdir(), 'media-agent-bench-loop-'));
  const sides: Side[] = [];
  let profile: Awaited<ReturnType<typeof storageProfile>>;
  try {
    sides.push(agentsSide());
    sides.push(
      await ourSide(
        createSqliteStorage({ path: join(dir, 'loop.db') }),
        'SQLite (file, WAL)',
        'the run resumes from its last commit; an effect whose ledger claim was committed never runs twice',
      ),
    );
    sides.push(await ourSide(new MemoryStorage(), 'MemoryStorage', 'the run is lost'));
    try {
      for (const s of sides) {
        for (let i = 0; i < WARMUP_RUNS; i++) await s.once();
        s.reset?.();
      }
      for (let round = 0; round < rounds; round++)
        for (const i of roundOrder(sides.length, round)) await measure(sides[i]!, runs);
      for (const s of sides) await s.check(rounds * runs);
    } finally {
      for (const s of sides) await s.close();
    }
    profile = await storageProfile(join(dir, 'profile.db'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    globalThis.fetch = realFetch;
  }

  const base = sides.find((s) => s.name === AGENTS)!;
  const perRound = (s: Side, of: 'wall' | 'cpu') => s[of].map((ms, r) => base[of][r]! / ms);
  printTable(
    [
      'side',
      'storage',
      'wall ms/run',
      'CPU ms/run',
      'speed vs @openai/agents (wall)',
      'CPU vs @openai/agents',
      'after SIGKILL',
    ],
    sides.map((s) => [
      s.name,
      s.storage,
      formatSpread(spread(s.wall), 2),
      formatSpread(spread(s.cpu), 2),
      s === base ? 'baseline' : formatRatio(spread(perRound(s, 'wall'))),
      s === base ? 'baseline' : formatRatio(spread(perRound(s, 'cpu'))),
      s.afterKill,
    ]),
    new Set([2, 3, 4, 5]),
  );
  console.log('');
  console.log(
    "figures: median (first–third quartile) over the rounds. speed = @openai/agents wall ms/run ÷ the side's wall ms/run in the same round (above 1: the side is faster); CPU = the same with CPU ms/run (above 1: the side uses less CPU).",
  );
  console.log(
    "CPU ms/run = process.cpuUsage (user + system, every thread of the process) during the side's runs ÷ runs; wall ms/run = elapsed ÷ runs, one run at a time.",
  );
  console.log(
    'our runs: mode execute as user:admin, standing grants for download.plan and download.submit, worker pool, the default commit window (50 ms: a step waiting on a model call or a read commits with the next; a side effect’s claim always before its handler runs; everything by the run’s end); timed from startRun to the terminal run_status event.',
  );
  console.log(`SQLite: a file in ${tmpdir()}, WAL, synchronous=NORMAL, deleted afterwards.`);
  console.log(`network: ${fetches} fetch call(s) during the benchmark (tracing disabled on the @openai/agents side).`);
  console.log('');

  console.log(
    `storage calls of our driver on SQLite, average of ${PROFILE_RUNS} runs after a warm-up: ${fmt(profile.runMs, 2)} ms wall per run (${FILM_TURNS} model turns, ${FILM_TOOL_CALLS} tool calls); µs = until the call's promise resolved (includes queueing):`,
  );
  const totalMs = profile.rows.filter(([name]) => !name.startsWith('  in tx')).reduce((a, [, s]) => a + s.ms, 0);
  printTable(
    ['call', 'calls/run', 'µs/call', 'ms/run', 'share of run'],
    profile.rows.map(([name, s]) => [
      name,
      fmt(s.count, 1),
      fmt((s.ms * 1000) / s.count, 0),
      fmt(s.ms, 2),
      `${((s.ms / profile.runMs) * 100).toFixed(0)}%`,
    ]),
    new Set([1, 2, 3, 4]),
  );
  console.log(
    `storage calls add up to ${fmt(totalMs, 2)} ms of a run's ${fmt(profile.runMs, 2)} ms ("in tx" rows are inside a transaction row and not added); the rest is the model double and the driver's own work.`,
  );
  console.log('');
  console.log(`load average at end ${load()}`);
  console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
