import Type from 'typebox';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defineCapability, RandomIdGenerator, type AgentHost } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { runEvents, startHost, waitForStatus } from './harness';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

describe('approvals asked by a run', () => {
  it('a denied plan execution asks a person for approval; once approved the run is woken, executes with it, and the approval is consumed', async () => {
    const started = await startHost({
      match: 'Dune',
      steps: [
        { toolCalls: [{ capability: 'plan.make', input: { title: 'Dune' } }] },
        { toolCalls: [{ capability: 'plan.execute', input: { planId: '{{plan.make.planId}}' } }] },
        { text: 'Waiting for a person to approve the download.' },
        { toolCalls: [{ capability: 'plan.execute', input: { planId: '{{plan.make.planId}}' } }] },
      ],
      finalText: 'Approved and submitted.',
    });
    const { host, world } = started;
    hosts.push(host);
    host.capabilities.register(
      defineCapability({
        id: 'plan.make',
        version: 1,
        title: 'Plan',
        description: 'Plans a download.',
        kind: 'propose',
        replay: 'reconcile',
        input: Type.Object({ title: Type.String() }),
        output: Type.Object({ planId: Type.String() }),
        handler: async (input, ctx) => ({
          planId: (await host.plans.create({ type: 'download', payload: { title: input.title }, actor: ctx.actor })).id,
        }),
      }),
    );
    host.capabilities.register(
      defineCapability({
        id: 'plan.execute',
        version: 1,
        title: 'Execute',
        description: 'Executes a download plan.',
        kind: 'execute',
        replay: 'never',
        input: Type.Object({ planId: Type.String() }),
        output: Type.Object({ jobId: Type.String() }),
        target: (input) => ({ planType: 'download', planId: input.planId }),
        handler: async (_input, ctx) => {
          world.jobs.push({
            id: `job-${world.jobs.length + 1}`,
            title: String((ctx.plan?.payload as { title?: string } | undefined)?.title),
            runId: ctx.runId,
            at: started.clock.now(),
            key: ctx.idempotencyKey,
          });
          return { jobId: `job-${world.jobs.length}` };
        },
      }),
    );
    await host.grants.create({ action: 'plan.make', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'Add Dune', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['waiting']);
    const before = await runEvents(host, run.id);
    const asked = before.find((e) => e.type === 'approval_requested');
    expect(asked?.data).toMatchObject({ planType: 'download', capabilityId: 'plan.execute' });
    // The events tell the story in order: the denial, then the approval it asked for, then the wait.
    const denial = before.findIndex(
      (e) => e.type === 'tool_call' && e.data.capabilityId === 'plan.execute' && e.data.phase === 'denied',
    );
    const waiting = before.findIndex((e) => e.type === 'run_status' && e.data.status === 'waiting');
    expect(denial).toBeGreaterThan(-1);
    expect(before.indexOf(asked!)).toBe(denial + 1);
    expect(waiting).toBeGreaterThan(denial + 1);
    expect(world.jobs).toHaveLength(0);
    const { approvalId, payloadHash } = asked!.data as { approvalId: string; payloadHash: string };
    await host.approvals.decide(approvalId, { status: 'approved', actor: 'user:admin', payloadHash });
    for (let i = 0; i < 500 && world.jobs.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(world.jobs).toHaveLength(1);
    expect((await host.approvals.get(approvalId)).status).toBe('consumed');
    const after = await runEvents(host, run.id);
    expect(after.map((e) => e.type)).toContain('approval_decided');
    expect(
      after.find((e) => e.type === 'run_status' && e.data.status === 'running' && e.data.reason !== undefined)?.data,
    ).toMatchObject({ reason: 'woken by an approval decision' });
  });
});

describe('leases (two hosts on one SQLite file)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const dbFile = () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-lease-'));
    dirs.push(dir);
    return join(dir, 'agent.sqlite');
  };

  it('a run whose worker died is taken over by another host after the lease expires, without replaying completed tool calls', async () => {
    const file = dbFile();
    const script = {
      match: 'Dune',
      steps: [
        { toolCalls: [{ capability: 'inventory.query', input: { title: 'Dune' } }] },
        { toolCalls: [{ capability: 'inventory.query', input: { title: 'Dune Part Two' } }] },
      ],
      finalText: 'checked',
    };
    // The "dead" worker: it leased the run, stored the first model turn and its tool result, then vanished.
    const setup = new SqliteStorage({ path: file });
    await setup.migrate();
    const a = await startHost(script, { storage: setup, runs: { leaseMs: 1000 }, workers: false });
    const run = await a.host.startRun({ goal: 'Dune', mode: 'plan_only', actor: 'user:admin' });
    expect((await setup.runs.acquireLease('dead-worker', a.clock.now(), 1000))?.id).toBe(run.id);
    await setup.runs.patch(run.id, { status: 'running', startedAt: a.clock.now() });
    await setup.messages.append(run.id, { role: 'user', content: 'Dune' }, a.clock.now());
    await setup.messages.append(
      run.id,
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'call_scripted_0_0', name: 'inventory.query', input: { title: 'Dune' } }],
      },
      a.clock.now(),
    );
    await a.host.invoke(
      'inventory.query',
      { title: 'Dune' },
      { actor: `agent:${run.id}`, runId: run.id, callId: 'call_scripted_0_0' },
    );
    await setup.messages.append(
      run.id,
      {
        role: 'tool',
        toolCallId: 'call_scripted_0_0',
        name: 'inventory.query',
        status: 'ok',
        content: '{"status":"succeeded","note":"done","output":{"present":false}}',
      },
      a.clock.now(),
    );
    await a.host.stop();

    const b = await startHost(script, {
      storage: new SqliteStorage({ path: file }),
      runs: { leaseMs: 1000 },
      ids: new RandomIdGenerator(),
    });
    hosts.push(b.host);
    b.clock.set(a.clock.now());
    await new Promise((r) => setTimeout(r, 50));
    expect((await b.host.getRun(run.id)).run.leaseOwner).toBe('dead-worker');
    b.clock.advance(1001);
    const done = await waitForStatus(b.host, run.id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    expect(b.provider.requests).toHaveLength(2); // turns 2 and 3 only: turn 1 was not replayed
    const queried = (await runEvents(b.host, run.id)).filter(
      (e) => e.type === 'tool_call' && (e.data as { phase: string }).phase === 'succeeded',
    );
    expect(queried.map((e) => (e.data as { capabilityId: string }).capabilityId)).toEqual(['inventory.query']);
  });

  it('stop() ends the drive at a step boundary and another host resumes it from the stored messages', async () => {
    const file = dbFile();
    const script = {
      match: 'Dune',
      steps: [{ toolCalls: [{ capability: 'inventory.query', input: { title: 'Dune' } }] }],
      finalText: 'done',
    };
    const a = await startHost(script, { storage: new SqliteStorage({ path: file }) });
    const run = await a.host.startRun({ goal: 'Dune', mode: 'plan_only', actor: 'user:admin' });
    await a.host.stop();
    const b = await startHost(script, { storage: new SqliteStorage({ path: file }), ids: new RandomIdGenerator() });
    hosts.push(b.host);
    b.clock.set(a.clock.now());
    expect((await waitForStatus(b.host, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    const queries = (await runEvents(b.host, run.id)).filter(
      (e) => e.type === 'tool_call' && (e.data as { phase: string }).phase === 'succeeded',
    );
    expect(queries).toHaveLength(1);
  });
});
