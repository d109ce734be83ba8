/**
 * One intent, one job end to end (docs/intents.md): a real SQLite file, the sandbox world, the scripted model and
 * the real runtime. Two people's runs add the same title at the same moment; a direct request joins too; the
 * holder's end frees the title.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { InvocationDryRun, InvocationResult } from '../../src/capabilities/invocation';
import { intentKey } from '../../src/core/intent-records';
import type { FakeScript, ScriptContext } from '../../src/models/scripted';
import { ConsoleLogger, createAgentHost, ManualClock, SequentialIdGenerator, type AgentHost } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { registerSandboxCapabilities, SandboxWorld, ScriptedProvider, waitForRunStatus } from '../../src/testing';

const TITLE = { mediaSource: 'tmdb', mediaId: '693134' } as const;
const DUNE = { ...TITLE, kind: 'movie' } as const;
const KEY = intentKey('tmdb:693134', 'download');
const TERMINAL = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'] as const;

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Whether the latest `download.plan` of the conversation succeeded. */
const planned = (ctx: ScriptContext): boolean => ctx.results['download.plan'] !== undefined;

/** Search, plan, and submit only when the plan was made (a joined plan ends the run with what it was told). */
const addDune: FakeScript = {
  name: 'add dune',
  match: 'Dune',
  steps: [
    { text: 'Searching releases. ', toolCalls: [{ capability: 'release.search', input: { ...TITLE, limit: 5 } }] },
    {
      text: 'Planning the best release. ',
      toolCalls: [
        {
          capability: 'download.plan',
          input: { ...DUNE, releaseId: '{{release.search.releases.0.releaseId}}' },
        },
      ],
    },
    {
      text: (ctx) => (planned(ctx) ? 'Submitting the plan. ' : 'Someone is already getting it.'),
      toolCalls: (ctx) =>
        planned(ctx) ? [{ capability: 'download.submit', input: { planId: '{{download.plan.plan.id}}' } }] : [],
    },
  ],
  finalText: 'Done.',
};

async function sandboxHost() {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-intents-'));
  dirs.push(dir);
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = new SandboxWorld({ clock });
  const storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
  const host = createAgentHost({
    storage,
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: addDune }) },
    goalFacts: world,
    runs: { pollMs: 5, goalPollSec: 1, concurrency: 2 },
  });
  registerSandboxCapabilities(host, world);
  await host.start();
  hosts.push(host);
  for (const actor of ['user:alice', 'user:bob', 'user:carol'])
    for (const action of ['download.plan', 'download.submit']) await host.grants.create({ action, actor });
  return { host, clock, world, storage };
}

/** The tool results of `capability` in a run's conversation, parsed. */
async function toolResults(storage: SqliteStorage, runId: string, capability: string) {
  return (await storage.messages.list(runId))
    .map((m) => m.message as { role?: string; name?: string; content?: unknown })
    .filter((m) => m.role === 'tool' && m.name === capability)
    .map((m) => JSON.parse(String(m.content)) as { status: string; error?: { code: string; message: string } });
}

describe('one intent, one job (SQLite file, sandbox world, scripted model)', () => {
  it('two people add the same title at the same moment: one plan, one download; the other run is told who has it; a direct request joins too; after the first run ends a new request proceeds', async () => {
    const { host, clock, world, storage } = await sandboxHost();
    const goal = 'Add Dune: Part Two to the library';
    const [alice, bob] = await Promise.all([
      host.startRun({ goal, actor: 'user:alice' }),
      host.startRun({ goal, actor: 'user:bob' }),
    ]);
    // One of them holds the title and waits for the import; the other is told and ends.
    const settle = async (id: string) => (await waitForRunStatus(host, id, ['waiting', ...TERMINAL])).status;
    const statuses = await Promise.all([settle(alice.id), settle(bob.id)]);
    const holder = await storage.intents.get(KEY);
    expect(holder).toBeDefined();
    const [first, second] = holder!.holderRunId === alice.id ? [alice, bob] : [bob, alice];
    const firstPerson = first.id === alice.id ? 'alice' : 'bob';
    expect(holder).toMatchObject({
      holderRunId: first.id,
      holderActor: `user:${firstPerson}`,
      effectClass: 'download',
    });
    expect(statuses[first === alice ? 0 : 1]).toBe('waiting');
    expect(world.downloads()).toHaveLength(1);
    expect(holder!.planId).toBe(world.downloads()[0]!.planId);

    const joined = await toolResults(storage, second.id, 'download.plan');
    expect(joined).toHaveLength(1);
    expect(joined[0]!.status).toBe('failed');
    expect(joined[0]!.error!.code).toBe('INTENT_IN_PROGRESS');
    expect(joined[0]!.error!.message).toContain(`already in progress by run ${first.id} (for ${firstPerson})`);
    expect(await toolResults(storage, second.id, 'download.submit')).toEqual([]);
    // One plan made, one joined call audited, nothing claimed for it.
    const audit = await storage.audit.list({ capabilityId: 'download.plan', limit: 100 });
    expect(audit.filter((a) => a.action === 'capability.invoke' && a.outcome === 'succeeded')).toHaveLength(1);
    const joins = audit.filter((a) => a.action === 'capability.joined');
    expect(joins).toHaveLength(1);
    expect(joins[0]).toMatchObject({ runId: second.id, outcome: 'failed' });
    expect(joins[0]!.reason).toMatch(/^INTENT_IN_PROGRESS: already in progress by run /);

    // A person's direct request while the run holds it joins, with the job's status and plan; a dry run says so too.
    const release = world.releases().find((r) => r.mediaId === '693134')!.releaseId;
    const direct = (await host.invoke(
      'download.plan',
      { ...DUNE, releaseId: release },
      { actor: 'user:carol' },
    )) as InvocationResult;
    expect(direct.status).toBe('failed');
    if (direct.status !== 'failed') throw new Error('unreachable');
    expect(direct.error.code).toBe('INTENT_IN_PROGRESS');
    expect(direct.joined).toMatchObject({
      runId: first.id,
      actor: `user:${firstPerson}`,
      planId: holder!.planId,
      runStatus: 'waiting',
    });
    const dry = (await host.invoke(
      'download.plan',
      { ...DUNE, releaseId: release },
      { actor: 'user:carol', dryRun: true },
    )) as unknown as InvocationDryRun;
    expect(dry.verdict).toMatchObject({ allowed: false, code: 'INTENT_IN_PROGRESS', joined: { runId: first.id } });
    // Executing the holder's own plan continues its job (no second one): the dry run does not say "joined".
    const own = (await host.invoke(
      'download.submit',
      { planId: holder!.planId! },
      { actor: 'user:carol', dryRun: true },
    )) as unknown as InvocationDryRun;
    expect(own.verdict.joined).toBeUndefined();
    expect(world.downloads()).toHaveLength(1);

    // The download is imported, the run ends and releases the title: a new request proceeds (its handler runs).
    const done = await waitForRunStatus(host, first.id, [...TERMINAL], { clock, tickMs: 2000, timeoutMs: 15_000 });
    expect(done.status).toBe('succeeded');
    expect(await storage.intents.get(KEY)).toBeUndefined();
    const again = await host.invoke('download.plan', { ...DUNE, releaseId: release }, { actor: 'user:carol' });
    expect(again.status === 'failed' || again.status === 'denied' ? again.error.code : 'ran').not.toBe(
      'INTENT_IN_PROGRESS',
    );
    expect(await storage.intents.get(KEY)).toMatchObject({ holderRunId: null, holderActor: 'user:carol' });
  });
});
