// Tool calls from servers and models that misbehave, driven through the real runtime: an
// OpenAI-compatible provider over undici against a local replay server, SQLite storage.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, ManualClock, type RunOptions } from '../../src/index';
import { OpenAICompatibleProvider } from '../../src/models';
import { SqliteStorage } from '../../src/sqlite';
import { transcriptEvents, WireReplayServer, type ReplayResponse } from '../../src/testing';
import { fixture } from '../models/helpers';
import { closedAfterEach, makeWorld, runEvents, waitForStatus } from './harness';

const { hosts, servers, dirs } = closedAfterEach<WireReplayServer>();

/** An OpenAI-style chunk stream written by hand: one line per `data:` payload. */
function chunks(...lines: object[]): string {
  return lines.map((l) => JSON.stringify(l)).join('\n');
}
const chunk = (delta: object, finish: string | null = null) => ({
  id: 'chatcmpl-own',
  object: 'chat.completion.chunk',
  created: 1770000000,
  model: 'own-model',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const toolTurn = (calls: Array<{ id?: string; name: string; args: string }>) =>
  chunks(
    chunk({
      role: 'assistant',
      tool_calls: calls.map((c, index) => ({
        index,
        ...(c.id ? { id: c.id } : {}),
        type: 'function',
        function: { name: c.name, arguments: c.args },
      })),
    }),
    chunk({}, 'tool_calls'),
  );
const textTurn = (text: string) => chunks(chunk({ role: 'assistant', content: text }), chunk({}, 'stop'));
const replay = (text: string): ReplayResponse => ({ events: transcriptEvents(text, 'openai') });

async function hostOver(responses: ReplayResponse[], runs: RunOptions = {}, maxInputBytes?: number) {
  const server = await WireReplayServer.start(responses);
  servers.push(server);
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-calls-'));
  dirs.push(dir);
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = makeWorld(clock);
  const host = createAgentHost({
    storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
    clock,
    logger: new ConsoleLogger('silent'),
    model: {
      provider: new OpenAICompatibleProvider({
        baseUrl: server.url,
        apiKey: 'sk-test-0123456789',
        retry: { maxAttempts: 1 },
      }),
      model: 'own-model',
    },
    goalFacts: world.facts,
    ...(maxInputBytes ? { maxInputBytes } : {}),
    runs: { pollMs: 5, leaseMs: 60_000, ...runs },
  });
  for (const c of world.capabilities) host.capabilities.register(c);
  await host.start();
  hosts.push(host);
  return { host, server, world, clock };
}

describe('tool-call identity is the runtime’s, not the server’s', () => {
  it('a call id the server reuses in the next turn (download_submit:0 twice) runs both downloads under a standing grant', async () => {
    const exec = await hostOver([
      replay(fixture('own-openai-reused-call-id-dune.chunks.txt')),
      replay(fixture('own-openai-reused-call-id-heat.chunks.txt')),
      replay(fixture('own-openai-final-text.chunks.txt')),
    ]);
    await exec.host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const r = await exec.host.startRun({ goal: 'download Dune and Heat', actor: 'user:admin' });
    const ended = await waitForStatus(exec.host, r.id, ['succeeded', 'failed', 'waiting']);
    expect(ended.error).toBeNull();
    expect(exec.world.jobs.map((j) => j.title)).toEqual(['Dune', 'Heat']);
    const settled = (await runEvents(exec.host, r.id))
      .filter((e) => e.type === 'tool_call' && e.data.phase !== 'started')
      .map((e) => e.data as { callId: string; phase: string });
    expect(settled.map((e) => e.phase)).toEqual(['succeeded', 'succeeded']);
    expect(new Set(settled.map((e) => e.callId)).size).toBe(2);
    // The ids sent back to the model are unique within the conversation, and each result answers its own call.
    const last = exec.server.requests.at(-1)!.json as {
      messages: Array<{ role: string; tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
    };
    const callIds = last.messages.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []);
    const resultIds = last.messages.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : []));
    expect(callIds).toHaveLength(2);
    expect(new Set(callIds).size).toBe(2);
    expect(resultIds).toEqual(callIds);
  });

  it('calls a server sends without ids get distinct ids in every turn, and both run', async () => {
    const { host, world, server } = await hostOver([
      replay(fixture('own-openai-no-call-id.chunks.txt')),
      replay(fixture('own-openai-no-call-id-2.chunks.txt')),
      replay(fixture('own-openai-final-text.chunks.txt')),
    ]);
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'download Alien and Aliens', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    expect(world.jobs.map((j) => j.title)).toEqual(['Alien', 'Aliens']);
    const last = server.requests.at(-1)!.json as { messages: Array<{ tool_calls?: Array<{ id: string }> }> };
    const ids = last.messages.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  it('a resumed run replays the stored call id, so the ledger returns the recorded outcome instead of running it again', async () => {
    const { host, world } = await hostOver([
      replay(fixture('own-openai-reused-call-id-dune.chunks.txt')),
      replay(fixture('own-openai-final-text.chunks.txt')),
    ]);
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'download Dune', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    const events = await runEvents(host, run.id);
    const callId = (events.find((e) => e.type === 'tool_call')!.data as { callId: string }).callId;
    expect(callId).not.toBe('download_submit:0');
    // The same stored call, invoked again (what a crash resume does), maps to the same ledger entry.
    const again = await host.invoke(
      'download.submit',
      { title: 'Dune' },
      { actor: `agent:${run.id}`, runId: run.id, callId },
    );
    expect(again).toMatchObject({ status: 'succeeded', replayed: true });
    expect(world.jobs).toHaveLength(1);
  });
});

describe('oversized tool arguments', () => {
  it('arguments over the input limit reach the model as a small INPUT_TOO_LARGE error, are not echoed back, and the run goes on', async () => {
    const huge = JSON.stringify({ title: 'x'.repeat(4096) });
    const { host, server, world } = await hostOver(
      [
        replay(toolTurn([{ id: 'call_big', name: 'inventory_query', args: huge }])),
        replay(textTurn('I could not send that; the title was too long.')),
      ],
      {},
      1024,
    );
    const run = await host.startRun({ goal: 'is it in the library?', mode: 'plan_only', actor: 'user:admin' });
    const ended = await waitForStatus(host, run.id, ['succeeded', 'failed']);
    expect(ended.error).toBeNull();
    expect(ended.status).toBe('succeeded');
    expect(world.library.size).toBe(1);
    const failed = (await runEvents(host, run.id)).find((e) => e.type === 'tool_call' && e.data.phase === 'failed')!;
    expect((failed.data as { error: { code: string } }).error.code).toBe('INPUT_TOO_LARGE');
    const second = JSON.stringify(server.requests[1]!.json);
    expect(second).not.toContain('x'.repeat(200));
    expect(second).toContain('INPUT_TOO_LARGE');
  });
});

describe('runaway loops', () => {
  const malformed = () => replay(toolTurn([{ id: 'call_same', name: 'inventory_query', args: '{"title":' }]));

  it('an interactive run repeating the same malformed call is warned, blocked, then paused for the user with a visible reason; refused turns are spaced by pauses', async () => {
    const { host, server } = await hostOver(Array.from({ length: 40 }, malformed), { refusedTurnPauseMs: 1 });
    const run = await host.startRun({ goal: 'is Dune in the library?', mode: 'plan_only', actor: 'user:admin' });
    const ended = await waitForStatus(host, run.id, ['waiting', 'succeeded', 'failed', 'budget_exceeded']);
    expect(ended.status).toBe('waiting');
    const events = await runEvents(host, run.id);
    const phases = events
      .filter((e) => e.type === 'tool_call' && e.data.phase !== 'started')
      .map((e) => (e.data as { phase: string }).phase);
    expect(phases).toEqual([...Array(5).fill('failed'), ...Array(5).fill('blocked')]);
    expect(server.requests).toHaveLength(10);
    const warnings = events.filter((e) => e.type === 'warning').map((e) => e.data as { code: string; source: string });
    expect(warnings.filter((w) => w.code === 'LOOP_PAUSED')).toHaveLength(4); // between the 5 refused turns
    expect(warnings.at(-1)).toMatchObject({ source: 'loop_guard', code: 'LOOP_BLOCKED_REPEATEDLY' });
    const status = events.filter((e) => e.type === 'run_status').at(-1)!.data as { status: string; reason?: string };
    expect(status).toMatchObject({ status: 'waiting' });
    expect(status.reason).toMatch(/LOOP_BLOCKED_REPEATEDLY.*send a message/);
    // No two model calls that produced only refused calls ran back to back: a pause event sits between them.
    const order = events
      .filter(
        (e) =>
          (e.type === 'tool_call' && (e.data as { phase: string }).phase === 'blocked') ||
          (e.type === 'warning' && (e.data as { code: string }).code === 'LOOP_PAUSED'),
      )
      .map((e) => e.type);
    for (let i = 1; i < order.length; i++) expect(order[i] === 'tool_call' && order[i - 1] === 'tool_call').toBe(false);
  });

  it('a message from the user wakes a paused run for a new attempt', async () => {
    const { host, server } = await hostOver(
      [...Array.from({ length: 10 }, malformed), replay(textTurn('Sorry — I could not form the call.'))],
      { refusedTurnPauseMs: 1 },
    );
    const run = await host.startRun({ goal: 'is Dune in the library?', mode: 'plan_only', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['waiting']);
    await host.appendToInbox(run.id, 'stop retrying and tell me what went wrong', 'user:admin');
    const ended = await waitForStatus(host, run.id, ['succeeded', 'failed']);
    expect(ended.status).toBe('succeeded');
    expect(ended.finalText).toMatch(/could not form/);
    expect(server.requests).toHaveLength(11);
  });

  it('a background run repeating it ends failed with the guard’s code', async () => {
    const { host } = await hostOver(Array.from({ length: 40 }, malformed), { refusedTurnPauseMs: 1 });
    const run = await host.startRun({
      goal: 'is Dune in the library?',
      mode: 'plan_only',
      actor: 'system:cron',
      origin: 'background',
    });
    const ended = await waitForStatus(host, run.id, ['waiting', 'succeeded', 'failed', 'budget_exceeded']);
    expect(ended.status).toBe('failed');
    expect(ended.error?.code).toMatch(/^LOOP_/);
  });

  it('refused calls count toward maxToolCalls', async () => {
    const { host, server } = await hostOver(Array.from({ length: 40 }, malformed), {
      refusedTurnPauseMs: 1,
      budgets: { maxToolCalls: 7 },
    });
    const run = await host.startRun({ goal: 'is Dune in the library?', mode: 'plan_only', actor: 'user:admin' });
    const ended = await waitForStatus(host, run.id, ['waiting', 'succeeded', 'failed', 'budget_exceeded']);
    expect(ended.status).toBe('budget_exceeded');
    const breach = (await runEvents(host, run.id)).find((e) => e.type === 'budget_exceeded')!.data;
    expect(breach).toMatchObject({ budget: 'maxToolCalls', limit: 7 });
    expect(server.requests).toHaveLength(8);
  });

  it('maxModelCalls bounds model calls even when every call succeeds', async () => {
    const read = (n: number) =>
      replay(toolTurn([{ id: `c${n}`, name: 'inventory_query', args: JSON.stringify({ title: `Title ${n}` }) }]));
    const { host, server } = await hostOver(Array.from({ length: 10 }, (_, n) => read(n)));
    const run = await host.startRun({
      goal: 'list things',
      mode: 'plan_only',
      actor: 'user:admin',
      budgets: { maxModelCalls: 3 },
    });
    const ended = await waitForStatus(host, run.id, ['waiting', 'succeeded', 'failed', 'budget_exceeded']);
    expect(ended.status).toBe('budget_exceeded');
    expect(server.requests).toHaveLength(3);
    expect(ended.usage.modelCalls).toBe(3);
  });
});
