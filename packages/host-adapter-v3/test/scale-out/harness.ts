// The scale-out scenario's controller: one MoviePilot 3.x simulator (HTTP, in this process), several
// host processes (worker.ts, real child processes) on one shared database, one add-a-film run per
// film, and a killer that SIGKILLs a random worker at random moments and starts it again. It returns
// what it observed; the test and `npm run bench -- scale` decide what to assert and print.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConsoleLogger } from '@media-agent/sdk';
import { TERMINAL_RUN_STATUSES, type RunStatus, type StorageAdapter } from '@media-agent/sdk/storage';
import { ScriptedProvider } from '@media-agent/sdk/testing';
import { createV3AgentHost } from '@media-agent/host-adapter-v3';
import { MoviePilotV3Simulator } from '@media-agent/host-adapter-v3/testing';
import { scaleFilms, scaleScripts } from './films';
import { openScaleStorage, type ScaleStorageSpec } from './storage-spec';
import type { ScaleWorkerConfig } from './worker';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const workerScript = fileURLToPath(new URL('./worker.ts', import.meta.url));
const ADMIN = 'user:admin';

/** How a scale-out scenario runs. */
export interface ScaleOutOptions {
  /** The shared database. */
  storage: ScaleStorageSpec;
  /** Runs, one distinct film each. */
  runs: number;
  /** Host processes (default 4). */
  processes?: number;
  /** Runs each process drives at once (default 4). */
  concurrency?: number;
  /** Run lease in ms (default 2 000): how long a killed process's runs wait before another process takes them over. */
  leaseMs?: number;
  /** Idle worker and subscriber poll in ms (default 25). */
  pollMs?: number;
  /**
   * Pause before each kill, drawn uniformly from `[minMs, maxMs]`; `false`: no kills. A kill also waits until
   * fewer than `maxDown` processes are down (killed and not started and ready again). Default 800–2 500 ms.
   */
  kill?: { minMs: number; maxMs: number } | false;
  /** Processes that may be down at once (default 1: the next kill waits until the last victim is back). */
  maxDown?: number;
  /**
   * Kills aimed at a submit in flight (default 0): the first this many kills wait until the simulator holds
   * the answer to a `download.add` it already executed (see `submitAnswerDelayMs`) and kill the process that
   * sent it (each worker logs in as its own host user), so the takeover of an unknown submit is exercised
   * every time, not only when a random kill happens to land there. The later kills are random.
   */
  aimedKills?: number;
  /** Seed of the kill schedule (default: from the clock; printed in the result). */
  seed?: number;
  /**
   * How long the simulator holds back its answer to `download.add` after adding the job, in ms (default 250):
   * a worker killed meanwhile leaves a submit whose outcome it never learned, which the process that takes
   * the run over must settle from the downloader's task list without adding the film twice.
   */
  submitAnswerDelayMs?: number;
  /** How long the runs may take to end before the rest count as stuck, in ms (default 120 000). */
  timeoutMs?: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

/** What one incarnation of a worker process saw. */
export interface ScaleSubscriber {
  /** Worker slot (0 … processes-1) and incarnation (0 = first start). */
  worker: number;
  incarnation: number;
  /** Ended by the controller's SIGKILL (else it survived to the end and was stopped with SIGTERM). */
  killed: boolean;
  /** Events its subscriber delivered. */
  delivered: number;
  /** Events of the store it never delivered (for a killed one: only those before its last delivery count). */
  lost: number;
  /** Events it delivered more than once. */
  duplicates: number;
  /** Deliveries out of the store's global order. */
  outOfOrder: number;
}

/** What the scenario observed. */
export interface ScaleOutResult {
  storage: string;
  seed: number;
  runs: number;
  processes: number;
  /** From the first run started to the last run ended, ms. */
  elapsedMs: number;
  /** SIGKILLs sent (each followed by a restart). */
  kills: number;
  /** Worker exits nobody asked for, with the tail of their stderr. */
  crashes: string[];
  /** Messages workers reported (`error`). */
  workerErrors: string[];
  /** Runs by final status. */
  statuses: Partial<Record<RunStatus, number>>;
  /** Runs not in a terminal status when the time was up. */
  stuck: Array<{ id: string; film: string; status: RunStatus }>;
  /** Downloader jobs on the simulator. */
  jobs: number;
  /** Films with more than one downloader job. */
  duplicateJobs: Array<{ media: string; jobs: number }>;
  /** Films with no downloader job. */
  filmsWithoutJob: string[];
  /**
   * Submits whose outcome was unknown (their process was killed after the simulator added the job) that a
   * read-only verifier settled from the downloader's task list, so nothing was added twice.
   */
  reconciledSubmits: number;
  /** Requests the simulator received that the real host would reject. */
  contractViolations: number;
  /** Kills that landed while the victim's `download.add` answer was held (the job added, the answer not received). */
  aimedKills: number;
  /** Events in the store at the end. */
  events: number;
  /** One entry per worker incarnation. */
  subscribers: ScaleSubscriber[];
  /** Events lost, duplicated or out of order, summed over the subscribers in processes that survived. */
  lostEvents: number;
  duplicateEvents: number;
  outOfOrderEvents: number;
}

interface Incarnation {
  worker: number;
  n: number;
  child: ChildProcess;
  ready: Promise<void>;
  isReady: boolean;
  exited: Promise<void>;
  hasExited: boolean;
  killed: boolean;
  stopping: boolean;
  seen: number[];
  stderr: string;
  /** Index of the first simulator request this incarnation can have sent. */
  firstRequest: number;
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
/** A bound for a race: its timer does not keep the process alive once the race is won. */
const bound = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Every event's global sequence number in the store's order. */
async function storedEventOrder(storage: StorageAdapter): Promise<number[]> {
  const out: number[] = [];
  let after = 0;
  for (;;) {
    const page = await storage.events.listAfter(after, 1000);
    for (const e of page) out.push(e.globalSeq);
    if (page.length < 1000) return out;
    after = page[page.length - 1]!.globalSeq;
  }
}

/**
 * Compares what a subscriber delivered with the store's order. A survivor must have delivered all of
 * `order`; a killed one the prefix up to its last delivery.
 */
export function compareDeliveries(
  seen: readonly number[],
  order: readonly number[],
  complete: boolean,
): { lost: number; duplicates: number; outOfOrder: number } {
  const position = new Map(order.map((g, i) => [g, i]));
  const distinct = new Set(seen);
  let outOfOrder = 0;
  for (let i = 1; i < seen.length; i++)
    if ((position.get(seen[i]!) ?? Number.POSITIVE_INFINITY) <= (position.get(seen[i - 1]!) ?? -1)) outOfOrder++;
  const last = seen.length === 0 ? -1 : Math.max(...seen.map((g) => position.get(g) ?? -1));
  const expected = complete ? order : order.slice(0, last + 1);
  const lost = expected.filter((g) => !distinct.has(g)).length;
  return { lost, duplicates: seen.length - distinct.size, outOfOrder };
}

/**
 * Runs the scenario and reports what happened; throws only when the setup fails (the simulator or
 * the first start of a worker). Cleans up its processes and the simulator; the database is the caller's.
 */
export async function runScaleOut(options: ScaleOutOptions): Promise<ScaleOutResult> {
  const processes = options.processes ?? 4;
  const seed = options.seed ?? Date.now() % 1_000_000_007;
  const random = prng(seed);
  const kill = options.kill === undefined ? { minMs: 800, maxMs: 2_500 } : options.kill;
  const log = options.log ?? (() => undefined);
  const maxDown = Math.max(1, Math.min(processes - 1, options.maxDown ?? 1));
  const films = scaleFilms(options.runs);

  const workerUser = (w: number) => ({ username: `worker${w}`, password: `worker${w}-pass` });
  const sim = new MoviePilotV3Simulator({
    // The controller uses the API key (the admin); each worker slot logs in as its own superuser.
    users: [
      { username: 'admin', password: 'admin-pass', superuser: true },
      ...Array.from({ length: processes }, (_, w) => ({ ...workerUser(w), superuser: true })),
    ],
    titles: films.map((f) => f.catalog),
    releases: films.map((f) => f.release),
    library: [],
    autoTransfer: true,
    durations: { queuedMs: 50, downloadMs: 200, transferMs: 50 },
    faults: { answerDelayMs: { 'download.add': options.submitAnswerDelayMs ?? 250 } },
  });
  await sim.start();
  const storage = await openScaleStorage(options.storage);
  const controller = createV3AgentHost({
    url: sim.url,
    auth: { apiKey: sim.apiKey },
    storage,
    logger: new ConsoleLogger('silent'),
    // startRun needs a model configured; this process drives no run (its workers never start).
    model: { provider: new ScriptedProvider({ scripts: scaleScripts(films) }), model: 'scripted' },
    runs: { daily: { agentMaxRunsPerDay: 1_000_000 } },
    // The scenario starts all its runs at once, as one administrator: the per-minute start limit is not what it tests.
    limits: { runStartsPerMinutePerActor: 1_000, runStartsPerMinuteTotal: 1_000 },
  });
  const incarnations: Incarnation[] = [];
  const current: Incarnation[] = [];
  const crashes: string[] = [];
  const workerErrors: string[] = [];
  let kills = 0;
  let aimed = 0;
  let finished = false;

  const config: Omit<ScaleWorkerConfig, 'auth'> = {
    storage: options.storage,
    url: sim.url,
    films: films.length,
    concurrency: options.concurrency ?? 4,
    leaseMs: options.leaseMs ?? 2_000,
    pollMs: options.pollMs ?? 25,
    ...(process.env.SCALE_OUT_LOG ? { logLevel: process.env.SCALE_OUT_LOG as ScaleWorkerConfig['logLevel'] } : {}),
  };

  const startWorker = (worker: number): Incarnation => {
    const child = spawn(process.execPath, ['--import', 'tsx', workerScript], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: {
        ...process.env,
        SCALE_OUT_WORKER: JSON.stringify({ ...config, auth: workerUser(worker) } satisfies ScaleWorkerConfig),
        TSX_TSCONFIG_PATH: join(repoRoot, 'tsconfig.json'),
      },
    });
    const inc = {
      worker,
      n: incarnations.filter((i) => i.worker === worker).length,
      child,
      isReady: false,
      hasExited: false,
      killed: false,
      stopping: false,
      seen: [],
      stderr: '',
      firstRequest: sim.requests.length,
    } as unknown as Incarnation;
    child.stderr!.on('data', (d: Buffer) => (inc.stderr = (inc.stderr + d.toString()).slice(-4000)));
    inc.exited = new Promise<void>((resolve) =>
      child.once('exit', (code, signal) => {
        inc.hasExited = true;
        if (!inc.killed && !inc.stopping)
          crashes.push(`worker ${worker}.${inc.n} exited (${signal ?? code}): ${inc.stderr.trim().slice(-1500)}`);
        resolve();
      }),
    );
    inc.ready = new Promise<void>((resolve, reject) => {
      child.on('message', (m: { type: string; seqs?: number[]; message?: string }) => {
        if (m.type === 'ready') {
          inc.isReady = true;
          resolve();
        } else if (m.type === 'events') inc.seen.push(...m.seqs!);
        else if (m.type === 'error') workerErrors.push(`worker ${worker}.${inc.n}: ${m.message}`);
      });
      void inc.exited.then(() => reject(new Error(`worker ${worker}.${inc.n} exited before it was ready`)));
    });
    inc.ready.catch(() => undefined);
    incarnations.push(inc);
    current[worker] = inc;
    return inc;
  };

  let started = 0;
  let ended = 0;
  try {
    await controller.host.start({ workers: false });
    // A standing grant for the plan and the submit: no approval is asked, download.submit runs.
    for (const action of ['download.plan', 'download.submit'])
      await controller.host.grants.create({ action, actor: ADMIN, reason: 'scale-out scenario' });
    for (let w = 0; w < processes; w++) startWorker(w);
    await Promise.all(current.map((i) => i.ready));
    log(`${processes} host processes ready; starting ${films.length} runs (seed ${seed})`);

    started = performance.now();
    const runFilm = new Map<string, string>();
    for (const f of films) runFilm.set((await controller.host.startRun({ goal: f.goal, actor: ADMIN })).id, f.title);

    /** Whether the simulator holds the answer to a `download.add` of this incarnation (executed, not answered). */
    const heldSubmit = (inc: Incarnation) =>
      sim.requests
        .slice(inc.firstRequest)
        .some((r) => r.operationId === 'download.add' && r.status === 0 && r.user === `worker${inc.worker}`);
    /**
     * Waits for a live worker with a held submit, for as long as the scenario runs: every run submits once, so one
     * comes. (A 10 s limit here fell back to a random victim on a loaded machine, where the first submits came later,
     * and the aimed kill the scenario promises did not happen.)
     */
    const submitInFlight = async (): Promise<Incarnation | undefined> => {
      while (!finished) {
        const found = current.find((i) => i.isReady && !i.hasExited && heldSubmit(i));
        if (found) return found;
        await sleep(5);
      }
      return undefined;
    };
    const killer = (async () => {
      if (kill === false) return;
      while (!finished) {
        await sleep(kill.minMs + random() * (kill.maxMs - kill.minMs));
        // Never more than `maxDown` processes down (killed and not back yet) at once.
        while (!finished && current.filter((i) => !i.isReady || i.hasExited).length >= maxDown) await sleep(20);
        if (finished) return;
        const alive = current.filter((i) => i.isReady && !i.hasExited);
        if (alive.length === 0) continue;
        const victim =
          (kills < (options.aimedKills ?? 0) ? await submitInFlight() : undefined) ??
          alive[Math.floor(random() * alive.length)]!;
        if (finished || victim.hasExited) continue;
        if (heldSubmit(victim)) aimed++;
        victim.killed = true;
        victim.child.kill('SIGKILL');
        kills++;
        await victim.exited;
        startWorker(victim.worker); // started again at once
      }
    })();

    // Wait for every run to end (or the time to be up); restart a worker that died on its own.
    const deadline = Date.now() + (options.timeoutMs ?? 120_000);
    let statuses = new Map<string, RunStatus>();
    let lastLog = 0;
    for (;;) {
      statuses = new Map((await controller.host.listRuns({ limit: films.length + 10 })).map((r) => [r.id, r.status]));
      const open = [...runFilm.keys()].filter((id) => !TERMINAL_RUN_STATUSES.includes(statuses.get(id)!));
      if (Date.now() - lastLog > 5_000) {
        log(`${films.length - open.length}/${films.length} runs ended, ${kills} kills`);
        lastLog = Date.now();
      }
      if (open.length === 0 || Date.now() > deadline) break;
      for (const [w, inc] of current.entries())
        if (inc.hasExited && !inc.killed && !inc.stopping && !finished) startWorker(w);
      await sleep(100);
    }
    ended = performance.now();
    finished = true;
    log(`runs ended after ${((ended - started) / 1000).toFixed(1)} s, ${kills} kills`);
    await killer;
    await Promise.all(current.map((i) => i.ready.catch(() => undefined)));

    // Let every live subscriber catch up with the store, then stop the workers.
    const order = await storedEventOrder(storage);
    const lastSeq = order[order.length - 1] ?? 0;
    const catchUp = Date.now() + 20_000;
    while (
      Date.now() < catchUp &&
      current.some((i) => !i.hasExited && i.seen.at(-1) !== lastSeq && i.seen.length < order.length)
    )
      await sleep(50);
    log(`subscribers caught up (${order.length} events); stopping the workers`);
    for (const inc of current) {
      inc.stopping = true;
      inc.child.kill('SIGTERM');
    }
    await Promise.all(current.map((i) => Promise.race([i.exited, bound(10_000)])));

    const byStatus: Partial<Record<RunStatus, number>> = {};
    for (const id of runFilm.keys()) {
      const s = statuses.get(id)!;
      byStatus[s] = (byStatus[s] ?? 0) + 1;
    }
    const stuck = [...runFilm.entries()]
      .filter(([id]) => !TERMINAL_RUN_STATUSES.includes(statuses.get(id)!))
      .map(([id, film]) => ({ id, film, status: statuses.get(id)! }));

    let reconciledSubmits = 0;
    for (let after = 0; ; ) {
      const page = await controller.host.audit({ after, limit: 500, capabilityId: 'download.submit' });
      reconciledSubmits += page.filter((a) =>
        (a.reason ?? '').startsWith('verified by a read-only verifier: succeeded'),
      ).length;
      if (page.length < 500) break;
      after = page[page.length - 1]!.seq;
    }
    const downloads = sim.downloads();
    const jobsPerFilm = new Map<string, number>();
    for (const d of downloads) jobsPerFilm.set(String(d.media), (jobsPerFilm.get(String(d.media)) ?? 0) + 1);

    const subscribers: ScaleSubscriber[] = incarnations.map((inc) => ({
      worker: inc.worker,
      incarnation: inc.n,
      killed: inc.killed,
      delivered: inc.seen.length,
      ...compareDeliveries(inc.seen, order, !inc.killed),
    }));
    const survivors = subscribers.filter((s) => !s.killed);
    return {
      storage: options.storage.kind === 'sqlite' ? 'SQLite file (WAL)' : 'PostgreSQL',
      seed,
      runs: films.length,
      processes,
      elapsedMs: ended - started,
      kills,
      crashes,
      workerErrors,
      statuses: byStatus,
      stuck,
      jobs: downloads.length,
      duplicateJobs: [...jobsPerFilm.entries()].filter(([, n]) => n > 1).map(([media, jobs]) => ({ media, jobs })),
      filmsWithoutJob: films.filter((f) => !jobsPerFilm.has(f.media)).map((f) => f.title),
      reconciledSubmits,
      aimedKills: aimed,
      contractViolations: sim.violations.length,
      events: order.length,
      subscribers,
      lostEvents: survivors.reduce((a, s) => a + s.lost, 0),
      duplicateEvents: survivors.reduce((a, s) => a + s.duplicates, 0),
      outOfOrderEvents: survivors.reduce((a, s) => a + s.outOfOrder, 0),
    };
  } finally {
    finished = true;
    for (const inc of incarnations) if (!inc.hasExited) inc.child.kill('SIGKILL');
    await Promise.all(incarnations.map((i) => Promise.race([i.exited, bound(5_000)])));
    await controller.close().catch(() => undefined);
    await sim.close();
  }
}
