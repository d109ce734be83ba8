/**
 * Benchmark approvals: what a dry run costs next to the real call it previews, and what an approval's edit costs.
 *
 * Sides, each through `host.invoke` on SQLite (a real file in `os.tmpdir()`, WAL, deleted afterwards), the same
 * host, the same capability (`bench.apply`: executes a plan; its `impact` reads the plan's bytes and a free-space
 * figure; its handler does nothing) and a grant that authorizes it:
 *
 * - `execute`: a real call, a distinct task each time — authorize, claim (ledger insert, grant counters), handler,
 *   settle, audit: two transactions.
 * - `dry run`: the same call with `dryRun: true` — authorize (same reads), the impact, one audit row; no ledger, no
 *   counters, no handler. It guarantees nothing was written but the audit row.
 * - `approve with an edit`: `approvals.decide` with `edits` on a fresh approval of a fresh plan — the edit check
 *   (plan schema, the authorizer as the requester, the edited impact), then one transaction (plan revision, approval,
 *   audit row). Compared with `approve as proposed` (one transaction, no check).
 *
 * Method: `BENCH_ROUNDS` (default 15, at least 5) rounds; each round runs every side for {@link WINDOW_MS} ms in a
 * rotating order; a ratio is formed per round and printed as the median and interquartile range over the rounds
 * (`_stats.ts`), so load on one round falls on both sides of its ratio. Figures are from one run on the machine that
 * printed them; compare rows, not machines. Run with `npm run bench -- approvals`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Type from 'typebox';
import { ConsoleLogger, createAgentHost, defineCapability, type AgentHost } from '../packages/sdk/src/index';
import { createSqliteStorage } from '../packages/sdk/src/sqlite';
import { printMachine, printTable } from './_report';
import { envInt, formatRatio, formatSpread, roundOrder, spread } from './_stats';

/** Length of one side's window in one round, in ms. */
const WINDOW_MS = 200;

const Payload = Type.Object({ title: Type.String(), bytes: Type.Integer({ minimum: 0 }) });
const apply = defineCapability({
  id: 'bench.apply',
  version: 1,
  title: 'Apply a plan',
  description: 'Executes a plan (benchmark stub).',
  kind: 'execute',
  replay: 'reconcile',
  input: Type.Object({ planId: Type.String() }),
  output: Type.Object({}),
  planPayload: Payload,
  target: (input) => ({ planType: 'bench', planId: input.planId }),
  impact: (_input, ctx) => {
    const bytes = (ctx.plan?.payload as { bytes?: number } | undefined)?.bytes ?? 0;
    return {
      writeBytes: bytes,
      path: '/media/movies',
      freeBytesBefore: 412e9,
      freeBytesAfter: 412e9 - bytes,
      reversible: true,
    };
  },
  handler: async () => ({}),
});

/** µs per call of `fn` over one window (or `limit` calls, whichever ends first). */
async function timed(fn: (i: number) => Promise<unknown>, limit = Number.POSITIVE_INFINITY): Promise<number> {
  const start = performance.now();
  let n = 0;
  while (performance.now() - start < WINDOW_MS && n < limit) await fn(n++);
  return ((performance.now() - start) * 1000) / n;
}

/** Approvals made ahead of a decide window (not timed). */
const PER_WINDOW = 1500;

export async function run(): Promise<void> {
  printMachine();
  const rounds = envInt('BENCH_ROUNDS', 15, 5);
  const dir = mkdtempSync(join(tmpdir(), 'bench-approvals-'));
  const host: AgentHost = createAgentHost({
    storage: createSqliteStorage({ path: join(dir, 'agent.sqlite') }),
    logger: new ConsoleLogger('silent'),
  });
  host.capabilities.register(apply);
  await host.start({ workers: false });
  try {
    await host.grants.create({ action: 'bench.apply', actor: 'user:admin' });
    const plan = await host.plans.create({
      type: 'bench',
      payload: { title: 'Dune', bytes: 58.2e9 },
      actor: 'user:admin',
    });
    let task = 0;
    const fresh = async () => {
      const p = await host.plans.create({
        type: 'bench',
        payload: { title: 'Dune', bytes: 58.2e9 },
        actor: 'user:admin',
      });
      return host.approvals.request({
        planType: 'bench',
        planId: p.id,
        actor: 'apikey:bench',
        capabilityId: 'bench.apply',
      });
    };
    const sides: Array<[string, () => Promise<number>]> = [
      [
        'execute',
        () =>
          timed(() => host.invoke('bench.apply', { planId: plan.id }, { actor: 'apikey:bench', taskId: `t${task++}` })),
      ],
      [
        'dry run',
        () => timed(() => host.invoke('bench.apply', { planId: plan.id }, { actor: 'apikey:bench', dryRun: true })),
      ],
      [
        'approve as proposed',
        async () => {
          const asked = await Promise.all(Array.from({ length: PER_WINDOW }, fresh));
          return timed(
            (i) =>
              host.approvals.decide(asked[i]!.id, {
                status: 'approved',
                actor: 'user:admin',
                payloadHash: asked[i]!.payloadHash,
              }),
            asked.length,
          );
        },
      ],
      [
        'approve with an edit',
        async () => {
          const asked = await Promise.all(Array.from({ length: PER_WINDOW }, fresh));
          return timed(
            (i) =>
              host.approvals.decide(asked[i]!.id, {
                status: 'approved',
                actor: 'user:admin',
                payloadHash: asked[i]!.payloadHash,
                edits: { payload: { title: 'Dune', bytes: 12.4e9 } },
              }),
            asked.length,
          );
        },
      ],
    ];
    for (const [, side] of sides) await side(); // warm-up
    const us: number[][] = sides.map(() => []);
    for (let r = 0; r < rounds; r++) for (const k of roundOrder(sides.length, r)) us[k]!.push(await sides[k]![1]());
    const ratio = (a: number, b: number) => spread(us[a]!.map((v, i) => v / us[b]![i]!));
    printTable(
      ['side', 'µs per call (median, IQR)', 'ratio'],
      [
        ['execute', formatSpread(spread(us[0]!)), '1'],
        ['dry run', formatSpread(spread(us[1]!)), `${formatRatio(ratio(1, 0))} of execute`],
        ['approve as proposed', formatSpread(spread(us[2]!)), '1'],
        ['approve with an edit', formatSpread(spread(us[3]!)), `${formatRatio(ratio(3, 2))} of approve as proposed`],
      ],
      new Set([1]),
    );
    console.log(`${rounds} rounds of ${WINDOW_MS} ms per side, SQLite file (WAL), one host.`);
  } finally {
    await host.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
