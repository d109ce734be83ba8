// Tool calls from servers and models that misbehave, driven through the real runtime: an
// OpenAI-compatible provider over undici against a local replay server, SQLite storage.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, ManualClock, OpenAICompatibleProvider, type AgentHost, type RunOptions } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { transcriptEvents, WireReplayServer, type ReplayResponse } from '../../src/testing';
import { fixture } from '../models/helpers';
import { makeWorld, runEvents, waitForStatus } from './harness';

const hosts: AgentHost[] = [];
const servers: WireReplayServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An OpenAI-style chunk stream written by hand: one line per `data:` payload. */
function chunks(...lines: object[]): string {
  return lines.map((l) => JSON.stringify(l)).join('\n');
}
const chunk = (delta: object, finish: string | null = null) => ({ id: 'chatcmpl-own', object: 'chat.completion.chunk', created: 1770000000, model: 'own-model', choices: [{ index: 0, delta, finish_reason: finish }] });
const toolTurn = (calls: Array<{ id?: string; name: string; args: string }>) =>
  chunks(
    chunk({ role: 'assistant', tool_calls: calls.map((c, index) => ({ index, ...(c.id ? { id: c.id } : {}), type: 'function', function: { name: c.name, arguments: c.args } })) }),
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
    model: { provider: new OpenAICompatibleProvider({ baseUrl: server.url, apiKey: 'sk-test-0123456789', retry: { maxAttempts: 1 } }), model: 'own-model' },
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
    const settled = (await runEvents(exec.host, r.id)).filter((e) => e.type === 'tool_call' && e.data.phase !== 'started').map((e) => e.data as { callId: string; phase: string });
    expect(settled.map((e) => e.phase)).toEqual(['succeeded', 'succeeded']);
    expect(new Set(settled.map((e) => e.callId)).size).toBe(2);
    // The ids sent back to the model are unique within the conversation, and each result answers its own call.
    const last = exec.server.requests.at(-1)!.json as { messages: Array<{ role: string; tool_calls?: Array<{ id: string }>; tool_call_id?: string }> };
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
    const { host, world } = await hostOver([replay(fixture('own-openai-reused-call-id-dune.chunks.txt')), replay(fixture('own-openai-final-text.chunks.txt'))]);
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await host.startRun({ goal: 'download Dune', actor: 'user:admin' });
    await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    const events = await runEvents(host, run.id);
    const callId = (events.find((e) => e.type === 'tool_call')!.data as { callId: string }).callId;
    expect(callId).not.toBe('download_submit:0');
    // The same stored call, invoked again (what a crash resume does), maps to the same ledger entry.
    const again = await host.invoke('download.submit', { title: 'Dune' }, { actor: `agent:${run.id}`, runId: run.id, callId });
    expect(again).toMatchObject({ status: 'succeeded', replayed: true });
    expect(world.jobs).toHaveLength(1);
  });
});

describe('oversized tool arguments', () => {
  it('arguments over the input limit reach the model as a small INPUT_TOO_LARGE error, are not echoed back, and the run goes on', async () => {
    const huge = JSON.stringify({ title: 'x'.repeat(4096) });
    const { host, server, world } = await hostOver(
      [replay(toolTurn([{ id: 'call_big', name: 'inventory_query', args: huge }])), replay(textTurn('I could not send that; the title was too long.'))],
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
