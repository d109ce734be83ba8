// The schedules scale scenario: N host processes (real child processes, host-child.ts) on one store and one fast
// clock fire the ticks of many schedules while a killer SIGKILLs a random process at random moments and starts it
// again — and now and then all of them at once, for an all-down gap. After the window every process is killed, the
// store is read, and the oracle (oracle.ts) judges it: expected ticks, fired, skipped, runs, double fires, missed
// fires, the missed-tick policy. Used by the CI test (scale.test.ts, bounded) and `npm run bench -- schedules`.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MissedTickPolicy, ScheduleRecord, ScheduleTickRecord } from '../../../src/core/schedule-records';
import { nextTickAfter } from '../../../src/runtime/schedules/schedule-timing';
import { scheduleOfRun } from '../../../src/runtime/unattended-origin';
import { type FastTimeBase, fastTime } from './fast-clock';
import type { ScaleChildConfig } from './host-child';
import { judgeSchedules, type OracleResult, type OracleRun, type OracleSchedule, type Span } from './oracle';
import { openScaleStore, type ScaleStoreSpec } from './store-spec';

const repoRoot = fileURLToPath(new URL('../../../../../', import.meta.url));
const childScript = fileURLToPath(new URL('./host-child.ts', import.meta.url));

/** One schedule of the scenario: exactly one of `everyMs` and `cron` (read in UTC). */
export interface ScaleScheduleDef {
  everyMs?: number;
  cron?: string;
  missed: MissedTickPolicy;
}

/** Options of {@link runScheduleScale}. Durations named `…RealMs` are real ms; the rest scenario ms. */
export interface ScheduleScaleOptions {
  store: ScaleStoreSpec;
  /** The schedules (each its own goal). */
  schedules: ScaleScheduleDef[];
  /** How long the scenario runs after the schedules were created, real ms. */
  durationRealMs: number;
  /** Host processes (default 4). */
  processes?: number;
  /** Scenario ms per real ms (default 60). */
  speed?: number;
  /** The scenario's time when it starts (default 2030-01-07T08:00:00Z: a Monday morning, far from midnight). */
  epoch?: number;
  /**
   * The scheduler's grace (default 340 000, 5.7 s real at 60x: below every schedule's tick spacing, so a tick is
   * never older than another due one while within the grace).
   */
  graceMs?: number;
  /** The scheduler's poll, real ms (the runner's timer; default 50: 3 s of scenario time at 60x). */
  pollRealMs?: number;
  /**
   * A host process whose heartbeats (every 100 ms real) come further apart than this, real ms, was stalled meanwhile
   * (default 400): the oracle does not count on it to fire then.
   */
  stallRealMs?: number;
  /** Pause before each kill, drawn uniformly, real ms (default 1 500–4 000). */
  kill?: { minRealMs: number; maxRealMs: number };
  /** Share of the kills that hit every process at once (default 0.15; at least one such kill happens). */
  allDownShare?: number;
  /** How long every process stays down after such a kill, drawn uniformly, real ms (default 3 000–6 000). */
  allDownRealMs?: { min: number; max: number };
  /** Seed of the kill schedule (default from the clock; in the result, to replay it). */
  seed?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** What a scenario did and what the oracle found. */
export interface ScheduleScaleResult {
  store: ScaleStoreSpec['kind'];
  seed: number;
  processes: number;
  schedules: number;
  /** SIGKILLs sent during the window (the final stop not counted). */
  kills: number;
  /** Kills of every process at once (each an all-down gap). */
  allDownKills: number;
  /** Real time of the window, ms. */
  elapsedRealMs: number;
  /** The scenario window, scenario ms. */
  window: { from: number; to: number };
  oracle: OracleResult;
  /** Processes that exited by themselves or reported an error. */
  crashes: string[];
}

/** A small seeded PRNG (mulberry32), so a failing kill schedule can be replayed with its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The spans of consecutive heartbeats at most `stallMs` apart (scenario ms). */
export function responsiveSpans(beats: readonly number[], stallMs: number): Span[] {
  const spans: Span[] = [];
  for (const b of beats) {
    const last = spans[spans.length - 1];
    if (last && b - last.to <= stallMs) last.to = Math.max(last.to, b);
    else spans.push({ from: b, to: b });
  }
  return spans.filter((s) => s.to > s.from);
}
/** The actor every scenario schedule belongs to. */
const OWNER = 'user:scale';

/** One incarnation of a host process. */
interface Incarnation {
  slot: number;
  n: number;
  child: ChildProcess;
  /** When it was spawned (scenario ms): it cannot have acted before. */
  spawnAt: number;
  /** When it reported it starts its host: a first poll may follow at once. */
  start?: number;
  /** Its heartbeats (scenario ms), from the one that came with `ready`. */
  beats: number[];
  ready?: number;
  end?: number;
  killed: boolean;
  exited: Promise<void>;
  stderr: string;
}

/** Runs the scenario on one store and judges it. */
export async function runScheduleScale(options: ScheduleScaleOptions): Promise<ScheduleScaleResult> {
  const processes = options.processes ?? 4;
  const seed = options.seed ?? Date.now() % 2_147_483_647;
  const random = prng(seed);
  const graceMs = options.graceMs ?? 340_000;
  const kill = options.kill ?? { minRealMs: 1_500, maxRealMs: 4_000 };
  const allDownShare = options.allDownShare ?? 0.15;
  const allDownRealMs = options.allDownRealMs ?? { min: 3_000, max: 6_000 };
  const log = options.log ?? (() => undefined);
  const time: FastTimeBase = {
    epoch: options.epoch ?? Date.UTC(2030, 0, 7, 8, 0, 0),
    realStart: Date.now(),
    speed: options.speed ?? 60,
  };
  const now = () => fastTime(time);
  const stallMs = (options.stallRealMs ?? 400) * time.speed;
  const config: ScaleChildConfig = {
    store: options.store,
    time,
    schedules: { pollMs: options.pollRealMs ?? 50, graceMs, maxPerPoll: 100 },
    // The lease is read on the scenario clock: 10 min there is 10 s real at 60x.
    runs: { pollMs: 500, leaseMs: 600_000, concurrency: 1 },
    ...(process.env.SCHEDULE_SCALE_LOG
      ? { logLevel: process.env.SCHEDULE_SCALE_LOG as ScaleChildConfig['logLevel'] }
      : {}),
  };

  // The store, migrated once before the processes start (each host migrates again: a no-op).
  const storage = await openScaleStore(options.store);
  await storage.migrate();

  const incarnations: Incarnation[] = [];
  const current: Incarnation[] = [];
  const crashes: string[] = [];
  let stopping = false;
  const startHost = (slot: number): Incarnation => {
    const child = spawn(process.execPath, ['--import', 'tsx', childScript], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: {
        ...process.env,
        SCHEDULE_SCALE_CHILD: JSON.stringify(config),
        TSX_TSCONFIG_PATH: join(repoRoot, 'tsconfig.json'),
      },
    });
    const inc: Incarnation = {
      slot,
      n: incarnations.filter((i) => i.slot === slot).length,
      child,
      spawnAt: now(),
      beats: [],
      killed: false,
      stderr: '',
      exited: Promise.resolve(),
    };
    child.stderr!.on('data', (d: Buffer) => (inc.stderr = (inc.stderr + d.toString()).slice(-4000)));
    child.on('message', (m: { type: string; at?: number; message?: string }) => {
      if (m.type === 'starting') inc.start = m.at;
      else if (m.type === 'beat') inc.beats.push(m.at!);
      else if (m.type === 'ready') {
        inc.ready = m.at;
        inc.beats.push(m.at!);
        log(`host ${slot}.${inc.n} ready ${((m.at! - inc.spawnAt) / time.speed / 1000).toFixed(1)} s after its spawn`);
      } else if (m.type === 'error') crashes.push(`host ${slot}.${inc.n}: ${m.message}`);
    });
    inc.exited = new Promise<void>((resolve) =>
      child.once('exit', (code, signal) => {
        inc.end ??= now();
        if (!inc.killed && !stopping)
          crashes.push(`host ${slot}.${inc.n} exited (${signal ?? code}): ${inc.stderr.trim().slice(-1500)}`);
        resolve();
      }),
    );
    incarnations.push(inc);
    current[slot] = inc;
    return inc;
  };
  const killHost = (inc: Incarnation) => {
    if (inc.end !== undefined) return;
    inc.killed = true;
    inc.child.kill('SIGKILL');
    inc.end = now(); // after the signal: the process did nothing later than this
  };
  const waitReady = async (list: Incarnation[], timeoutRealMs = 120_000) => {
    const until = Date.now() + timeoutRealMs;
    while (list.some((i) => i.ready === undefined && i.end === undefined)) {
      if (Date.now() > until) throw new Error(`host processes not ready after ${timeoutRealMs} ms`);
      await sleep(20);
    }
  };

  let kills = 0;
  let allDownKills = 0;
  let window = { from: 0, to: 0 };
  let elapsedRealMs = 0;
  const schedules: OracleSchedule[] = [];
  const goals = new Map<string, string>();
  try {
    for (let slot = 0; slot < processes; slot++) startHost(slot);
    await waitReady(current);
    if (crashes.length) throw new Error(`host processes failed to start:\n${crashes.join('\n')}`);
    log(`${processes} host processes ready after ${((Date.now() - time.realStart) / 1000).toFixed(1)} s`);

    // The schedules, created once every process runs: no start-up gap.
    const createdAt = now();
    for (const [i, def] of options.schedules.entries()) {
      const id = `sch_scale_${String(i).padStart(3, '0')}`;
      // Interval schedules are anchored spread over their interval, so their ticks do not fall on one instant.
      const anchorAt =
        def.everyMs === undefined
          ? createdAt
          : createdAt + (Math.floor((i * def.everyMs) / options.schedules.length) % def.everyMs);
      const timing = { cron: def.cron ?? null, everyMs: def.everyMs ?? null, anchorAt, timezone: 'UTC' };
      const first = nextTickAfter(timing, createdAt);
      if (first === null) throw new Error(`schedule ${i} never ticks`);
      const goal = `Scale schedule ${i}: check the downloads and report what is stalled`;
      const record: ScheduleRecord = {
        id,
        owner: OWNER,
        createdBy: OWNER,
        clientKey: null,
        ...timing,
        goal,
        mode: 'execute',
        capabilityAllowlist: null,
        budgets: { maxRunsPerDay: null, maxCostUsdPerDay: null },
        missed: def.missed,
        status: 'active',
        nextTickAt: first,
        lastTickAt: null,
        lastRunId: null,
        revision: 1,
        createdAt,
        updatedAt: createdAt,
      };
      if (!(await storage.schedules.insert(record))) throw new Error(`schedule ${id} not stored`);
      schedules.push({ ...timing, id, missed: def.missed, firstTickAt: first });
      goals.set(goal, id);
    }
    window = { from: createdAt, to: createdAt };
    const startedReal = Date.now();
    const endReal = startedReal + options.durationRealMs;
    log(`${schedules.length} schedules created; window ${options.durationRealMs / 1000} s real`);

    // The killer.
    for (;;) {
      await sleep(kill.minRealMs + random() * (kill.maxRealMs - kill.minRealMs));
      if (Date.now() >= endReal) break;
      const forceAllDown = allDownKills === 0 && Date.now() - startedReal > options.durationRealMs / 2;
      const living = current.filter((i) => i.end === undefined);
      const ready = living.filter((i) => i.ready !== undefined);
      // Every process at once only when all are ready (a gap between two start-ups would merge with the next); a
      // forced one waits for that, killing nothing meanwhile.
      if (forceAllDown && ready.length < processes) continue;
      if (ready.length === processes && (forceAllDown || random() < allDownShare)) {
        const downReal = allDownRealMs.min + random() * (allDownRealMs.max - allDownRealMs.min);
        if (Date.now() + downReal + 1_000 >= endReal) continue; // the gap must end inside the window
        for (const inc of living) killHost(inc);
        kills += living.length;
        allDownKills++;
        log(`all ${living.length} processes killed for ${(downReal / 1000).toFixed(1)} s`);
        await Promise.all(living.map((i) => i.exited));
        await sleep(downReal);
        for (let slot = 0; slot < processes; slot++) startHost(slot);
      } else if (ready.length > 0) {
        const victim = ready[Math.floor(random() * ready.length)]!;
        killHost(victim);
        kills++;
        await victim.exited;
        startHost(victim.slot);
      }
      for (let slot = 0; slot < processes; slot++)
        if (current[slot]!.end !== undefined && !current[slot]!.killed) startHost(slot); // a crashed one
    }
    while (Date.now() < endReal) await sleep(20);
    // The drain: no more kills; every process ready and given the grace (and a second) to handle what is due.
    await waitReady(current);
    await sleep(graceMs / time.speed + 1_000);
  } finally {
    stopping = true;
    for (const inc of current) if (inc) killHost(inc);
    await Promise.all(incarnations.map((i) => i.exited));
  }
  window.to = Math.max(...incarnations.map((i) => i.end!));
  elapsedRealMs = (window.to - window.from) / time.speed;
  log(`window ended: ${kills} kills (${allDownKills} of every process); reading the store`);

  // What the store holds.
  const ticks: ScheduleTickRecord[] = [];
  for (const s of schedules) {
    for (let before: number | undefined; ; ) {
      const page = await storage.schedules.ticks(s.id, { limit: 1000, ...(before === undefined ? {} : { before }) });
      ticks.push(...page);
      if (page.length < 1000) break;
      before = page[page.length - 1]!.tickAt;
    }
  }
  const runs: OracleRun[] = [];
  for (const run of await storage.runs.list({ startedBy: OWNER, limit: 1_000_000 })) {
    const scheduleId = goals.get(run.goal);
    if (run.origin !== 'schedule' || scheduleId === undefined) continue;
    // The run names its tick in its runtime state; else the claim names the run.
    const tick = scheduleOfRun(run.runtimeState);
    runs.push({ id: run.id, scheduleId, tickAt: tick?.scheduleId === scheduleId ? tick.tickAt : null });
  }
  await storage.close();

  // A process killed before its `starting` message arrived may have begun: it counts from its spawn.
  const alive: Span[] = incarnations.map((i) => ({ from: i.start ?? i.spawnAt, to: i.end! }));
  const responsive = incarnations.flatMap((i) => responsiveSpans(i.beats, stallMs));
  const oracle = judgeSchedules({ schedules, window, graceMs, alive, responsive, ticks, runs });
  return {
    store: options.store.kind,
    seed,
    processes,
    schedules: schedules.length,
    kills,
    allDownKills,
    elapsedRealMs,
    window,
    oracle,
    crashes,
  };
}

/**
 * The scenario's mix of schedules, `count` of them, in turn: every 6 min, cron every 6 min, every 8 min, cron every
 * 8 min (UTC; the cron minutes offset in turn, `*\/6`, `1-59/6` …, so that few ticks fall on one instant); the
 * missed policy alternates skip / catch_up_one. Over T minutes of scenario time they tick about count · T / 7 times.
 * The intervals are longer than the grace (340 s), so a tick still in its grace is never the older of two due ones.
 */
export function scaleScheduleMix(count: number): ScaleScheduleDef[] {
  const cron = (every: number, i: number) => {
    const offset = Math.floor(i / 4) % every;
    return `${offset === 0 ? '*' : `${offset}-59`}/${every} * * * *`;
  };
  return Array.from({ length: count }, (_, i) => {
    const kind = i % 4;
    const timing =
      kind === 0
        ? { everyMs: 360_000 }
        : kind === 1
          ? { cron: cron(6, i) }
          : kind === 2
            ? { everyMs: 480_000 }
            : { cron: cron(8, i) };
    return { ...timing, missed: i % 2 === 0 ? 'skip' : 'catch_up_one' } satisfies ScaleScheduleDef;
  });
}
