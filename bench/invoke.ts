/**
 * Benchmark `invoke` (issue 2): invocations per second through the one invocation path, against a
 * bare call of the same handler, so the cost of the path itself is visible.
 *
 * What is measured, for memory storage and for SQLite (a real file in `os.tmpdir()`, WAL,
 * `synchronous=NORMAL`, deleted afterwards), each time-boxed after a warm-up:
 *
 * - `bare read handler` / `bare execute handler`: `capability.handler(input, ctx)` awaited directly
 *   with a minimal context — no validation, no storage. Measured once; the baseline for the ratio.
 * - `read`: `host.invoke('bench.lookup', …)` as `agent:bench-run` — resolve, input JSON size check,
 *   schema validation, redacted input summary, authorize (read kinds need no grant), handler, output
 *   validation, one audit row (its own storage transaction), event.
 * - `execute`: `host.invoke('bench.submit', …)` as `agent:bench-run` with a distinct input and call id
 *   each time — validation, idempotency key (canonical JSON + SHA-256), then one transaction:
 *   call-id check, ledger lookup, authorize with a grant whose daily invocation budget makes the
 *   authorizer count today's usage from the ledger, claim (ledger insert); then the handler and
 *   output validation; then a second transaction: settle (compare-and-set on the executor token)
 *   and an audit row.
 * - `execute, grant without budget`: the same through a capability whose grant has no budget, so
 *   the authorizer does not count usage: the difference to `execute` is the cost of the budget check.
 *   Measured last (listed second), as its ledger entries would slow the memory adapter's usage count.
 * - `execute, 16 in flight`: the same, 16 calls outstanding at once (the storage serializes
 *   transactions, so this shows queueing, not parallel speed-up).
 * - `execute, replayed`: an input and call id that already succeeded: the ledger returns the
 *   recorded result without calling the handler (one transaction: call-id check, lookup, audit row).
 *
 * The ledger grows during the execute scenarios, and the grant's budget check counts today's
 * entries for the grant on every call, so the "ledger rows" column says how many entries the grant
 * had when each measurement ended; `first→last 10%` shows the µs/op early and late in the window.
 * A second table measures `execute` on a fresh host after seeding the ledger (directly through
 * `StorageAdapter.transaction`) with 0 / 1,000 / 10,000 / 50,000 entries the budgeted grant claimed
 * today, so the per-call cost of the budget check as the day goes on is visible.
 *
 * Figures are from one run on the machine that printed them; compare rows, not machines.
 * Run with `npm run bench -- invoke`.
 */
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
  MemoryStorage,
  type AgentHost,
  type HandlerContext,
  type InvocationResult,
  type LedgerEntry,
  type StorageAdapter,
} from '../packages/sdk/src/index';
import { createSqliteStorage } from '../packages/sdk/src/sqlite';

/** Length of one measurement window. */
const MEASURE_MS = 1500;
/** Length of the warm-up before each measurement (not counted). */
const WARMUP_MS = 250;
/** Calls outstanding at once in the concurrent variant. */
const IN_FLIGHT = 16;

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
  output: Type.Object({ releaseId: Type.String(), title: Type.String(), year: Type.Integer(), files: Type.Array(Type.String()) }),
  handler: async (input) => ({ releaseId: input.releaseId, title: 'Some Movie', year: 2024, files: input.includeFiles ? ['Some.Movie.2024.1080p.mkv'] : [] }),
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
const submitInput = (n: number) => ({ n, release: 'Some.Movie.2024.1080p.WEB-DL', savePath: '/media/downloads/movies', category: 'movies' });

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
};

interface Measurement {
  ops: number;
  ms: number;
  /** µs/op over the first and the last 10% of the window (sequential runs only). */
  early?: number;
  late?: number;
}

interface Row {
  scenario: string;
  storage: string;
  m: Measurement;
  /** Bare-handler µs/op this row is compared with. */
  baseline: number | undefined;
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
async function concurrent(op: (i: number) => Promise<unknown>, ms: number, inFlight: number, from = 0): Promise<Measurement> {
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

/** Measures the full path on one storage; returns its rows. The host owns (and closes) the storage. */
async function benchStorage(label: string, storage: StorageAdapter, bare: { read: number; execute: number }): Promise<Row[]> {
  const host: AgentHost = createAgentHost({ storage, logger: new ConsoleLogger('silent') });
  const rows: Row[] = [];
  try {
    await host.start();
    host.capabilities.register(lookup);
    host.capabilities.register(submit);
    host.capabilities.register(enqueue);
    const grant = await host.grants.create({ action: 'bench.submit', actor: 'user:admin', budget: { maxInvocationsPerDay: 10_000_000 }, reason: 'benchmark' });
    await host.grants.create({ action: 'bench.enqueue', actor: 'user:admin', reason: 'benchmark, no budget' });
    const ledgerRows = async () => (await host.grants.usageToday(grant.id)).invocations;

    const read = async (i: number) => expect(await host.invoke('bench.lookup', lookupInput(i), { actor: ACTOR, runId: RUN_ID }), 'succeeded', false);
    await timeBoxed(read, WARMUP_MS);
    rows.push({ scenario: 'read', storage: label, m: await timeBoxed(read, MEASURE_MS), baseline: bare.read });

    // Every execute call gets a fresh n (input) and call id, so each one claims a new ledger entry.
    let n = 0;
    const execute = async (i: number) =>
      expect(await host.invoke('bench.submit', submitInput(i), { actor: ACTOR, runId: RUN_ID, callId: `c${i}` }), 'succeeded', false);
    let m = await timeBoxed(execute, WARMUP_MS, n);
    n += m.ops;
    m = await timeBoxed(execute, MEASURE_MS, n);
    n += m.ops;
    rows.push({ scenario: 'execute', storage: label, m, baseline: bare.execute, ledgerRows: await ledgerRows() });

    m = await concurrent(execute, WARMUP_MS, IN_FLIGHT, n);
    n += m.ops;
    m = await concurrent(execute, MEASURE_MS, IN_FLIGHT, n);
    n += m.ops;
    rows.push({ scenario: `execute, ${IN_FLIGHT} in flight`, storage: label, m, baseline: bare.execute, ledgerRows: await ledgerRows() });

    // Same input and call id as an earlier successful call: the recorded result comes back.
    const executed = n;
    const replay = async (i: number) => {
      const k = i % executed;
      expect(await host.invoke('bench.submit', submitInput(k), { actor: ACTOR, runId: RUN_ID, callId: `c${k}` }), 'succeeded', true);
    };
    await timeBoxed(replay, WARMUP_MS);
    rows.push({ scenario: 'execute, replayed', storage: label, m: await timeBoxed(replay, MEASURE_MS, 7919), baseline: bare.execute, ledgerRows: await ledgerRows() });

    // Last, so that its ledger entries do not inflate the rows above: the memory adapter's usage
    // count scans every ledger entry, not only the grant's.
    const unbudgeted = async (i: number) =>
      expect(await host.invoke('bench.enqueue', submitInput(i), { actor: ACTOR, runId: RUN_ID, callId: `e${i}` }), 'succeeded', false);
    m = await timeBoxed(unbudgeted, WARMUP_MS);
    rows.splice(2, 0, { scenario: 'execute, grant without budget', storage: label, m: await timeBoxed(unbudgeted, MEASURE_MS, m.ops), baseline: bare.execute });
  } finally {
    await host.stop();
  }
  return rows;
}

/** Ledger sizes (entries the budgeted grant claimed today) at which `execute` is measured again. */
const LEDGER_SIZES = [0, 1_000, 10_000, 50_000];
/** Measurement window at each ledger size. */
const SCALING_MS = 500;

/** µs/op of `execute` (budgeted grant) on a fresh host at each of {@link LEDGER_SIZES}. */
async function benchLedgerScaling(storage: StorageAdapter): Promise<number[]> {
  const host = createAgentHost({ storage, logger: new ConsoleLogger('silent') });
  const out: number[] = [];
  try {
    await host.start();
    host.capabilities.register(submit);
    const grant = await host.grants.create({ action: 'bench.submit', actor: 'user:admin', budget: { maxInvocationsPerDay: 10_000_000 } });
    let seeded = 0;
    let n = 0;
    const execute = async (i: number) =>
      expect(await host.invoke('bench.submit', submitInput(i), { actor: ACTOR, runId: RUN_ID, callId: `c${i}` }), 'succeeded', false);
    for (const size of LEDGER_SIZES) {
      const missing = size - (await host.grants.usageToday(grant.id)).invocations;
      if (missing > 0) {
        const now = Date.now();
        await storage.transaction(async (s) => {
          for (let k = 0; k < missing; k++, seeded++) {
            const entry: LedgerEntry = {
              key: `bench.submit:v1:seed:${seeded}`,
              capabilityId: 'bench.submit',
              capabilityVersion: 1,
              scopeId: 'seed',
              callId: `s${seeded}`,
              argsHash: String(seeded).padStart(64, '0'),
              state: 'succeeded',
              token: `tok-seed-${seeded}`,
              actor: ACTOR,
              invocationId: `inv-seed-${seeded}`,
              runId: 'seed',
              taskId: null,
              approvalId: null,
              grantId: grant.id,
              bytes: 0,
              output: { jobId: `job-seed-${seeded}`, accepted: true },
              error: null,
              inputSummary: JSON.stringify(submitInput(seeded)),
              attempts: 1,
              claimedAt: now,
              updatedAt: now,
              settledAt: now,
            };
            await s.ledger.insert(entry);
          }
        });
      }
      let m = await timeBoxed(execute, 100, n);
      n += m.ops;
      m = await timeBoxed(execute, SCALING_MS, n);
      n += m.ops;
      out.push(usPerOp(m));
    }
  } finally {
    await host.stop();
  }
  return out;
}

function fmt(x: number | undefined, digits = 1): string {
  if (x === undefined || !Number.isFinite(x)) return '–';
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(digits);
}

function printResults(rows: Row[]): void {
  const header = ['scenario', 'storage', 'ops/s', 'µs/op', 'first→last 10% µs/op', 'vs bare', 'ledger rows'];
  const body = rows.map((r) => [
    r.scenario,
    r.storage,
    fmt(opsPerSec(r.m)),
    fmt(usPerOp(r.m), 2),
    r.m.early !== undefined && r.m.late !== undefined && r.baseline !== undefined ? `${fmt(r.m.early, 2)} → ${fmt(r.m.late, 2)}` : '',
    r.baseline === undefined ? 'baseline' : `${fmt(usPerOp(r.m) / r.baseline)}×`,
    r.ledgerRows === undefined ? '' : r.ledgerRows.toLocaleString('en-US'),
  ]);
  printTable(header, body, new Set([2, 3, 4, 5, 6]));
}

/** Entry point called by `bench/run.ts`. */
export async function run(): Promise<void> {
  printMachine();
  console.log(`one run on this machine; each figure is a ${MEASURE_MS} ms window after a ${WARMUP_MS} ms warm-up; compare rows, not machines.`);
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

  const scaling: [string, number[]][] = [['memory', await benchLedgerScaling(new MemoryStorage())]];

  const dir = mkdtempSync(join(tmpdir(), 'media-agent-bench-'));
  try {
    rows.push(...(await benchStorage('sqlite (file, WAL)', createSqliteStorage({ path: join(dir, 'bench.db') }), bare)));
    scaling.push(['sqlite (file, WAL)', await benchLedgerScaling(createSqliteStorage({ path: join(dir, 'scaling.db') }))]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  printResults(rows);
  console.log('');
  console.log('vs bare = µs/op of the row ÷ µs/op of the bare handler of the same kind (replayed execute is compared with the bare execute handler).');
  console.log(`ledger rows = entries the budgeted grant had claimed today when the window ended (the whole ledger at that point); the budget check counts them on every execute call.`);
  console.log(`µs/op of the "${IN_FLIGHT} in flight" row is wall time ÷ calls (inverse throughput), not the latency of one call.`);
  console.log(`SQLite: one file in ${tmpdir()}, WAL, synchronous=NORMAL (no fsync per commit, one at each WAL checkpoint), deleted afterwards.`);
  console.log('');
  console.log(`execute (budgeted grant) µs/op by entries the grant had already claimed today at the start of the window (seeded; ${SCALING_MS} ms window each):`);
  const w = Math.max(...scaling.map(([label]) => label.length));
  console.log(`| ${'storage'.padEnd(w)} | ${LEDGER_SIZES.map((n) => `${n.toLocaleString('en-US')} rows`.padStart(12)).join(' | ')} |`);
  console.log(`|${'-'.repeat(w + 2)}|${LEDGER_SIZES.map(() => `${'-'.repeat(13)}:`).join('|')}|`);
  for (const [label, us] of scaling) console.log(`| ${label.padEnd(w)} | ${us.map((u) => `${fmt(u, 2)} µs`.padStart(12)).join(' | ')} |`);
  console.log('');
  console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
