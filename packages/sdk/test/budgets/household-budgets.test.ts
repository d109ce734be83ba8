// Spending budgets per person in a real household: a host on a SQLite file, the scripted model, the router on
// a real port for what each person sees; the clock is injected (docs/budgets.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  ManualClock,
  SequentialIdGenerator,
  createAgentHost,
  type AgentHost,
  type AgentOptions,
} from '../../src/index';
import type { RunRecord, RunStatus } from '../../src/core/run-records';
import { createAgentRouter, toNodeListener } from '../../src/http';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider, type FakeScript } from '../../src/testing';
import { makeWorld, runEvents, waitForStatus } from '../runtime/harness';

const ALICE = 'user:alice';
const BOB = 'user:bob';
const ADMIN = 'user:admin';
const ROLES: Record<string, 'admin' | 'user'> = { [ADMIN]: 'admin' };
const TOKENS: Record<string, string> = { alice: ALICE, bob: BOB, admin: ADMIN };

/** Two model calls: a read, then the answer. */
const TWO_CALLS: FakeScript = {
  match: 'Dune',
  steps: [{ toolCalls: [{ capability: 'inventory.query', input: { title: 'Dune' } }] }],
  finalText: 'Dune is not in the library.',
};
/** One model call. */
const ONE_CALL: FakeScript = { match: 'look', finalText: 'ok' };
/** A parent that delegates, and the subagent it starts (a read, then its answer). */
const PARENT: FakeScript = {
  match: 'find out',
  steps: [{ toolCalls: [{ capability: 'delegate', input: { goal: 'investigate whether Arrival is there' } }] }],
  finalText: 'The subagent reported back.',
};
const CHILD: FakeScript = {
  match: 'investigate',
  steps: [{ toolCalls: [{ capability: 'inventory.query', input: { title: 'Arrival' } }] }],
  finalText: 'Arrival is in the library.',
};

interface Home {
  host: AgentHost;
  clock: ManualClock;
  provider: ScriptedProvider;
  storage: SqliteStorage;
  dir: string;
  stop(): Promise<void>;
}
const homes: Array<{ stop(): Promise<void> }> = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of homes.splice(0).reverse()) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function home(
  runs: AgentOptions['runs'] = {},
  at: { dir?: string; clock?: ManualClock; workers?: boolean; ids?: string } = {},
): Promise<Home> {
  const dir = at.dir ?? mkdtempSync(join(tmpdir(), 'media-agent-budgets-'));
  if (!at.dir) dirs.push(dir);
  const clock = at.clock ?? new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = makeWorld(clock);
  const ids = new SequentialIdGenerator();
  const provider = new ScriptedProvider({ scripts: [PARENT, CHILD, TWO_CALLS, ONE_CALL] });
  const storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
  const host = createAgentHost({
    storage,
    clock,
    ids: at.ids ? { next: (prefix: string) => `${at.ids}_${ids.next(prefix)}` } : ids,
    logger: new ConsoleLogger('silent'),
    model: { provider, model: 'scripted' },
    goalFacts: world.facts,
    identity: { roleOf: (actor) => ROLES[actor] ?? 'user' },
    runs: { pollMs: 5, leaseMs: 60_000, concurrency: 4, ...runs },
  });
  for (const c of world.capabilities) host.capabilities.register(c);
  await host.start({ workers: at.workers ?? true });
  const h = { host, clock, provider, storage, dir, stop: () => host.stop() };
  homes.push(h);
  return h;
}

async function settle(host: AgentHost, ids: readonly string[], statuses: readonly RunStatus[]): Promise<RunRecord[]> {
  const out: RunRecord[] = [];
  for (const id of ids) out.push(await waitForStatus(host, id, statuses));
  return out;
}

/** Serves the router for `host` on a real port; returns a GET helper per person. */
async function serve(host: AgentHost) {
  const router = createAgentRouter(host, {
    authenticate: (req) => TOKENS[req.headers.get('authorization')?.replace(/^Bearer /, '') ?? ''],
    consoleDir: false,
  });
  const server: Server = createServer(toNodeListener(router));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  homes.push({
    stop: async () => {
      router.closeStreams();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
  return async (who: string, path: string) => {
    const res = await request(`${base}${path}`, { headers: { authorization: `Bearer ${who}` } });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  };
}

describe('spending budgets per person (SQLite file, real runs)', () => {
  it("60 runs started by one person do not hold up another person's run: 20 run, 40 wait budget_reached, none ends budget_exceeded", async () => {
    const { host, clock } = await home();
    const alice: string[] = [];
    for (let i = 0; i < 60; i++) {
      // Within the host's run-start rate limit (10 a minute per person): she starts them over six minutes.
      if (i > 0 && i % 10 === 0) clock.advance(61_000);
      alice.push((await host.startRun({ goal: `look ${i}`, mode: 'plan_only', actor: ALICE })).id);
    }
    const bob = await host.startRun({ goal: 'look at mine', mode: 'plan_only', actor: BOB });
    expect((await waitForStatus(host, bob.id, ['succeeded', 'waiting', 'budget_exceeded', 'failed'])).status).toBe(
      'succeeded',
    );
    const ended = await settle(host, alice, ['succeeded', 'waiting', 'budget_exceeded', 'failed']);
    const count = (s: RunStatus) => ended.filter((r) => r.status === s).length;
    expect({ succeeded: count('succeeded'), waiting: count('waiting'), exceeded: count('budget_exceeded') }).toEqual({
      succeeded: 20,
      waiting: 40,
      exceeded: 0,
    });
    const usage = await host.budgets.usage(ALICE);
    expect(usage.used.day.runs).toBe(20);
    expect((await host.budgets.usage(BOB)).used.day.runs).toBe(1);
    expect(usage.householdUsed.day.runs).toBe(21);
  });

  it('runs that never started count nowhere: cancelled while queued, they leave the runs budget untouched', async () => {
    const runs = { spending: { people: { [ALICE]: { day: { runs: 2 } } } } };
    const first = await home(runs, { workers: false });
    const queued: string[] = [];
    for (let i = 0; i < 5; i++)
      queued.push((await first.host.startRun({ goal: `look ${i}`, mode: 'plan_only', actor: ALICE })).id);
    for (const id of queued.slice(1)) await first.host.abort(id, 'changed my mind', { actor: ALICE });
    await first.stop();
    homes.splice(homes.indexOf(first), 1);
    // The same database, a process that drives runs.
    const { host } = await home(runs, { dir: first.dir, clock: first.clock, ids: 'second' });
    expect((await waitForStatus(host, queued[0]!, ['succeeded', 'waiting', 'failed'])).status).toBe('succeeded');
    const next = await host.startRun({ goal: 'look again', mode: 'plan_only', actor: ALICE });
    expect((await waitForStatus(host, next.id, ['succeeded', 'waiting', 'failed'])).status).toBe('succeeded');
    expect((await host.budgets.usage(ALICE)).used.day.runs).toBe(2);
    const third = await host.startRun({ goal: 'look once more', mode: 'plan_only', actor: ALICE });
    expect((await waitForStatus(host, third.id, ['succeeded', 'waiting', 'failed'])).status).toBe('waiting');
  });

  it('at a cap the run does not fail: it waits at the same step with a budget_reached event and a decision its owner and administrators see, and nobody else', async () => {
    const { host, clock } = await home({ spending: { people: { [ALICE]: { day: { modelCalls: 1 } } } } });
    const get = await serve(host);
    const run = await host.startRun({ goal: 'Is Dune there?', mode: 'plan_only', actor: ALICE });
    const held = await waitForStatus(host, run.id, ['waiting', 'succeeded', 'failed', 'budget_exceeded']);
    expect(held).toMatchObject({ status: 'waiting', step: 'drive', endedAt: null, notBefore: Date.UTC(2026, 11, 1) });
    expect(held.usage.modelCalls).toBe(1);
    const reached = (await runEvents(host, run.id)).filter((e) => e.type === 'budget_reached');
    expect(reached).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({
          scope: 'person',
          subject: ALICE,
          period: 'day',
          budget: 'modelCalls',
          limit: 1,
          used: 1,
          requested: 1,
          resetsAt: Date.UTC(2026, 11, 1),
        }),
      }),
    ]);
    const [decision] = await host.decisions({ subjectId: run.id });
    expect(decision).toMatchObject({ kind: 'budget_reached', status: 'open', subjectType: 'run', subjectId: run.id });
    expect(decision!.evidence).toMatchObject({ owner: ALICE, budget: 'modelCalls', limit: 1 });
    const seen = async (who: string) =>
      ((await get(who, '/api/decisions')).body.decisions as Array<{ id: string }>).map((d) => d.id);
    expect(await seen('alice')).toEqual([decision!.id]);
    expect(await seen('admin')).toEqual([decision!.id]);
    expect(await seen('bob')).toEqual([]);
    expect((await get('bob', `/api/decisions/${decision!.id}`)).status).toBe(404);
    // Held, not retried: time passes within the day and nothing more is sent.
    clock.advance(3_600_000);
    await new Promise((r) => setTimeout(r, 50));
    expect((await host.getRun(run.id)).run.status).toBe('waiting');
  });

  it('an administrator raising the cap resumes the run at the step it was held at; a non-administrator is ADMIN_FORBIDDEN, audited, and changes nothing', async () => {
    const { host, provider } = await home({ spending: { people: { [ALICE]: { day: { modelCalls: 1 } } } } });
    const run = await host.startRun({ goal: 'Is Dune there?', mode: 'plan_only', actor: ALICE });
    await waitForStatus(host, run.id, ['waiting', 'succeeded', 'failed']);
    expect(provider.requests).toHaveLength(1);
    await expect(
      host.budgets.update(ALICE, { people: { [ALICE]: { day: { modelCalls: 100 } } } }),
    ).rejects.toMatchObject({
      code: 'ADMIN_FORBIDDEN',
    });
    expect((await host.budgets.settings()).people[ALICE]?.day?.modelCalls).toBe(1);
    expect(await host.audit({ action: 'capability.refused' })).toEqual([
      expect.objectContaining({
        actor: ALICE,
        capabilityId: 'host.budgets.update',
        outcome: 'denied',
        reason: 'ADMIN_FORBIDDEN',
      }),
    ]);
    await expect(
      host.budgets.update(ADMIN, { people: { [ALICE]: { day: { modelCallz: 5 } } } } as never),
    ).rejects.toMatchObject({ code: 'BUDGET_SETTINGS_INVALID' });
    expect((await host.getRun(run.id)).run.status).toBe('waiting');

    await host.budgets.update(ADMIN, { people: { [ALICE]: { day: { modelCalls: 5 } } } });
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    // The same step: the read already made is not made again; the held call is the one sent now.
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1]!.messages.filter((m) => m.role === 'tool')).toHaveLength(1);
    expect(await host.audit({ capabilityId: 'host.budgets.update', action: 'capability.invoke' })).toEqual([
      expect.objectContaining({ actor: ADMIN, outcome: 'succeeded' }),
    ]);
    expect(await host.decisions({ subjectId: run.id })).toEqual([
      expect.objectContaining({
        kind: 'budget_reached',
        status: 'resolved',
        resolvedBy: 'system:budgets',
        // The documented shape of an execution (DecisionExecution); it was stored as { type: 'none' }.
        resolution: expect.objectContaining({ execution: { kind: 'none' } }),
      }),
    ]);
    expect((await host.budgets.usage(ALICE)).used.day.modelCalls).toBe(2);
  });

  it('the next period resumes a held run at the same step (the injected clock passes UTC midnight)', async () => {
    const { host, clock, provider } = await home({ spending: { people: { [ALICE]: { day: { modelCalls: 1 } } } } });
    const run = await host.startRun({ goal: 'Is Dune there?', mode: 'plan_only', actor: ALICE });
    await waitForStatus(host, run.id, ['waiting', 'succeeded', 'failed']);
    clock.advance(Date.UTC(2026, 11, 1) - clock.now());
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    expect(provider.requests).toHaveLength(2);
    expect((await host.budgets.usage(ALICE)).used.day.modelCalls).toBe(1); // the new day's
    expect((await host.budgets.usage(ALICE, Date.UTC(2026, 10, 30, 12))).used.day.modelCalls).toBe(1);
    const statuses = (await runEvents(host, run.id))
      .filter((e) => e.type === 'run_status')
      .map((e) => (e.data as { status: string }).status);
    expect(statuses).toEqual(['queued', 'running', 'waiting', 'running', 'succeeded']);
  });

  it("a subagent spends its top-level run owner's budget: at the cap it ends BUDGET_REACHED and the owner's run waits, then resumes when the cap is raised", async () => {
    const { host } = await home({ spending: { people: { [ALICE]: { day: { modelCalls: 2 } } } } });
    const run = await host.startRun({ goal: 'find out about Arrival', mode: 'plan_only', actor: ALICE });
    expect((await waitForStatus(host, run.id, ['waiting', 'succeeded', 'failed'])).status).toBe('waiting');
    const child = (await host.listRuns()).find((r) => r.parentRunId === run.id)!;
    expect(child).toMatchObject({ status: 'failed', error: { code: 'BUDGET_REACHED' } });
    expect(child.startedBy).toBe(`agent:${run.id}`);
    // The parent's call and the child's read were charged to alice; the child's own actor has spent nothing.
    expect((await host.budgets.usage(ALICE)).used.day.modelCalls).toBe(2);
    expect((await host.budgets.usage(`agent:${run.id}`)).used.day.modelCalls).toBe(0);
    expect((await host.budgets.usage(ALICE)).used.day.runs).toBe(1); // a subagent is not a run started
    await host.budgets.update(ADMIN, { people: { [ALICE]: { day: { modelCalls: 10 } } } });
    expect((await waitForStatus(host, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
  });

  it("a person steering another person's run spends nothing of their own: the run's owner pays for every call", async () => {
    const { host } = await home({ spending: { people: { [ADMIN]: { day: { modelCalls: 0 } } } } });
    const run = await host.startRun({ goal: 'Is Dune there?', mode: 'plan_only', actor: ALICE });
    await host.appendToInbox(run.id, 'also check Arrival', ADMIN);
    expect((await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting'])).status).toBe('succeeded');
    expect((await host.budgets.usage(ADMIN)).used.day.modelCalls).toBe(0);
    expect((await host.budgets.usage(ALICE)).used.day.modelCalls).toBeGreaterThanOrEqual(2);
  });
});
