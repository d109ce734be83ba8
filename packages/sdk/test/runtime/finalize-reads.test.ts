// Attacks on finalize reusing what the goal-settled phase read (facts and ledger entries).
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHost, GoalFactsSnapshot } from '../../src/index';
import { startHost, waitForStatus } from './harness';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

const question = {
  match: 'Dune',
  steps: [{ toolCalls: [{ capability: 'inventory.query', input: { title: 'Dune' } }] }],
  finalText: 'Dune is not in the library.',
};

/** Replaces the world's facts with `forRun`, counting the reads. */
function countFacts(
  world: { facts: { forRun: (runId: string) => Promise<GoalFactsSnapshot> } },
  forRun: (n: number) => Promise<GoalFactsSnapshot>,
) {
  const calls = { n: 0 };
  world.facts.forRun = async () => forRun(++calls.n);
  return calls;
}

const snapshot = (title: string): GoalFactsSnapshot => ({
  plans: [],
  downloads: [],
  organizes: [],
  library: [{ mediaEntityId: `title:${title}`, title, present: false }],
});

describe('finalize reuses the goal-settled reads', () => {
  it('a plan_only run (no goal-settled phase) still reads facts in finalize, and a facts error still ends it succeeded', async () => {
    const { host, world } = await startHost(question);
    hosts.push(host);
    const calls = countFacts(world, async () => {
      throw new Error('media manager unreachable');
    });
    const run = await host.startRun({ goal: 'Dune', mode: 'plan_only', actor: 'user:admin' });
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed']);
    expect(done.status, JSON.stringify(done.report)).toBe('succeeded');
    expect(calls.n).toBe(1);
    expect((done.report as unknown as { facts: GoalFactsSnapshot }).facts).toMatchObject({
      downloads: [],
      library: [],
    });
  });

  it('a plan_only run’s report has the facts finalize read', async () => {
    const { host, world } = await startHost(question);
    hosts.push(host);
    const calls = countFacts(world, async (n) => snapshot(`read-${n}`));
    const run = await host.startRun({ goal: 'Dune', mode: 'plan_only', actor: 'user:admin' });
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed']);
    expect(calls.n).toBe(1);
    expect((done.report as unknown as { facts: GoalFactsSnapshot }).facts.library.map((l) => l.title)).toEqual([
      'read-1',
    ]);
  });

  it('an execute run’s report is built from the very facts the goal-settled phase judged settled (read once)', async () => {
    const { host, world } = await startHost(question);
    hosts.push(host);
    const calls = countFacts(world, async (n) => snapshot(`read-${n}`));
    const run = await host.startRun({ goal: 'Dune', mode: 'execute', actor: 'user:admin' });
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed']);
    expect(calls.n).toBe(1);
    expect((done.report as unknown as { facts: GoalFactsSnapshot }).facts.library.map((l) => l.title)).toEqual([
      'read-1',
    ]);
    expect(done.status, JSON.stringify(done.report)).toBe('succeeded');
  });

  it('an execute run that waited for its download reports the poll that found it imported (effects included)', async () => {
    const script = {
      match: 'Dune',
      steps: [{ toolCalls: [{ capability: 'download.submit', input: { title: 'Dune' } }] }],
      finalText: 'Submitted Dune.',
    };
    const { host, world, clock } = await startHost(script);
    hosts.push(host);
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'Dune', mode: 'execute', actor: 'user:admin' });
    const waiting = await waitForStatus(host, run.id, ['waiting']);
    expect(waiting.step).toBe('goal_settled');
    world.library.add('Dune');
    clock.advance(60_001); // the import is done and the next poll is due
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed']);
    expect(done.status, JSON.stringify(done.report)).toBe('succeeded');
    const report = done.report as unknown as {
      facts: GoalFactsSnapshot;
      effects: Array<{ capabilityId: string; outcome: string }>;
    };
    expect(report.facts.downloads.map((d) => d.status)).toEqual(['imported']);
    expect(report.effects.map((e) => [e.capabilityId, e.outcome])).toEqual([['download.submit', 'succeeded']]);
  });
});

describe('a recovery run’s report after the change', () => {
  it('a verified recovery still reports “recovered (verified by the system)” with facts read for its finalize', async () => {
    const { ConsoleLogger, createAgentHost, ManualClock, SequentialIdGenerator } = await import('../../src/index');
    const { MemoryStorage } = await import('../../src/storage');
    const t = await import('../../src/testing');
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
    const world = new t.SandboxWorld({ clock });
    const reads = new Map<string, number>();
    const goalFacts = {
      forRun: (runId: string, signal?: AbortSignal) => {
        reads.set(runId, (reads.get(runId) ?? 0) + 1);
        return world.forRun(runId, signal);
      },
    };
    const downloadOf = (goal: string) => /about download (dl-\d+)/.exec(goal)?.[1] ?? 'dl-0';
    const host = createAgentHost({
      storage: new MemoryStorage(),
      clock,
      ids: new SequentialIdGenerator(),
      logger: new ConsoleLogger('silent'),
      model: {
        provider: new t.ScriptedProvider({
          scripts: {
            name: 'recover',
            match: /Investigate decision/,
            steps: [
              { toolCalls: [{ capability: 'task.inspect', input: (c) => ({ taskId: downloadOf(c.goal) }) }] },
              { toolCalls: [{ capability: 'download.recheck', input: (c) => ({ downloadId: downloadOf(c.goal) }) }] },
            ],
            finalText: 'Rechecked the download.',
          },
        }),
      },
      goalFacts,
      runs: { pollMs: 5, goalPollSec: 10 },
      decisions: { autoInvestigate: true, autoInvestigateMode: 'recover', subjects: t.sandboxDecisionSubjects(world) },
    });
    t.registerSandboxCapabilities(host, world);
    await host.start();
    hosts.push(host);
    await host.grants.create({ action: 'download.recheck', actor: 'user:admin', reason: 'recheck' });
    world.setFaults({ failDownloads: true });
    const plan = await host.invoke(
      'download.plan',
      { mediaSource: 'tmdb', mediaId: '693134', kind: 'movie', releaseId: 'rel-693134-2' },
      { actor: 'user:admin' },
    );
    const planId = (plan.output as { plan: { id: string } }).plan.id;
    expect((await host.invoke('download.submit', { planId }, { actor: 'user:admin' })).status).toBe('pending');
    clock.advance(1000);
    world.setFaults({ failDownloads: false });
    const [raised] = await t.raiseSandboxDecisions(host, world);
    const runId = (raised!.evidence as { investigation: { runId: string } }).investigation.runId;
    const deadline = Date.now() + 15_000;
    let run = (await host.getRun(runId)).run;
    while (!['succeeded', 'failed', 'cancelled', 'budget_exceeded'].includes(run.status) && Date.now() < deadline) {
      clock.advance(1000);
      await new Promise((r) => setTimeout(r, 5));
      run = (await host.getRun(runId)).run;
    }
    const report = (await host.getRun(runId)).report;
    expect(run.status, JSON.stringify(report)).toBe('succeeded');
    expect(report?.summary).toMatch(/^recovered \(verified by the system\): download\.recheck dl-1/);
    expect(reads.get(runId) ?? 0).toBeGreaterThanOrEqual(1);
    expect(report?.facts.downloads.map((d) => d.id)).toContain('dl-1');
  });
});
