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
  /** Pause before each kill, drawn uniformly, real ms (default 1 500–4 000). */
  kill?: { minRealMs: number; maxRealMs: number };
  /** Share of the kills that hit every process at once (default 0.15; at least one such kill happens). */
  allDownShare?: number;
  /** How long every process stays down after such a kill, drawn uniformly, real ms (default 7 000–9 000). */
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
  /**
   * For each example of a missed fire: the tick rows that handled it (outcome, reason, how late in real ms, by
   * whom) and how each living process polled and beat around it — what a failure needs to be understood.
   */
  missedDetails: string[];
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
  /** When its scheduler started each poll (scenario ms). */
  polls: number[];
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
  // Longer than the grace (5.7 s real at 60x), so some ticks fall due while no process is alive from them through
  // their grace: the missed-tick policy always has something to decide.
  const allDownRealMs = options.allDownRealMs ?? { min: 7_000, max: 9_000 };
  const log = options.log ?? (() => undefined);
  const time: FastTimeBase = {
    epoch: options.epoch ?? Date.UTC(2030, 0, 7, 8, 0, 0),
    realStart: Date.now(),
    speed: options.speed ?? 60,
  };
  const now = () => fastTime(time);
  const config: ScaleChildConfig = {
    store: options.store,
    time,
    // Every due schedule in every poll (120 schedules): a tick is never left for the next poll by the batch limit.
    schedules: { pollMs: options.pollRealMs ?? 50, graceMs, maxPerPoll: 1_000 },
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
      polls: [],
      killed: false,
      stderr: '',
      exited: Promise.resolve(),
    };
    child.stderr!.on('data', (d: Buffer) => (inc.stderr = (inc.stderr + d.toString()).slice(-4000)));
    child.on('message', (m: { type: string; at?: number; message?: string }) => {
      if (m.type === 'starting') inc.start = m.at;
      else if (m.type === 'beat') inc.beats.push(m.at!);
      else if (m.type === 'poll') inc.polls.push(m.at!);
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
      const forceAllDown = allDownKills === 0 && Date.now() - startedReal > options.durationRealMs / 3;
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
  log(
    `gaps between poll starts (real s): ${gapSummary(
      incarnations.map((i) => i.polls),
      time.speed,
    )}`,
  );
  log(
    `gaps between heartbeats (real s): ${gapSummary(
      incarnations.map((i) => i.beats),
      time.speed,
    )}`,
  );

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
  // A poll was over when its process began the next one: every poll but each incarnation's last.
  const polls = incarnations.flatMap((i) => i.polls.slice(0, -1).map((from, k) => ({ from, to: i.polls[k + 1]! })));
  const oracle = judgeSchedules({ schedules, window, graceMs, alive, polls, ticks, runs });
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
    missedDetails: oracle.examples.missedFires.map((key) => explainMissed(key, ticks, incarnations, time.speed)),
  };
}

/** Median, 99th percentile and widest gap between consecutive instants of each list, in real seconds. */
function gapSummary(lists: readonly (readonly number[])[], speed: number): string {
  const gaps = lists.flatMap((l) => l.slice(1).map((x, k) => x - l[k]!)).sort((a, b) => a - b);
  if (gaps.length === 0) return 'none';
  const at = (q: number) => (gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))]! / speed / 1000).toFixed(2);
  return `median ${at(0.5)}, p99 ${at(0.99)}, widest ${at(1)} (${gaps.length} gaps)`;
}

/** One line on a missed fire `scheduleId@iso`: its tick rows and the processes alive at its time. */
function explainMissed(
  key: string,
  ticks: readonly ScheduleTickRecord[],
  incarnations: readonly Incarnation[],
  speed: number,
): string {
  const [scheduleId, at] = key.split('@') as [string, string];
  const t = Date.parse(at);
  const rows = ticks
    .filter((r) => r.scheduleId === scheduleId && r.firstTickAt <= t && r.tickAt >= t)
    .map(
      (r) =>
        `${r.outcome}${r.reason ? `/${r.reason}` : ''} at tick ${new Date(r.tickAt).toISOString()} handled ${((r.handledAt - t) / speed / 1000).toFixed(2)} s real late by ${r.handledBy}`,
    );
  const real = (ms: number) => `${(ms / speed / 1000).toFixed(2)} s`;
  const living = incarnations
    .filter((i) => (i.start ?? i.spawnAt) <= t && (i.end ?? Number.POSITIVE_INFINITY) >= t)
    .map((i) => {
      // Its polls around the tick: the widest gap between poll starts from the tick on, and how many it started.
      const polls = i.polls.filter((p) => p >= t - 1_000 * speed && p <= t + 10_000 * speed);
      let widest = 0;
      for (let k = 1; k < polls.length; k++) widest = Math.max(widest, polls[k]! - polls[k - 1]!);
      const beats = i.beats.filter((b) => b >= t && b <= t + 10_000 * speed);
      let beatGap = 0;
      for (let k = 1; k < beats.length; k++) beatGap = Math.max(beatGap, beats[k]! - beats[k - 1]!);
      return `${i.slot}.${i.n} (ready ${i.ready === undefined ? 'never' : real(i.ready - t)}, end ${i.end === undefined ? '-' : real(i.end - t)}, ${polls.length} polls, widest poll gap ${real(widest)}, widest beat gap ${real(beatGap)})`;
    });
  return `${key}: ${rows.length ? rows.join('; ') : 'no tick row'} | alive: ${living.join(', ') || 'none'}`;
}

/**
 * The scenario's mix of schedules, `count` of them, in turn: every 6 min, cron every 6 min, every 8 min, cron every
 * 10 min (UTC; the cron minutes offset in turn, `*\/6`, `1-59/6` …, so that few ticks fall on one instant); the
 * missed policy alternates skip / catch_up_one. Over T minutes of scenario time they tick about count · T / 7.5
 * times. The intervals are longer than the grace (340 s) — the cron steps divide the hour, so the spacing holds
 * across it (`*\/8` would tick at :56 and :00) — and a tick still in its grace is never the older of two due ones.
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
            : { cron: cron(10, i) };
    return { ...timing, missed: i % 2 === 0 ? 'skip' : 'catch_up_one' } satisfies ScaleScheduleDef;
  });
}
