/**
 * Benchmark `invoke`: invocations per second through the one invocation path, against a bare call of
 * the same handler and against the storage work alone, so the cost of the path itself is visible.
 *
 * Scenarios, each through `host.invoke` as `agent:bench-run`, on memory storage, on SQLite (a real file in
 * `os.tmpdir()`, WAL, `synchronous=NORMAL`, deleted afterwards) and on PostgreSQL when a server answers:
 *
 * - `read`: `host.invoke('bench.lookup', …)` — resolve, input JSON size check, schema validation,
 *   redacted input summary, authorize (read kinds need no grant; the run is looked up), handler, output
 *   validation, one audit row (batched: `StorageAdapter.appendAuditBatched`), event.
 * - `execute`: `host.invoke('bench.submit', …)` with a distinct input and call id each time —
 *   validation, idempotency key (canonical JSON + SHA-256), then one transaction: authorize with a grant
 *   whose daily invocation budget makes the authorizer read the grant's usage counters for today, claim
 *   (call-id check, ledger lookup, ledger insert), charge the counters; then the handler and output
 *   validation; then a second transaction: settle (compare-and-set on the executor token) and an audit row.
 * - `execute, 16 in flight`: the same, 16 calls outstanding at once (transactions are serialized; SQLite
 *   commits those queued together with one `COMMIT`).
 * - `execute, grant without budget`: the same through a capability whose grant has no budget, so the
 *   authorizer reads no usage: the difference to `execute` is the cost of the budget check.
 * - `execute, replayed`: an input and call id that already succeeded: the ledger returns the recorded
 *   result without calling the handler (one transaction: authorization reads, call-id lookup, audit row).
 *
 * Baselines, measured in the same rounds as the rows they are compared with:
 * - `bare handler`: `capability.handler(input, ctx)` awaited directly with a minimal context (`vs bare
 *   handler` = the row's µs/op ÷ the bare handler's µs/op; replayed execute is compared with the bare
 *   execute handler).
 * - `bare SQLite`: better-sqlite3 directly (prepared statements, no SDK code, a file of the same schema, WAL,
 *   `synchronous=NORMAL`) running the statements the full path issues on SQLite for that scenario, in the
 *   same transactions ({@link BARE_SQLITE}): the storage work alone. `÷ bare store` = the row's throughput ÷
 *   the bare throughput (1.0: the path costs nothing beyond storage). The `16 in flight` rows are compared
 *   with bare `execute` (two transactions per call; the full path may group-commit fewer).
 * - `bare pg` (PostgreSQL, `MEDIA_AGENT_PG_URL`, default `postgres://postgres@127.0.0.1:5432/test`; else one
 *   line says the rows were skipped): node-postgres alone on one connection sending the statements
 *   `PostgresStorage` sends for that scenario in the same transactions (`bench/_bare-postgres.ts`). Each in a
 *   fresh schema, dropped afterwards.
 *
 * Method: every line of a scenario is open at once (hosts, files, connections) and warmed up
 * ({@link WARMUP_MS} ms each); then `BENCH_ROUNDS` (default {@link DEFAULT_ROUNDS}, at least 9) rounds give
 * every line one {@link WINDOW_MS} ms window, the order rotating each round (`roundOrder`). Wall time and
 * CPU time of this process (`process.cpuUsage`, user + system; a PostgreSQL server's own CPU is not in it)
 * are taken around each window. Each ratio is formed per round and printed as the median and interquartile
 * range over the rounds (`_stats.ts`), so load that falls on one round falls on both sides of its ratio.
 * The same is done for `read` and `execute` with ids in random order (UUID v4, the host's `IdGenerator`
 * replaced, bare SQLite alike). The load average is printed before and after.
 *
 * The ledger grows during the execute scenarios; the "ledger rows" column says how many entries the
 * budgeted grant had claimed today when the scenario ended. A second table measures `execute` on a store
 * and host for each of 0 / 1,000 / 10,000 / 50,000 entries the budgeted grant claimed today, seeded
 * directly through `StorageAdapter.transaction` (charging the grant's usage counters as claims do),
 * measured in turns so load and heap affect every size alike: the budget check reads the grant's counters
 * for the day, so the cost should not grow with the rows.
 *
 * Figures are from one run on the machine that printed them; compare rows, not machines.
 * Run with `npm run bench -- invoke`.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { printMachine, printTable } from './_report';
import { formatRatio, formatSpread, roundOrder, spread, envInt } from './_stats';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Type from 'typebox';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  RandomIdGenerator,
  type AgentHost,
  type HandlerContext,
  type IdGenerator,
  type InvocationResult,
  type StorageAdapter,
} from '../packages/sdk/src/index';
import { MemoryStorage, type LedgerEntry } from '../packages/sdk/src/storage';
import Database from 'better-sqlite3';
import { createSqliteStorage, DEFAULT_SQLITE_PAGE_SIZE_BYTES } from '../packages/sdk/src/sqlite';
import { utcDayStart } from '../packages/sdk/src/core/utc-day';
import { applySqliteMigrations } from '../packages/sdk/src/storage/sqlite/migrations';
import pg from 'pg';
import { PostgresStorage } from '../packages/sdk/src/postgres';
import { BARE_PG, barePgOperation, createBareSchema } from './_bare-postgres';
import {
  dropPostgresSchema,
  PG_SERVER_URL,
  postgresUnreachable,
} from '../packages/host-adapter-v3/test/scale-out/storage-spec';

/** Length of one line's window in one round. */
const WINDOW_MS = 150;
/** Length of each line's warm-up before the first round (not counted). */
const WARMUP_MS = 250;
/** Calls outstanding at once in the concurrent variant. */
const IN_FLIGHT = 16;
/** Rounds when `BENCH_ROUNDS` is not set. */
const DEFAULT_ROUNDS = 9;

const ACTOR = 'agent:bench-run' as const;
const RUN_ID = 'run-1';

const lookup = defineCapability({
  id: 'bench.lookup',
  version: 1,
  title: 'Look up a release',
  description: 'Returns what the library knows about a release (benchmark stub).',
  kind: 'read',
  replay: 'safe',
  input: Type.Object({ releaseId: Type.String(), includeFiles: Type.Boolean() }),
  output: Type.Object({
    releaseId: Type.String(),
    title: Type.String(),
    year: Type.Integer(),
    files: Type.Array(Type.String()),
  }),
  handler: async (input) => ({
    releaseId: input.releaseId,
    title: 'Some Movie',
    year: 2024,
    files: input.includeFiles ? ['Some.Movie.2024.1080p.mkv'] : [],
  }),
});

const submit = defineCapability({
  id: 'bench.submit',
  version: 1,
  title: 'Submit a download',
  description: 'Pretends to hand a release to the download client (benchmark stub).',
  kind: 'execute',
  replay: 'reconcile',
  input: Type.Object({ n: Type.Integer(), release: Type.String(), savePath: Type.String(), category: Type.String() }),
  output: Type.Object({ jobId: Type.String(), accepted: Type.Boolean() }),
  handler: async (input) => ({ jobId: `job-${input.n}`, accepted: true }),
});

/** Same as `bench.submit`, covered by a grant without a budget. */
const enqueue = defineCapability({ ...submit, id: 'bench.enqueue', title: 'Enqueue a download' });

const lookupInput = (n: number) => ({ releaseId: `rel-${n}`, includeFiles: true });
const submitInput = (n: number) => ({
  n,
  release: 'Some.Movie.2024.1080p.WEB-DL',
  savePath: '/media/downloads/movies',
  category: 'movies',
});

/** The minimal context a bare handler call gets (built once; the handlers above ignore it). */
const bareCtx: HandlerContext = {
  invocationId: 'inv-bare',
  idempotencyKey: undefined,
  actor: ACTOR,
  runId: RUN_ID,
  taskId: undefined,
  callId: undefined,
  plan: undefined,
  signal: new AbortController().signal,
  clock: { now: () => Date.now() },
  logger: new ConsoleLogger('silent'),
  pending: <O>(output: O) => ({ __pending: true as const, output }),
  progress: () => {},
  logToCaller: () => {},
};

interface Measurement {
  ops: number;
  ms: number;
  /** µs/op over the first and the last 10% of the window (sequential windows only). */
  early?: number;
  late?: number;
}

/** The scenarios a bare store baseline exists for. */
type BareScenario = 'read' | 'execute' | 'execute, grant without budget' | 'execute, replayed';

function expect(result: InvocationResult, status: InvocationResult['status'], replayed: boolean): void {
  if (result.status !== status || Boolean(result.replayed) !== replayed) {
    throw new Error(`bench: expected ${status}${replayed ? ' (replayed)' : ''}, got ${JSON.stringify(result)}`);
  }
}

/**
 * Calls `op(i)` sequentially for `ms` milliseconds, `i` counting from `from`. Time is read once per
 * batch; batches grow until one takes ≥ 2 ms, so the clock does not dominate fast operations.
 */
async function timeBoxed(op: (i: number) => Promise<unknown>, ms: number, from = 0): Promise<Measurement> {
  const samples: [ops: number, t: number][] = [];
  const start = performance.now();
  const deadline = start + ms;
  let done = 0;
  let batch = 1;
  let now = start;
  samples.push([0, start]);
  while (now < deadline) {
    const t0 = now;
    for (let k = 0; k < batch; k++) await op(from + done + k);
    done += batch;
    now = performance.now();
    samples.push([done, now]);
    if (now - t0 < 2 && batch < 65_536) batch *= 2;
  }
  const elapsed = now - start;
  const window = (a: number, b: number): number | undefined => {
    const s = samples.filter(([, t]) => t - start >= a * elapsed && t - start <= b * elapsed);
    if (s.length < 2) return undefined;
    const [o0, t0] = s[0]!;
    const [o1, t1] = s[s.length - 1]!;
    return o1 > o0 ? ((t1 - t0) * 1000) / (o1 - o0) : undefined;
  };
  return { ops: done, ms: elapsed, early: window(0, 0.1), late: window(0.9, 1) };
}

/** Keeps `inFlight` calls of `op` outstanding for `ms` milliseconds; `i` is unique per call. */
async function concurrent(
  op: (i: number) => Promise<unknown>,
  ms: number,
  inFlight: number,
  from = 0,
): Promise<Measurement> {
  const start = performance.now();
  const deadline = start + ms;
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      await op(from + next++);
      done++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { ops: done, ms: performance.now() - start };
}

const usPerOp = (m: Measurement) => (m.ms * 1000) / m.ops;
const opsPerSec = (m: Measurement) => (m.ops * 1000) / m.ms;

/** One line of a scenario while it is measured: the operation, and what it is compared with. */
interface Line {
  scenario: string;
  storage: string;
  /** Calls `op(i)` with a fresh `i` (counting up across windows). */
  op: (i: number) => Promise<unknown>;
  /** Calls outstanding at once (1: one at a time). */
  inFlight: number;
  /** The bare handler line this one is compared with (µs/op ratio). */
  handler?: Line;
  /** The bare store line this one is compared with (throughput ratio). */
  bare?: Line;
  /** A baseline line: `handler` (a bare handler) or `store` (bare SQLite / bare pg). */
  baseline?: 'handler' | 'store';
  /** Reads the ledger rows to print, after the scenario. */
  ledgerRows?: () => Promise<number>;
  /** Measured as a baseline of its group only, not printed (a bare handler already printed). */
  hidden?: boolean;
  /** Called once after the last window (the bare read commits its open batch). */
  finish?: () => void;
  next: number;
  /** Per round: wall and CPU µs per call. */
  wall: number[];
  cpu: number[];
  rows?: number;
}

/** A line with empty per-round lists. */
function line(fields: Omit<Line, 'next' | 'wall' | 'cpu'>): Line {
  return { ...fields, next: 0, wall: [], cpu: [] };
}

/** Runs one window of `l` for `ms`; returns the measurement and the CPU µs used. */
async function window(l: Line, ms: number): Promise<{ m: Measurement; cpuUs: number }> {
  const cpu0 = process.cpuUsage();
  const m = l.inFlight > 1 ? await concurrent(l.op, ms, l.inFlight, l.next) : await timeBoxed(l.op, ms, l.next);
  const cpu = process.cpuUsage(cpu0);
  l.next += m.ops;
  return { m, cpuUs: cpu.user + cpu.system };
}

/**
 * Measures the lines of one scenario against each other: each is warmed up for {@link WARMUP_MS}, then
 * `rounds` rounds give every line one {@link WINDOW_MS} window, the order rotating each round.
 */
async function interleave(lines: Line[], rounds: number): Promise<void> {
  for (const l of lines) await window(l, WARMUP_MS);
  for (let round = 0; round < rounds; round++)
    for (const i of roundOrder(lines.length, round)) {
      const l = lines[i]!;
      const { m, cpuUs } = await window(l, WINDOW_MS);
      l.wall.push(usPerOp(m));
      l.cpu.push(cpuUs / m.ops);
    }
  for (const l of lines) {
    l.finish?.();
    if (l.ledgerRows) l.rows = await l.ledgerRows();
  }
}

/** A host of the full path on one store, with the benchmark's capabilities and grants, and its operations. */
interface FullHost {
  label: string;
  host: AgentHost;
  read: (i: number) => Promise<void>;
  execute: (i: number) => Promise<void>;
  unbudgeted: (i: number) => Promise<void>;
  /** Replays execute call `i % executed` (every execute call below `executed` succeeded). */
  replay: (i: number) => Promise<void>;
  /** Execute calls made so far (their `i` are 0 … executed − 1). */
  executed: () => number;
  ledgerRows: () => Promise<number>;
}

/** Starts a host on `storage` (which it owns and closes) with the benchmark's capabilities and grants. */
async function fullHost(label: string, storage: StorageAdapter, ids?: IdGenerator): Promise<FullHost> {
  const host: AgentHost = createAgentHost({
    storage,
    logger: new ConsoleLogger('silent'),
    ...(ids ? { ids } : {}),
  });
  await host.start();
  host.capabilities.register(lookup);
  host.capabilities.register(submit);
  host.capabilities.register(enqueue);
  const grant = await host.grants.create({
    action: 'bench.submit',
    actor: 'user:admin',
    budget: { maxInvocationsPerDay: 10_000_000 },
    reason: 'benchmark',
  });
  await host.grants.create({ action: 'bench.enqueue', actor: 'user:admin', reason: 'benchmark, no budget' });
  let executed = 0;
  return {
    label,
    host,
    read: async (i) =>
      expect(await host.invoke('bench.lookup', lookupInput(i), { actor: ACTOR, runId: RUN_ID }), 'succeeded', false),
    // Every execute call gets a fresh n (input) and call id, so each one claims a new ledger entry.
    execute: async (i) => {
      expect(
        await host.invoke('bench.submit', submitInput(i), { actor: ACTOR, runId: RUN_ID, callId: `c${i}` }),
        'succeeded',
        false,
      );
      executed = Math.max(executed, i + 1);
    },
    unbudgeted: async (i) =>
      expect(
        await host.invoke('bench.enqueue', submitInput(i), { actor: ACTOR, runId: RUN_ID, callId: `e${i}` }),
        'succeeded',
        false,
      ),
    replay: async (i) => {
      const k = i % executed;
      expect(
        await host.invoke('bench.submit', submitInput(k), { actor: ACTOR, runId: RUN_ID, callId: `c${k}` }),
        'succeeded',
        true,
      );
    },
    executed: () => executed,
    ledgerRows: async () => (await host.grants.usageToday(grant.id)).invocations,
  };
}

/** A bare store: its operation per scenario (one file / schema each) and how to close it. */
interface BareStore {
  label: string;
  ops: Record<BareScenario, ((i: number) => Promise<unknown>) & { finish?: () => void }>;
  close: () => Promise<void>;
}

/** Bare better-sqlite3 ({@link BARE_SQLITE}): one fresh file per scenario in `dir`. */
function bareSqlite(dir: string, ids: IdScheme, label: string): BareStore {
  const dbs: Database.Database[] = [];
  const ops = {} as BareStore['ops'];
  for (const [index, scenario] of (Object.keys(BARE_SQLITE) as BareScenario[]).entries()) {
    const db = new Database(join(dir, `bare-${ids}-${index}.db`), { timeout: 5000 });
    dbs.push(db);
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    // As SqliteStorage makes a new file: its page size, incremental vacuum, and a checkpoint every 16 MiB of WAL.
    db.pragma(`page_size = ${DEFAULT_SQLITE_PAGE_SIZE_BYTES}`);
    db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma(`wal_autocheckpoint = ${(16 * 1024 * 1024) / DEFAULT_SQLITE_PAGE_SIZE_BYTES}`);
    db.pragma('journal_mode = WAL');
    applySqliteMigrations(db);
    ops[scenario] = bareOperation(db, scenario, ids);
  }
  return {
    label,
    ops,
    close: async () => {
      for (const db of dbs) db.close();
    },
  };
}

/** Bare node-postgres ({@link BARE_PG}): one fresh schema (named into `schemas`) and connection per scenario. */
async function barePg(prefix: string, schemas: string[]): Promise<BareStore> {
  const clients: pg.Client[] = [];
  const ops = {} as BareStore['ops'];
  try {
    for (const [index, scenario] of (Object.keys(BARE_PG) as BareScenario[]).entries()) {
      const schema = `${prefix}_bare${index}`;
      schemas.push(schema);
      await createBareSchema(PG_SERVER_URL, schema);
      const client = new pg.Client({ connectionString: PG_SERVER_URL });
      clients.push(client);
      await client.connect();
      const summary = JSON.stringify(scenario === 'read' ? lookupInput(0) : submitInput(0));
      ops[scenario] = await barePgOperation(client, schema, scenario, { actor: ACTOR, runId: RUN_ID, summary });
    }
  } catch (error) {
    for (const c of clients) await c.end().catch(() => undefined);
    throw error;
  }
  return {
    label: 'bare pg',
    ops,
    close: async () => {
      for (const c of clients) await c.end();
    },
  };
}

/** A full store and the bare store it is compared with. */
interface Pair {
  full: FullHost;
  bare?: BareStore;
}

/**
 * The lines of every scenario for `pairs` (and the bare handlers), each scenario measured by
 * {@link interleave}; returns the lines in print order.
 */
async function measureScenarios(
  pairs: Pair[],
  rounds: number,
  options: { scenarios?: readonly BareScenario[]; inFlight?: boolean; showHandlers?: boolean } = {},
): Promise<Line[]> {
  const out: Line[] = [];
  const scenarios = options.scenarios ?? ['read', 'execute', 'execute, grant without budget', 'execute, replayed'];
  for (const scenario of scenarios) {
    const group: Line[] = [];
    // A bare handler in every group, so each ratio to it is formed within the same rounds.
    const handler =
      scenario === 'read'
        ? line({
            scenario: 'bare read handler',
            storage: '–',
            op: (i) => lookup.handler(lookupInput(i), bareCtx),
            inFlight: 1,
            baseline: 'handler',
          })
        : line({
            scenario: 'bare execute handler',
            storage: '–',
            op: (i) => submit.handler(submitInput(i), bareCtx),
            inFlight: 1,
            baseline: 'handler',
          });
    if (!options.showHandlers || (scenario !== 'read' && scenario !== 'execute')) handler.hidden = true;
    group.push(handler);
    const bares = new Map<BareStore, Line>();
    for (const { bare } of pairs)
      if (bare && !bares.has(bare)) {
        const op = bare.ops[scenario];
        const l = line({ scenario, storage: bare.label, op, inFlight: 1, baseline: 'store' });
        if (op.finish) l.finish = op.finish;
        bares.set(bare, l);
        group.push(l);
      }
    for (const { full, bare } of pairs) {
      const b = bare ? bares.get(bare) : undefined;
      const common = { storage: full.label, handler, ...(b ? { bare: b } : {}) };
      if (scenario === 'read') group.push(line({ ...common, scenario, op: full.read, inFlight: 1 }));
      else if (scenario === 'execute') {
        // Both share the call counter of the host (next is kept in step below).
        const one = line({ ...common, scenario, op: full.execute, inFlight: 1, ledgerRows: full.ledgerRows });
        const many = line({
          ...common,
          scenario: `execute, ${IN_FLIGHT} in flight`,
          op: full.execute,
          inFlight: IN_FLIGHT,
          ledgerRows: full.ledgerRows,
        });
        // One counter for both lines: every call gets a distinct n and call id.
        const shared = { n: 0 };
        for (const l of [one, many])
          Object.defineProperty(l, 'next', { get: () => shared.n, set: (v: number) => void (shared.n = v) });
        group.push(one);
        if (options.inFlight !== false) group.push(many);
      } else if (scenario === 'execute, grant without budget')
        group.push(line({ ...common, scenario, op: full.unbudgeted, inFlight: 1 }));
      else {
        if (full.executed() === 0) throw new Error(`${full.label}: nothing to replay`);
        group.push(line({ ...common, scenario, op: full.replay, inFlight: 1, ledgerRows: full.ledgerRows }));
      }
    }
    await interleave(group, rounds);
    out.push(...group);
  }
  return out;
}

/** Ledger sizes (entries the budgeted grant claimed today) at which `execute` is measured again. */
const LEDGER_SIZES = [0, 1_000, 10_000, 50_000];
/** Measurement window at each ledger size (the median of {@link SCALING_ROUNDS} windows is reported). */
const SCALING_MS = 200;
/** Windows measured at each ledger size, in turn with the other sizes. */
const SCALING_ROUNDS = 7;

/**
 * µs/op of `execute` (budgeted grant) at each of {@link LEDGER_SIZES}: a fresh store (from `makeStorage`)
 * and host per size, its ledger seeded with that many entries the grant claimed today; after a warm-up of
 * each, {@link SCALING_ROUNDS} rounds of one window per size in turn, and the median window of each size.
 * The sizes share the process, the heap and the machine's load over the same time, and differ only by
 * their seeded rows.
 */
async function benchLedgerScaling(makeStorage: () => StorageAdapter): Promise<number[]> {
  const hosts: Array<{ host: AgentHost; execute: (i: number) => Promise<void>; n: number; rounds: number[] }> = [];
  try {
    for (const size of LEDGER_SIZES) {
      const storage = makeStorage();
      const host = createAgentHost({ storage, logger: new ConsoleLogger('silent') });
      await host.start();
      hosts.push({ host, execute: async () => undefined, n: 0, rounds: [] });
      host.capabilities.register(submit);
      const grant = await host.grants.create({
        action: 'bench.submit',
        actor: 'user:admin',
        budget: { maxInvocationsPerDay: 10_000_000 },
      });
      const now = Date.now();
      await storage.transaction(async (s) => {
        // What the claims would have charged.
        await s.grantUsage.add(grant.id, utcDayStart(now), size, 0);
        for (let k = 0; k < size; k++) {
          const entry: LedgerEntry = {
            key: `bench.submit:v1:seed:${k}`,
            capabilityId: 'bench.submit',
            capabilityVersion: 1,
            scopeId: 'seed',
            callId: `s${k}`,
            argsHash: String(k).padStart(64, '0'),
            state: 'succeeded',
            token: `tok-seed-${k}`,
            actor: ACTOR,
            invocationId: `inv-seed-${k}`,
            runId: 'seed',
            taskId: null,
            approvalId: null,
            grantId: grant.id,
            bytes: 0,
            output: { jobId: `job-seed-${k}`, accepted: true },
            error: null,
            inputSummary: JSON.stringify(submitInput(k)),
            attempts: 1,
            claimedAt: now,
            updatedAt: now,
            settledAt: now,
          };
          await s.ledger.insert(entry);
        }
      });
      hosts[hosts.length - 1]!.execute = async (i: number) =>
        expect(
          await host.invoke('bench.submit', submitInput(i), { actor: ACTOR, runId: RUN_ID, callId: `c${i}` }),
          'succeeded',
          false,
        );
    }
    for (const h of hosts) h.n += (await timeBoxed(h.execute, WARMUP_MS, h.n)).ops;
    for (let r = 0; r < SCALING_ROUNDS; r++) {
      for (const h of hosts) {
        const m = await timeBoxed(h.execute, SCALING_MS, h.n);
        h.n += m.ops;
        h.rounds.push(usPerOp(m));
      }
    }
  } finally {
    for (const h of hosts) await h.host.stop();
  }
  return hosts.map((h) => h.rounds.sort((a, b) => a - b)[Math.floor(SCALING_ROUNDS / 2)]!);
}

/**
 * The statements the full path issues on SQLite per call, by scenario (traced from `SqliteStorage`), run
 * here with better-sqlite3 directly. `read`: the run lookup of authorization (no transaction), then the
 * audit row, batched 256 rows per transaction as `appendAuditBatched` does when the event loop does not
 * turn in between. `execute`: one transaction with the authorization reads (run, automation settings,
 * grants, the grant's usage counters), the claim (lookup by call id, by key, insert) and the usage charge;
 * then one with the settle (compare-and-set on the token) and the audit row. `grant without budget`: the
 * same without the usage read. `replayed`: one transaction with the authorization reads, the lookup by
 * call id (which finds the entry) and the audit row.
 */
const BARE_SQLITE: Record<BareScenario, string> = {
  read: 'SELECT run; INSERT audit (256 per BEGIN…COMMIT)',
  execute:
    'BEGIN; SELECT run, settings, grants, usage; SELECT ledger by call, by key; INSERT ledger; UPSERT usage; COMMIT; BEGIN; UPDATE ledger; INSERT audit; COMMIT',
  'execute, grant without budget': 'as execute, without SELECT usage',
  'execute, replayed': 'BEGIN; SELECT run, settings, grants, usage; SELECT ledger by call; INSERT audit; COMMIT',
};

/**
 * Ids as the host's `IdGenerator` makes them: `default` as the default `RandomIdGenerator` (UUID version 7:
 * time first, so they sort by creation time), `uuid-v4` as before it (`<prefix>_<UUID v4 hex>`, in random
 * order). They are keys of B-tree indexes (audit `id` and `invocation_id`, executor tokens), so their order
 * decides how many pages an insert dirties.
 */
type IdScheme = 'default' | 'uuid-v4';

/** Ids in random order (`<prefix>_<UUID v4 without dashes>`): what the default generator made before UUID v7. */
class UuidV4Ids implements IdGenerator {
  next(prefix: string): string {
    return `${prefix}_${randomUUID().replaceAll('-', '')}`;
  }
}

function bareOperation(
  db: Database.Database,
  scenario: BareScenario,
  ids: IdScheme,
): ((i: number) => Promise<void>) & { finish?: () => void } {
  const now = Date.now();
  const idGen: IdGenerator = ids === 'default' ? new RandomIdGenerator() : new UuidV4Ids();
  const id = (prefix: string) => idGen.next(prefix);
  const day = utcDayStart(now);
  const grantId = 'grt_bench';
  db.prepare(
    `INSERT INTO grants (id, action, status, expires_at, policy_revision_id, scope, budget, reason, created_by, created_at, updated_at) VALUES (?, 'bench.submit', 'active', NULL, NULL, '{}', ?, NULL, 'user:admin', ?, ?)`,
  ).run(grantId, scenario === 'execute, grant without budget' ? '{}' : '{"maxInvocationsPerDay":10000000}', now, now);
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const selectRun = db.prepare('SELECT * FROM runs WHERE "id" = ?');
  const selectSettings = db.prepare('SELECT value FROM settings WHERE key = ?');
  const selectGrants = db.prepare(
    'SELECT * FROM grants WHERE (@status IS NULL OR status = @status) ORDER BY created_at, id',
  );
  const selectUsage = db.prepare('SELECT invocations, bytes FROM grant_usage WHERE grant_id = ? AND day = ?');
  const byCall = db.prepare('SELECT * FROM ledger WHERE scope_id = ? AND call_id = ?');
  const byKey = db.prepare('SELECT * FROM ledger WHERE "key" = ?');
  const insertLedger = db.prepare(
    `INSERT INTO ledger (key, capability_id, capability_version, scope_id, call_id, args_hash, state, token, actor, invocation_id, run_id, task_id, approval_id, grant_id, bytes, output, error, input_summary, attempts, claimed_at, updated_at, settled_at)
     VALUES (?, 'bench.submit', 1, ?, ?, ?, 'running', ?, ?, ?, ?, NULL, NULL, ?, 0, NULL, NULL, ?, 1, ?, ?, NULL) ON CONFLICT DO NOTHING`,
  );
  const upsertUsage = db.prepare(
    `INSERT INTO grant_usage (grant_id, day, invocations, bytes) VALUES (?, ?, 1, 0)
     ON CONFLICT (grant_id, day) DO UPDATE SET invocations = grant_usage.invocations + excluded.invocations, bytes = grant_usage.bytes + excluded.bytes RETURNING invocations, bytes`,
  );
  const settle = db.prepare(
    `UPDATE ledger SET error = NULL, output = ?, settled_at = ?, state = 'succeeded', updated_at = ? WHERE key = ? AND token = ? AND state IN (SELECT value FROM json_each(?))`,
  );
  const insertAudit = db.prepare(
    `INSERT INTO audit (id, at, action, actor, capability_id, invocation_id, run_id, task_id, outcome, approval_id, grant_id, idempotency_key, input_summary, reason)
     VALUES (?, ?, 'capability.invoke', ?, ?, ?, ?, NULL, 'succeeded', NULL, ?, ?, ?, NULL)`,
  );
  const summary = JSON.stringify(submitInput(0));
  // As deriveIdempotencyKey: the SHA-256 of the input ends the key (random order in the primary key index).
  const key = (i: number) => `bench.submit:v1:${RUN_ID}:${createHash('sha256').update(String(i)).digest('hex')}`;
  const authorizationReads = (budgeted: boolean) => {
    selectRun.get(RUN_ID);
    selectSettings.get('automation');
    selectGrants.all({ status: null });
    if (budgeted) selectUsage.get(grantId, day);
  };
  switch (scenario) {
    case 'read': {
      let pending = 0;
      const op = async (i: number) => {
        selectRun.get(RUN_ID);
        if (pending === 0) begin.run();
        insertAudit.run(
          id('aud'),
          Date.now(),
          ACTOR,
          'bench.lookup',
          id('inv'),
          RUN_ID,
          null,
          null,
          JSON.stringify(lookupInput(i)),
        );
        if (++pending === 256) {
          commit.run();
          pending = 0;
        }
      };
      return Object.assign(op, { finish: () => (pending > 0 ? void commit.run() : undefined) });
    }
    case 'execute':
    case 'execute, grant without budget': {
      const budgeted = scenario === 'execute';
      return async (i: number) => {
        const k = key(i);
        const invocationId = id('inv');
        const token = `executor~${id('tok')}`;
        begin.run();
        authorizationReads(budgeted);
        byCall.get(RUN_ID, `c${i}`);
        byKey.get(k);
        insertLedger.run(
          k,
          RUN_ID,
          `c${i}`,
          k.slice(-64),
          token,
          ACTOR,
          invocationId,
          RUN_ID,
          grantId,
          summary,
          now,
          now,
        );
        upsertUsage.get(grantId, day);
        commit.run();
        begin.run();
        settle.run(JSON.stringify({ jobId: `job-${i}`, accepted: true }), now, now, k, token, '["running"]');
        insertAudit.run(id('aud'), now, ACTOR, 'bench.submit', invocationId, RUN_ID, grantId, k, summary);
        commit.run();
      };
    }
    case 'execute, replayed': {
      // Entries to replay, claimed and settled beforehand.
      const seeded = 1000;
      begin.run();
      for (let i = 0; i < seeded; i++)
        insertLedger.run(
          key(i),
          RUN_ID,
          `c${i}`,
          key(i).slice(-64),
          `executor~${id('tok')}`,
          ACTOR,
          id('inv'),
          RUN_ID,
          grantId,
          summary,
          now,
          now,
        );
      commit.run();
      return async (i: number) => {
        const k = i % seeded;
        begin.run();
        authorizationReads(true);
        byCall.get(RUN_ID, `c${k}`);
        insertAudit.run(id('aud'), now, ACTOR, 'bench.submit', id('inv'), RUN_ID, grantId, key(k), summary);
        commit.run();
      };
    }
  }
}

function fmt(x: number | undefined, digits = 1): string {
  if (x === undefined || !Number.isFinite(x)) return '–';
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(digits);
}

function printLines(lines: Line[]): void {
  const perRound = (l: Line, base: Line, f: (row: number, baseline: number) => number) =>
    spread(l.wall.map((w, r) => f(w, base.wall[r]!)));
  printTable(
    [
      'scenario',
      'storage',
      'ops/s',
      'wall µs/op',
      'CPU µs/op',
      'vs bare handler (µs ratio)',
      '÷ bare store (throughput ratio)',
      'ledger rows',
    ],
    lines
      .filter((l) => !l.hidden)
      .map((l) => {
        const wall = spread(l.wall);
        return [
          l.scenario,
          l.storage,
          fmt(1e6 / wall.median),
          formatSpread(wall, 2),
          formatSpread(spread(l.cpu), 2),
          l.baseline === 'handler'
            ? 'baseline'
            : l.handler && !l.baseline
              ? formatRatio(
                  perRound(l, l.handler, (w, b) => w / b),
                  1,
                )
              : '',
          l.baseline === 'store' ? 'baseline' : l.bare ? formatRatio(perRound(l, l.bare, (w, b) => b / w)) : '',
          l.rows === undefined ? '' : l.rows.toLocaleString('en-US'),
        ];
      }),
    new Set([2, 3, 4, 5, 6, 7]),
  );
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** Entry point called by `bench/run.ts`. */
export async function run(): Promise<void> {
  const rounds = envInt('BENCH_ROUNDS', DEFAULT_ROUNDS, 9);
  printMachine();
  console.log(
    `one run on this machine; per scenario every line is warmed up (${WARMUP_MS} ms), then ${rounds} rounds (BENCH_ROUNDS) give each line a ${WINDOW_MS} ms window, the order rotating; ratios per round, median (IQR) printed; compare rows, not machines.`,
  );
  console.log('');

  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-bench-'));
  const unreachable = await postgresUnreachable();
  const prefix = `ma_bench_invoke_${process.pid}_${Date.now()}`;
  const schemas: string[] = [];
  const closers: Array<() => Promise<void>> = [];
  const lines: Line[] = [];
  const randomLines: Line[] = [];
  const scaling: [string, number[]][] = [];
  try {
    const sqliteBare = bareSqlite(dir, 'default', 'bare SQLite');
    closers.push(sqliteBare.close);
    const memory = await fullHost('memory', new MemoryStorage());
    closers.push(() => memory.host.stop());
    const sqlite = await fullHost('sqlite (file, WAL)', createSqliteStorage({ path: join(dir, 'bench.db') }));
    closers.push(() => sqlite.host.stop());
    const pairs: Pair[] = [
      { full: memory, bare: sqliteBare },
      { full: sqlite, bare: sqliteBare },
    ];
    if (!unreachable) {
      const bare = await barePg(prefix, schemas);
      closers.push(bare.close);
      schemas.push(`${prefix}_full`);
      const full = await fullHost(
        'postgres (1 process)',
        new PostgresStorage({ connectionString: PG_SERVER_URL, schema: `${prefix}_full` }),
      );
      closers.push(() => full.host.stop());
      pairs.push({ full, bare });
    }
    lines.push(...(await measureScenarios(pairs, rounds, { showHandlers: true })));

    // The same with ids in random order (the host's IdGenerator replaced), full path and bare.
    const randomBare = bareSqlite(dir, 'uuid-v4', 'bare SQLite, UUID v4 ids');
    closers.push(randomBare.close);
    const random = await fullHost(
      'sqlite, UUID v4 ids',
      createSqliteStorage({ path: join(dir, 'uuid-v4.db') }),
      new UuidV4Ids(),
    );
    closers.push(() => random.host.stop());
    randomLines.push(
      ...(await measureScenarios([{ full: random, bare: randomBare }], rounds, {
        scenarios: ['read', 'execute'],
        inFlight: false,
      })),
    );
    while (closers.length) await closers.pop()!();

    scaling.push(['memory', await benchLedgerScaling(() => new MemoryStorage())]);
    let scalingFiles = 0;
    scaling.push([
      'sqlite (file, WAL)',
      await benchLedgerScaling(() => createSqliteStorage({ path: join(dir, `scaling-${scalingFiles++}.db`) })),
    ]);
  } finally {
    while (closers.length) await closers.pop()!().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    for (const schema of schemas) await dropPostgresSchema(PG_SERVER_URL, schema).catch(() => undefined);
  }

  if (unreachable) console.log(`PostgreSQL rows skipped: no server at ${PG_SERVER_URL} (${unreachable})`);
  printLines([...lines, ...randomLines]);
  console.log('');
  console.log(
    "figures: median (first–third quartile) over the rounds; ops/s = 10⁶ ÷ the median wall µs/op. CPU µs/op = process.cpuUsage (user + system) during the window ÷ calls (a PostgreSQL server's own CPU is not counted).",
  );
  console.log(
    "vs bare handler = the row's µs/op ÷ the bare handler's µs/op in the same round (replayed execute and grant without budget: the bare execute handler, measured in their rounds too).",
  );
  console.log(
    `÷ bare store = the row's throughput ÷ that of the bare store in the same round (memory and SQLite rows: better-sqlite3 alone; PostgreSQL rows: node-postgres alone) running the same statements in the same transactions (${IN_FLIGHT} in flight is compared with bare execute):`,
  );
  for (const [scenario, statements] of Object.entries(BARE_SQLITE)) console.log(`  SQLite ${scenario}: ${statements}`);
  if (!unreachable)
    for (const [scenario, statements] of Object.entries(BARE_PG)) console.log(`  pg ${scenario}: ${statements}`);
  console.log(
    'ids: the host\'s default RandomIdGenerator (UUID v7: sorted by creation time) and the same in bare SQLite; "UUID v4 ids" rows replace both with ids in random order, as the default made them before (audit id and invocation id are B-tree index keys).',
  );
  console.log(
    'ledger rows = entries the budgeted grant had claimed today when the scenario ended (its usage counter for the day).',
  );
  console.log(
    `µs/op of the "${IN_FLIGHT} in flight" rows is wall time ÷ calls (inverse throughput), not the latency of one call.`,
  );
  console.log(
    `SQLite: files in ${tmpdir()}, WAL, synchronous=NORMAL (no fsync per commit, two at each WAL checkpoint, every 16 MiB of WAL, ${DEFAULT_SQLITE_PAGE_SIZE_BYTES}-byte pages on both sides), deleted afterwards.`,
  );
  if (!unreachable)
    console.log(
      `PostgreSQL: the server at ${PG_SERVER_URL} (its own fsync and synchronous_commit settings), a fresh schema per line, dropped afterwards; the full path in one process (PostgresStorage, pool of 4, transactions one at a time per adapter).`,
    );
  console.log('');
  console.log(
    `execute (budgeted grant) µs/op by entries the grant had already claimed today (a store per size, seeded and charged to the grant's usage counter as claims do; ${SCALING_ROUNDS} rounds of a ${SCALING_MS} ms window per size in turn, the median window of each):`,
  );
  const w = Math.max(...scaling.map(([label]) => label.length));
  console.log(
    `| ${'storage'.padEnd(w)} | ${LEDGER_SIZES.map((n) => `${n.toLocaleString('en-US')} rows`.padStart(12)).join(' | ')} |`,
  );
  console.log(`|${'-'.repeat(w + 2)}|${LEDGER_SIZES.map(() => `${'-'.repeat(13)}:`).join('|')}|`);
  for (const [label, us] of scaling)
    console.log(`| ${label.padEnd(w)} | ${us.map((u) => `${fmt(u, 2)} µs`.padStart(12)).join(' | ')} |`);
  for (const [label, us] of scaling)
    console.log(
      `${label}: ${LEDGER_SIZES[LEDGER_SIZES.length - 1]!.toLocaleString('en-US')} rows ÷ 0 rows = ${(us[us.length - 1]! / us[0]!).toFixed(2)}×`,
    );
  console.log('');
  console.log(`load average at end ${load()}`);
  console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
