/**
 * Benchmark `invoke`: invocations per second through the one invocation path, against a
 * bare call of the same handler, so the cost of the path itself is visible.
 *
 * What is measured, for memory storage and for SQLite (a real file in `os.tmpdir()`, WAL,
 * `synchronous=NORMAL`, deleted afterwards), each time-boxed after a warm-up:
 *
 * - `bare read handler` / `bare execute handler`: `capability.handler(input, ctx)` awaited directly
 *   with a minimal context — no validation, no storage. Measured once; the baseline for the ratio.
 * - `read`: `host.invoke('bench.lookup', …)` as `agent:bench-run` — resolve, input JSON size check,
 *   schema validation, redacted input summary, authorize (read kinds need no grant; the run is looked
 *   up), handler, output validation, one audit row (batched: `StorageAdapter.appendAuditBatched`), event.
 * - `execute`: `host.invoke('bench.submit', …)` as `agent:bench-run` with a distinct input and call id
 *   each time — validation, idempotency key (canonical JSON + SHA-256), then one transaction:
 *   authorize with a grant whose daily invocation budget makes the authorizer read the grant's usage
 *   counters for today, claim (call-id check, ledger lookup, ledger insert), charge the counters; then
 *   the handler and output validation; then a second transaction: settle (compare-and-set on the
 *   executor token) and an audit row.
 * - `execute, grant without budget`: the same through a capability whose grant has no budget, so
 *   the authorizer reads no usage: the difference to `execute` is the cost of the budget check.
 *   Measured last (listed second).
 * - `execute, 16 in flight`: the same, 16 calls outstanding at once (transactions are serialized;
 *   SQLite commits those queued together with one `COMMIT`). Measured in windows alternating with
 *   `execute` (the median of 3 each), so both see the same ledger size and heap.
 * - `execute, replayed`: an input and call id that already succeeded: the ledger returns the
 *   recorded result without calling the handler (one transaction: authorization reads, call-id lookup,
 *   audit row).
 *
 * The ledger grows during the execute scenarios; the "ledger rows" column says how many entries the
 * budgeted grant had claimed today when each measurement ended; `first→last 10%` shows the µs/op early
 * and late in the window. A second table measures `execute` on a store and host for each of
 * 0 / 1,000 / 10,000 / 50,000 entries the budgeted grant claimed today, seeded directly through
 * `StorageAdapter.transaction` (charging the grant's usage counters as claims do), measured in turns so
 * load and heap affect every size alike: the budget check reads the grant's counters for the day, so the
 * cost should not grow with the rows.
 *
 * The limit: `bare SQLite` rows run, with better-sqlite3 directly (prepared statements, no SDK code, a
 * file of the same schema, WAL, `synchronous=NORMAL`), the same SQL statements the full path issues on
 * SQLite for that scenario, in the same transactions (see {@link BARE_SQLITE}): the cost of the storage work
 * alone. Every row is compared with the bare SQLite row of its scenario (`÷ bare SQLite` = the row's
 * throughput divided by the bare throughput; 1.0 means the path costs nothing beyond storage). The `16 in
 * flight` row is compared with bare `execute` (two transactions per call): the full path commits
 * transactions queued together with one `COMMIT` (group commit), so it may do fewer commits than that.
 *
 * PostgreSQL (when the server at `MEDIA_AGENT_PG_URL`, default `postgres://postgres@127.0.0.1:5432/test`,
 * answers; else one line says the rows were skipped): the same scenarios through `PostgresStorage` in one
 * process (`postgres (1 process)`), and `bare pg` rows that send with node-postgres alone, on one
 * connection, the statements the adapter sends for that scenario in the same transactions (see
 * `bench/_bare-postgres.ts`); each PostgreSQL row is divided by the bare `pg` row of its scenario. Each in
 * a fresh schema, dropped afterwards.
 *
 * Figures are from one run on the machine that printed them; compare rows, not machines.
 * Run with `npm run bench -- invoke`.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { printMachine, printTable } from './_report';
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
import { createSqliteStorage } from '../packages/sdk/src/sqlite';
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

/** Length of one measurement window. */
const MEASURE_MS = 1500;
/** Length of the warm-up before each measurement (not counted). */
const WARMUP_MS = 250;
/** Calls outstanding at once in the concurrent variant. */
const IN_FLIGHT = 16;
/** Alternating windows of `execute` one at a time and {@link IN_FLIGHT} in flight (each {@link MEASURE_MS} ÷ ROUNDS long). */
const ROUNDS = 3;

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
  /** µs/op over the first and the last 10% of the window (sequential runs only). */
  early?: number;
  late?: number;
}

/** The scenarios a bare SQLite baseline exists for. */
type BareScenario = 'read' | 'execute' | 'execute, grant without budget' | 'execute, replayed';

interface Row {
  scenario: string;
  storage: string;
  m: Measurement;
  /** Bare-handler µs/op this row is compared with. */
  baseline: number | undefined;
  /** The bare SQLite scenario this row is compared with. */
  bare?: BareScenario;
  /** Which bare SQLite measurements (id scheme) it is compared with. */
  ids?: IdScheme;
  /** `pg`: a PostgreSQL row, compared with the bare `pg` measurement of its scenario instead. */
  store?: 'pg';
  ledgerRows?: number;
}

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
/** The measurement with the median throughput. */
const median = (list: Measurement[]): Measurement =>
  [...list].sort((a, b) => a.ops / a.ms - b.ops / b.ms)[Math.floor(list.length / 2)]!;
const opsPerSec = (m: Measurement) => (m.ops * 1000) / m.ms;

/**
 * Measures the full path on one storage; returns its rows. The host owns (and closes) the storage.
 * `options.ids` replaces the host's id generator; `options.only` limits the scenarios to `read` and `execute`.
 */
async function benchStorage(
  label: string,
  storage: StorageAdapter,
  bare: { read: number; execute: number },
  options: { ids?: IdGenerator; only?: boolean } = {},
): Promise<Row[]> {
  const host: AgentHost = createAgentHost({
    storage,
    logger: new ConsoleLogger('silent'),
    ...(options.ids ? { ids: options.ids } : {}),
  });
  const rows: Row[] = [];
  try {
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
    const ledgerRows = async () => (await host.grants.usageToday(grant.id)).invocations;

    const read = async (i: number) =>
      expect(await host.invoke('bench.lookup', lookupInput(i), { actor: ACTOR, runId: RUN_ID }), 'succeeded', false);
    await timeBoxed(read, WARMUP_MS);
    rows.push({
      scenario: 'read',
      storage: label,
      m: await timeBoxed(read, MEASURE_MS),
      baseline: bare.read,
      bare: 'read',
    });

    // Every execute call gets a fresh n (input) and call id, so each one claims a new ledger entry.
    // One call at a time and 16 in flight are measured in alternating windows (the median of each is
    // reported), so both see the same ledger sizes and heap.
    let n = 0;
    const execute = async (i: number) =>
      expect(
        await host.invoke('bench.submit', submitInput(i), { actor: ACTOR, runId: RUN_ID, callId: `c${i}` }),
        'succeeded',
        false,
      );
    let m = await timeBoxed(execute, WARMUP_MS, n);
    n += m.ops;
    m = await concurrent(execute, WARMUP_MS, IN_FLIGHT, n);
    n += m.ops;
    const sequential: Measurement[] = [];
    const parallel: Measurement[] = [];
    const rounds = options.only ? 1 : ROUNDS;
    for (let r = 0; r < rounds; r++) {
      m = await timeBoxed(execute, MEASURE_MS / rounds, n);
      n += m.ops;
      sequential.push(m);
      if (options.only) break;
      m = await concurrent(execute, MEASURE_MS / rounds, IN_FLIGHT, n);
      n += m.ops;
      parallel.push(m);
    }
    rows.push({
      scenario: 'execute',
      storage: label,
      m: median(sequential),
      baseline: bare.execute,
      bare: 'execute',
      ledgerRows: await ledgerRows(),
    });
    if (options.only) return rows;
    rows.push({
      scenario: `execute, ${IN_FLIGHT} in flight`,
      storage: label,
      m: median(parallel),
      baseline: bare.execute,
      bare: 'execute',
      ledgerRows: await ledgerRows(),
    });

    // Same input and call id as an earlier successful call: the recorded result comes back.
    const executed = n;
    const replay = async (i: number) => {
      const k = i % executed;
      expect(
        await host.invoke('bench.submit', submitInput(k), { actor: ACTOR, runId: RUN_ID, callId: `c${k}` }),
        'succeeded',
        true,
      );
    };
    await timeBoxed(replay, WARMUP_MS);
    rows.push({
      scenario: 'execute, replayed',
      storage: label,
      m: await timeBoxed(replay, MEASURE_MS, 7919),
      baseline: bare.execute,
      bare: 'execute, replayed',
      ledgerRows: await ledgerRows(),
    });

    // Measured last (listed second), as before budgets were counters.
    const unbudgeted = async (i: number) =>
      expect(
        await host.invoke('bench.enqueue', submitInput(i), { actor: ACTOR, runId: RUN_ID, callId: `e${i}` }),
        'succeeded',
        false,
      );
    m = await timeBoxed(unbudgeted, WARMUP_MS);
    rows.splice(2, 0, {
      scenario: 'execute, grant without budget',
      storage: label,
      m: await timeBoxed(unbudgeted, MEASURE_MS, m.ops),
      baseline: bare.execute,
      bare: 'execute, grant without budget',
    });
  } finally {
    await host.stop();
  }
  return rows;
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

/** µs/op of each {@link BARE_SQLITE} scenario (or of `only`), on a fresh file each. */
async function benchBareSqlite(
  dir: string,
  ids: IdScheme,
  only?: readonly BareScenario[],
): Promise<Record<BareScenario, Measurement>> {
  const out = {} as Record<BareScenario, Measurement>;
  for (const [index, scenario] of (Object.keys(BARE_SQLITE) as BareScenario[]).entries()) {
    if (only && !only.includes(scenario)) continue;
    const db = new Database(join(dir, `bare-${ids}-${index}.db`), { timeout: 5000 });
    try {
      db.pragma('busy_timeout = 5000');
      db.pragma('foreign_keys = ON');
      db.pragma('synchronous = NORMAL');
      db.pragma('wal_autocheckpoint = 4000'); // as SqliteStorage
      db.pragma('journal_mode = WAL');
      applySqliteMigrations(db);
      const op = bareOperation(db, scenario, ids);
      let m = await timeBoxed(op, WARMUP_MS);
      const n = m.ops;
      m = await timeBoxed(op, MEASURE_MS, n);
      out[scenario] = m;
      op.finish?.();
    } finally {
      db.close();
    }
  }
  return out;
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

/**
 * The PostgreSQL rows, appended to `rows`: bare `pg` ({@link BARE_PG}, one connection) and the full path on
 * `PostgresStorage` in one process, each in a fresh schema on the server at `MEDIA_AGENT_PG_URL` (default
 * `postgres://postgres@127.0.0.1:5432/test`), dropped afterwards. Without a server: one line, no rows.
 * @returns the bare `pg` measurements by scenario, or undefined when skipped
 */
async function benchPostgres(
  rows: Row[],
  bare: { read: number; execute: number },
): Promise<Record<BareScenario, Measurement> | undefined> {
  const unreachable = await postgresUnreachable();
  if (unreachable) {
    console.log(`PostgreSQL rows skipped: no server at ${PG_SERVER_URL} (${unreachable})`);
    return undefined;
  }
  const prefix = `ma_bench_invoke_${process.pid}_${Date.now()}`;
  const schemas: string[] = [];
  const out = {} as Record<BareScenario, Measurement>;
  try {
    for (const [index, scenario] of (Object.keys(BARE_PG) as BareScenario[]).entries()) {
      const schema = `${prefix}_bare${index}`;
      schemas.push(schema);
      await createBareSchema(PG_SERVER_URL, schema);
      const client = new pg.Client({ connectionString: PG_SERVER_URL });
      await client.connect();
      try {
        const summary = JSON.stringify(scenario === 'read' ? lookupInput(0) : submitInput(0));
        const op = await barePgOperation(client, schema, scenario, { actor: ACTOR, runId: RUN_ID, summary });
        const warm = await timeBoxed(op, WARMUP_MS);
        out[scenario] = await timeBoxed(op, MEASURE_MS, warm.ops);
      } finally {
        await client.end();
      }
      rows.push({ scenario, storage: 'bare pg', m: out[scenario], baseline: undefined, bare: scenario, store: 'pg' });
    }
    const schema = `${prefix}_full`;
    schemas.push(schema);
    const full = await benchStorage(
      'postgres (1 process)',
      new PostgresStorage({ connectionString: PG_SERVER_URL, schema }),
      bare,
    );
    rows.push(...full.map((r) => ({ ...r, store: 'pg' as const })));
    return out;
  } finally {
    for (const schema of schemas) await dropPostgresSchema(PG_SERVER_URL, schema).catch(() => undefined);
  }
}

function fmt(x: number | undefined, digits = 1): string {
  if (x === undefined || !Number.isFinite(x)) return '–';
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(digits);
}

function printResults(
  rows: Row[],
  bareSqlite: Record<IdScheme, Record<BareScenario, Measurement>>,
  barePg: Record<BareScenario, Measurement> | undefined,
): void {
  const header = [
    'scenario',
    'storage',
    'ops/s',
    'µs/op',
    'first→last 10% µs/op',
    'vs bare handler',
    '÷ bare store',
    'ledger rows',
  ];
  const bareOf = (r: Row): Measurement =>
    r.store === 'pg' ? barePg![r.bare!] : bareSqlite[r.ids ?? 'default'][r.bare!];
  const isBare = (r: Row) => r.storage.startsWith('bare ');
  const body = rows.map((r) => [
    r.scenario,
    r.storage,
    fmt(opsPerSec(r.m)),
    fmt(usPerOp(r.m), 2),
    r.m.early !== undefined && r.m.late !== undefined && r.baseline !== undefined
      ? `${fmt(r.m.early, 2)} → ${fmt(r.m.late, 2)}`
      : '',
    r.baseline === undefined ? (isBare(r) ? '' : 'baseline') : `${fmt(usPerOp(r.m) / r.baseline)}×`,
    r.bare === undefined ? '' : isBare(r) ? 'baseline' : `${(opsPerSec(r.m) / opsPerSec(bareOf(r))).toFixed(2)}×`,
    r.ledgerRows === undefined ? '' : r.ledgerRows.toLocaleString('en-US'),
  ]);
  printTable(header, body, new Set([2, 3, 4, 5, 6, 7]));
}

/** Entry point called by `bench/run.ts`. */
export async function run(): Promise<void> {
  printMachine();
  console.log(
    `one run on this machine; each figure is a ${MEASURE_MS} ms window after a ${WARMUP_MS} ms warm-up; compare rows, not machines.`,
  );
  console.log('');

  const started = performance.now();
  const bareRead = async (i: number) => void (await lookup.handler(lookupInput(i), bareCtx));
  const bareExecute = async (i: number) => void (await submit.handler(submitInput(i), bareCtx));
  await timeBoxed(bareRead, WARMUP_MS);
  const mRead = await timeBoxed(bareRead, MEASURE_MS);
  await timeBoxed(bareExecute, WARMUP_MS);
  const mExecute = await timeBoxed(bareExecute, MEASURE_MS);
  const bare = { read: usPerOp(mRead), execute: usPerOp(mExecute) };
  const rows: Row[] = [
    { scenario: 'bare read handler', storage: '–', m: mRead, baseline: undefined },
    { scenario: 'bare execute handler', storage: '–', m: mExecute, baseline: undefined },
  ];

  rows.push(...(await benchStorage('memory', new MemoryStorage(), bare)));

  const scaling: [string, number[]][] = [['memory', await benchLedgerScaling(() => new MemoryStorage())]];

  const dir = mkdtempSync(join(tmpdir(), 'media-agent-bench-'));
  const bareSqlite = {} as Record<IdScheme, Record<BareScenario, Measurement>>;
  let scalingFiles = 0;
  try {
    bareSqlite.default = await benchBareSqlite(dir, 'default');
    for (const scenario of Object.keys(BARE_SQLITE) as BareScenario[])
      rows.push({
        scenario,
        storage: 'bare SQLite',
        m: bareSqlite.default[scenario],
        baseline: undefined,
        bare: scenario,
      });
    rows.push(
      ...(await benchStorage('sqlite (file, WAL)', createSqliteStorage({ path: join(dir, 'bench.db') }), bare)),
    );
    scaling.push([
      'sqlite (file, WAL)',
      await benchLedgerScaling(() => createSqliteStorage({ path: join(dir, `scaling-${scalingFiles++}.db`) })),
    ]);
    // The same with ids in random order (the host's IdGenerator replaced), full path and bare.
    bareSqlite['uuid-v4'] = await benchBareSqlite(dir, 'uuid-v4', ['read', 'execute']);
    for (const scenario of ['read', 'execute'] as const)
      rows.push({
        scenario,
        storage: 'bare SQLite, UUID v4 ids',
        m: bareSqlite['uuid-v4'][scenario],
        baseline: undefined,
        bare: scenario,
        ids: 'uuid-v4',
      });
    const random = await benchStorage(
      'sqlite, UUID v4 ids',
      createSqliteStorage({ path: join(dir, 'uuid-v4.db') }),
      bare,
      { ids: new UuidV4Ids(), only: true },
    );
    rows.push(...random.map((r) => ({ ...r, ids: 'uuid-v4' as const })));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const barePg = await benchPostgres(rows, bare);

  printResults(rows, bareSqlite, barePg);
  console.log('');
  console.log(
    'vs bare handler = µs/op of the row ÷ µs/op of the bare handler of the same kind (replayed execute is compared with the bare execute handler).',
  );
  console.log(
    `÷ bare SQLite = throughput of the row ÷ throughput of better-sqlite3 alone running the same statements in the same transactions (the "bare SQLite" rows; ${IN_FLIGHT} in flight is compared with bare execute):`,
  );
  for (const [scenario, statements] of Object.entries(BARE_SQLITE)) console.log(`  ${scenario}: ${statements}`);
  if (barePg) {
    console.log(
      'PostgreSQL rows are compared with node-postgres alone ("bare pg": one connection, the statements PostgresStorage sends, in the same transactions):',
    );
    for (const [scenario, statements] of Object.entries(BARE_PG)) console.log(`  ${scenario}: ${statements}`);
  }
  console.log(
    'ids: the host\'s default RandomIdGenerator (UUID v7: sorted by creation time) and the same in bare SQLite; "UUID v4 ids" rows replace both with ids in random order, as the default made them before (audit id and invocation id are B-tree index keys).',
  );
  console.log(
    `ledger rows = entries the budgeted grant had claimed today when the window ended (its usage counter for the day).`,
  );
  console.log(
    `µs/op of the "${IN_FLIGHT} in flight" row is wall time ÷ calls (inverse throughput), not the latency of one call.`,
  );
  console.log(
    `SQLite: one file in ${tmpdir()}, WAL, synchronous=NORMAL (no fsync per commit, two at each WAL checkpoint, every 4000 pages), deleted afterwards.`,
  );
  if (barePg)
    console.log(
      `PostgreSQL: the server at ${PG_SERVER_URL} (its own settings: fsync and synchronous_commit as configured there), a fresh schema per line, dropped afterwards; the full path in one process (PostgresStorage, pool of 4, transactions one at a time per adapter).`,
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
  console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
