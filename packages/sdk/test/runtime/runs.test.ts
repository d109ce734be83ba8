import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentHost, RunMiddleware } from '../../src/index';
import { runEvents, startHost, waitForStatus } from './harness';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
});
async function host(...args: Parameters<typeof startHost>) {
  const h = await startHost(...args);
  hosts.push(h.host);
  return h;
}

const addDune = {
  match: 'Dune',
  steps: [
    { text: 'Checking the library. ', toolCalls: [{ capability: 'inventory.query', input: { title: 'Dune' } }] },
    {
      toolCalls: [
        {
          capability: 'update_plan',
          input: {
            goal: 'add Dune',
            steps: [
              { title: 'check library', status: 'completed', evidence: 'inventory.query: present=false' },
              { title: 'download', status: 'in_progress' },
            ],
          },
        },
      ],
    },
    { toolCalls: [{ capability: 'download.submit', input: { title: 'Dune' } }] },
  ],
  finalText: 'Submitted Dune; it will be imported.',
};

describe('runs end to end (scripted model, real runtime)', () => {
  it('startRun returns a queued run and no model call runs in the caller’s stack', async () => {
    const { host: h, provider } = await host(addDune);
    const run = await h.startRun({ goal: 'Add Dune to the library', actor: 'user:admin' });
    expect(run.status).toBe('queued');
    expect(provider.requests).toHaveLength(0);
  });

  it('an execute run whose download imports ends succeeded with a verified report and the model text marked unverified', async () => {
    const { host: h, clock, world } = await host(addDune);
    await h.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await h.startRun({ goal: 'Add Dune to the library', actor: 'user:admin' });
    const waiting = await waitForStatus(h, run.id, ['waiting', 'succeeded', 'failed']);
    expect(waiting.status).toBe('waiting');
    expect(world.jobs).toHaveLength(1);
    clock.advance(61_000);
    const done = await waitForStatus(h, run.id, ['succeeded', 'failed'], { clock, tickMs: 1000 });
    expect(done.status).toBe('succeeded');
    const detail = await h.getRun(run.id);
    expect(detail.report).toMatchObject({
      status: 'succeeded',
      verified: true,
      modelText: { text: 'Submitted Dune; it will be imported.', verified: false },
    });
    expect(detail.report?.facts.downloads).toEqual([expect.objectContaining({ title: 'Dune', status: 'imported' })]);
    expect(detail.checklist).toMatchObject({ goal: 'add Dune' });
    const types = (await runEvents(h, run.id)).map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining(['run_status', 'text_delta', 'tool_call', 'checklist_updated', 'report']),
    );
  });

  it('a run whose download fails ends failed', async () => {
    const { host: h, world } = await host(addDune);
    await h.grants.create({ action: 'download.submit', actor: 'user:admin' });
    world.state.failDownloads = true;
    const run = await h.startRun({ goal: 'Add Dune to the library', actor: 'user:admin' });
    const done = await waitForStatus(h, run.id, ['succeeded', 'failed']);
    expect(done.status).toBe('failed');
    expect((await h.getRun(run.id)).report?.status).toBe('failed');
  });

  // evoila/meho#2077: a zero-tool no-op reported `succeeded` with the model's invented claim as its output.
  it('a model that says it is done without touching anything: the report says no effect was made, its claim stays unverified', async () => {
    const { host: h, world } = await host({ match: 'Dune', finalText: 'Done! Dune is in your library.' });
    const run = await h.startRun({ goal: 'Add Dune to the library', actor: 'user:admin' });
    const done = await waitForStatus(h, run.id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    const report = (await h.getRun(run.id)).report!;
    expect(report).toMatchObject({ request: ['answer'], effects: [], modelText: { verified: false } });
    expect(report.summary).toMatch(/^no effect was made/);
    expect(world.jobs).toHaveLength(0);
  });

  it('tool results reach the model with their state: denied without a grant, and the downloader gets nothing', async () => {
    const { host: h, world, provider } = await host(addDune);
    const run = await h.startRun({ goal: 'Add Dune to the library', actor: 'user:admin' });
    await waitForStatus(h, run.id, ['succeeded', 'failed', 'waiting']);
    expect(world.jobs).toHaveLength(0);
    const lastRequest = provider.requests.at(-1)!;
    const toolResult = lastRequest.messages.filter((m) => m.role === 'tool').at(-1)!;
    expect(JSON.parse(toolResult.content as string)).toMatchObject({
      status: 'denied',
      error: { code: 'AUTH_NO_AUTHORIZATION' },
    });
    const phases = (await runEvents(h, run.id))
      .filter((e) => e.type === 'tool_call')
      .map((e) => (e.data as { phase: string }).phase);
    expect(phases).toContain('denied');
  });

  it('a budget that runs out ends the run budget_exceeded and records a pending decision for a person', async () => {
    const { host: h } = await host(addDune, { runs: { budgets: { maxToolCalls: 1 } } });
    const run = await h.startRun({ goal: 'Add Dune to the library', actor: 'user:admin' });
    const done = await waitForStatus(h, run.id, ['budget_exceeded', 'succeeded', 'failed']);
    expect(done.status).toBe('budget_exceeded');
    expect(await h.decisions({ subjectId: run.id })).toEqual([
      expect.objectContaining({ kind: 'agent_budget', dedupeKey: `agent_budget:${run.id}`, status: 'open' }),
    ]);
  });

  it('the household daily run cap (daily.agentMaxRunsPerDay) holds a run over it waiting with a budget_reached decision, never budget_exceeded', async () => {
    const { host: h } = await host({ match: '', finalText: 'ok' }, { runs: { daily: { agentMaxRunsPerDay: 1 } } });
    const first = await h.startRun({ goal: 'look', mode: 'plan_only', actor: 'user:admin' });
    await waitForStatus(h, first.id, ['succeeded']);
    const second = await h.startRun({ goal: 'look again', mode: 'plan_only', actor: 'user:admin' });
    expect((await waitForStatus(h, second.id, ['waiting', 'budget_exceeded', 'succeeded'])).status).toBe('waiting');
    expect(await h.decisions({ subjectId: second.id })).toEqual([
      expect.objectContaining({ kind: 'budget_reached', status: 'open' }),
    ]);
  });

  it('plan_only rejects an allowlist with an execute capability, and unknown capabilities', async () => {
    const { host: h } = await host(addDune);
    await expect(
      h.startRun({ goal: 'x', mode: 'plan_only', capabilityAllowlist: ['download.submit'], actor: 'user:admin' }),
    ).rejects.toMatchObject({ code: 'RUN_REQUEST_INVALID' });
    await expect(
      h.startRun({ goal: 'x', capabilityAllowlist: ['nope.nope'], actor: 'user:admin' }),
    ).rejects.toMatchObject({ code: 'RUN_REQUEST_INVALID' });
    await expect(h.startRun({ goal: '', actor: 'user:admin' })).rejects.toMatchObject({ code: 'RUN_REQUEST_INVALID' });
    await expect(h.startRun({ goal: 'x', actor: 'nobody' })).rejects.toMatchObject({ code: 'ACTOR_INVALID' });
  });

  it('a plan_only run never gets execute tools and a call to one is denied', async () => {
    const { host: h, world, provider } = await host(addDune);
    const run = await h.startRun({ goal: 'Add Dune to the library', mode: 'plan_only', actor: 'user:admin' });
    expect((await waitForStatus(h, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    expect(provider.requests[0]!.tools!.map((t) => t.name)).not.toContain('download.submit');
    expect(world.jobs).toHaveLength(0);
  });

  it('abort of a queued run cancels it', async () => {
    const { host: h } = await host(addDune);
    await h.stop();
    hosts.splice(0);
    const { host: h2 } = await host(addDune);
    await h2.stop();
    const fresh = await host(addDune);
    const run = await fresh.host.startRun({ goal: 'Add Dune', actor: 'user:admin' });
    const aborted = await fresh.host.abort(run.id, 'changed my mind');
    expect(['cancelled', 'running', 'queued']).toContain(aborted.status);
    expect((await waitForStatus(fresh.host, run.id, ['cancelled'])).status).toBe('cancelled');
    void h2;
  });

  it('abort mid-tool-call stops the run cancelled and records the interrupted write as unknown', async () => {
    const { host: h, world } = await host(addDune);
    await h.grants.create({ action: 'download.submit', actor: 'user:admin' });
    let release!: () => void;
    world.state.blockSubmit = new Promise<void>((r) => (release = r));
    const run = await h.startRun({ goal: 'Add Dune to the library', actor: 'user:admin' });
    // The abort must land while the submit runs: wait for its `started` event (fails after 10 s without it).
    await vi.waitFor(
      async () => {
        const events = await runEvents(h, run.id);
        expect(
          events.some(
            (e) =>
              e.type === 'tool_call' &&
              (e.data as { capabilityId: string; phase: string }).capabilityId === 'download.submit' &&
              (e.data as { phase: string }).phase === 'started',
          ),
        ).toBe(true);
      },
      { timeout: 10_000, interval: 5 },
    );
    await h.abort(run.id, 'stop now');
    expect((await waitForStatus(h, run.id, ['cancelled', 'succeeded', 'failed', 'waiting'])).status).toBe('cancelled');
    release();
    const calls = (await runEvents(h, run.id)).filter(
      (e) => e.type === 'tool_call' && (e.data as { capabilityId: string }).capabilityId === 'download.submit',
    );
    expect(calls.map((e) => (e.data as { phase: string }).phase)).toEqual(['started', 'unknown']);
    expect(world.jobs).toHaveLength(0);
  });

  it('steering: a message appended while running is applied before the next model call', async () => {
    // The first tool call's end holds the run until the test has appended (not a race with a poll).
    let toolEnded!: () => void;
    let appended!: () => void;
    const firstToolEnded = new Promise<void>((r) => (toolEnded = r));
    const messageIn = new Promise<void>((r) => (appended = r));
    const hold: RunMiddleware = {
      name: 'hold-after-first-tool',
      async afterToolCall() {
        toolEnded();
        await messageIn;
      },
    };
    const { host: h, provider } = await host(
      {
        match: 'Dune',
        steps: [
          { toolCalls: [{ capability: 'inventory.query', input: { title: 'Dune' } }] },
          { toolCalls: [{ capability: 'inventory.query', input: { title: 'Dune Part Two' } }] },
        ],
        finalText: 'ok',
      },
      { runs: { middleware: [hold] } },
    );
    const seen: string[] = [];
    const run = await h.startRun({ goal: 'Dune', mode: 'plan_only', actor: 'user:admin' });
    await firstToolEnded;
    expect((await h.getRun(run.id)).run.status).toBe('running');
    await h.appendToInbox(run.id, 'Also check Part Two please', 'user:admin');
    appended();
    await waitForStatus(h, run.id, ['succeeded', 'failed']);
    for (const r of provider.requests)
      seen.push(...r.messages.filter((m) => m.role === 'user').map((m) => String(m.content)));
    expect(seen).toContain('Also check Part Two please');
    const types = (await runEvents(h, run.id)).map((e) => e.type);
    expect(types.indexOf('inbox_queued')).toBeGreaterThan(-1);
    expect(types.indexOf('inbox_applied')).toBeGreaterThan(types.indexOf('inbox_queued'));
  });

  it('appending to a finished run wakes one new drive', async () => {
    const { host: h, provider } = await host([
      { match: 'again', finalText: 'second answer' },
      { match: 'look', finalText: 'first answer' },
    ]);
    const run = await h.startRun({ goal: 'look', mode: 'plan_only', actor: 'user:admin' });
    await waitForStatus(h, run.id, ['succeeded']);
    const calls = provider.requests.length;
    await h.appendToInbox(run.id, 'again please', 'user:admin');
    await waitForStatus(h, run.id, ['running', 'queued'], { timeoutMs: 2000 }).catch(() => undefined);
    const done = await waitForStatus(h, run.id, ['succeeded']);
    expect(provider.requests.length).toBe(calls + 1);
    expect(done.finalText).toBe('second answer');
  });

  it('a reconnecting subscriber sees every event exactly once', async () => {
    const { host: h, clock } = await host(addDune);
    await h.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const seen: number[] = [];
    const controller = new AbortController();
    let last = 0;
    const first = (async () => {
      for await (const e of h.events({ signal: controller.signal })) {
        seen.push(e.globalSeq);
        last = e.globalSeq;
        if (seen.length === 5) break; // disconnect early
      }
    })();
    const run = await h.startRun({ goal: 'Add Dune to the library', actor: 'user:admin' });
    await first;
    await waitForStatus(h, run.id, ['waiting']);
    clock.advance(61_000);
    await waitForStatus(h, run.id, ['succeeded'], { clock, tickMs: 1000 });
    const resumed = new AbortController();
    const all = (await h.getRun(run.id, { limit: 1000 })).events;
    for await (const e of h.events({ after: last, signal: resumed.signal })) {
      seen.push(e.globalSeq);
      if (e.globalSeq >= all.at(-1)!.globalSeq) break;
    }
    controller.abort();
    expect(seen).toEqual([...new Set(seen)]);
    expect(seen).toEqual(all.map((e) => e.globalSeq));
  });
});
