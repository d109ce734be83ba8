import { afterEach, describe, expect, it } from 'vitest';
import Type from 'typebox';
import { defineCapability, type AgentHost } from '../../src/index';
import { runEvents, startHost, waitForStatus } from '../runtime/harness';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

const parentScript = {
  match: 'find out',
  steps: [{ toolCalls: [{ capability: 'delegate', input: { goal: 'investigate whether Dune is downloadable' } }] }],
  finalText: 'The subagent reported back.',
};
const childScript = {
  match: 'investigate',
  steps: [
    { toolCalls: [{ capability: 'inventory.query', input: { title: 'Dune' } }] },
    { text: 'Trying to download it myself.', toolCalls: [{ capability: 'download.submit', input: { title: 'Dune' } }] },
  ],
  finalText: 'Dune is not in the library; I could not download it (read-only).',
};

describe('read-only subagents (seed 000, 子代理连续工作)', () => {
  it('a scripted subagent that tries download.submit gets denied, whatever grant exists, and the downloader has no job', async () => {
    const { host, world, provider } = await startHost([parentScript, childScript]);
    hosts.push(host);
    await host.grants.create({ action: '*', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'find out about Dune', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    expect(world.jobs).toHaveLength(0);
    const child = (await host.listRuns()).find((r) => r.parentRunId === run.id)!;
    expect(child).toMatchObject({ depth: 1, mode: 'plan_only', status: 'succeeded' });
    const submits = (await runEvents(host, child.id)).filter(
      (e) => e.type === 'tool_call' && (e.data as { capabilityId: string }).capabilityId === 'download.submit',
    );
    expect(submits.at(-1)?.data).toMatchObject({ phase: 'denied', error: { code: 'AUTH_READ_ONLY_SUBAGENT' } });
    // The parent received the child's report as the delegate tool result.
    const delegated = provider.requests.at(-1)!.messages.find((m) => m.role === 'tool' && m.name === 'delegate')!;
    expect(JSON.parse(delegated.content as string)).toMatchObject({
      status: 'succeeded',
      output: { runId: child.id, finalText: childScript.finalText },
    });
  });

  it('the invocation path itself denies a subagent run any write, even called directly with a grant', async () => {
    const { host, world } = await startHost([parentScript, childScript]);
    hosts.push(host);
    await host.grants.create({ action: '*', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'find out about Dune', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    const child = (await host.listRuns()).find((r) => r.parentRunId === run.id)!;
    const direct = await host.invoke(
      'download.submit',
      { title: 'Dune' },
      { actor: `agent:${child.id}`, runId: child.id },
    );
    expect(direct).toMatchObject({ status: 'denied', error: { code: 'AUTH_READ_ONLY_SUBAGENT' } });
    expect(world.jobs).toHaveLength(0);
  });

  it('the subagent shares the parent budget: its tool calls count against the parent', async () => {
    const { host } = await startHost([parentScript, childScript], { runs: { budgets: { maxToolCalls: 2 } } });
    hosts.push(host);
    const run = await host.startRun({ goal: 'find out about Dune', actor: 'user:admin' });
    const done = await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting', 'budget_exceeded']);
    const child = (await host.listRuns()).find((r) => r.parentRunId === run.id)!;
    expect(child.status).toBe('budget_exceeded');
    expect(done.usage.toolCalls).toBeGreaterThanOrEqual(2);
  });

  it('subagents nest at most two deep', async () => {
    const nest = (match: string, goal: string) => ({
      match,
      steps: [{ toolCalls: [{ capability: 'delegate', input: { goal } }] }],
      finalText: `${match} done`,
    });
    const { host, provider } = await startHost([
      nest('level zero', 'level one task'),
      nest('level one', 'level two task'),
      nest('level two', 'level three task'),
    ]);
    hosts.push(host);
    const run = await host.startRun({ goal: 'level zero', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    const runs = await host.listRuns();
    expect(runs.map((r) => r.depth).sort()).toEqual([0, 1, 2]);
    const deepest = provider.requests.find(
      (r) => (r.messages.find((m) => m.role === 'user')?.content as string) === 'level two task',
    )!;
    expect(deepest.tools!.map((t) => t.name)).not.toContain('delegate');
  });

  it('children are cancelled with the parent', async () => {
    const waitingChild = {
      match: 'investigate',
      steps: [{ toolCalls: [{ capability: 'wait.read', input: {} }] }],
      finalText: 'never',
    };
    const { host } = await startHost([parentScript, waitingChild]);
    hosts.push(host);
    host.capabilities.register(
      defineCapability({
        id: 'wait.read',
        version: 1,
        title: 'Wait',
        description: 'Waits until aborted.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({}),
        output: Type.Object({}),
        handler: (_input, ctx) =>
          new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))),
      }),
    );
    const run = await host.startRun({ goal: 'find out about Dune', actor: 'user:admin' });
    let child;
    for (let i = 0; i < 1000 && !child; i++) {
      const candidate = (await host.listRuns()).find((r) => r.parentRunId === run.id);
      if (
        candidate &&
        (await runEvents(host, candidate.id)).some(
          (e) => e.type === 'tool_call' && (e.data as { capabilityId: string }).capabilityId === 'wait.read',
        )
      )
        child = candidate;
      else await new Promise((r) => setTimeout(r, 5));
    }
    expect(child).toBeDefined();
    await host.abort(run.id, 'stop everything');
    expect((await waitForStatus(host, run.id, ['cancelled', 'succeeded', 'failed'])).status).toBe('cancelled');
    expect((await host.getRun(child!.id)).run.status).toBe('cancelled');
  });
});
