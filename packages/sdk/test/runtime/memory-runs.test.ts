import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  ManualClock,
  SequentialIdGenerator,
  createAgentHost,
  type AgentHost,
  type IdentityResolver,
} from '../../src/index';
import { memoryUserKey } from '../../src/memory/index';
import type { ModelRequest } from '../../src/models';
import { MemoryStorage } from '../../src/storage';
import { ScriptedProvider, type FakeScript } from '../../src/testing';
import { makeWorld, waitForStatus } from './harness';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function memoryHost(scripts: FakeScript[], options: { memory?: boolean; identity?: IdentityResolver } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'memory-runs-'));
  dirs.push(dataDir);
  const clock = new ManualClock(Date.UTC(2026, 11, 1, 12));
  const world = makeWorld(clock);
  const provider = new ScriptedProvider({ scripts });
  const storage = new MemoryStorage();
  const host = createAgentHost({
    storage,
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider, model: 'scripted' },
    goalFacts: world.facts,
    runs: { pollMs: 5, leaseMs: 60_000, refusedTurnPauseMs: 1 },
    ...(options.memory === false ? {} : { memory: { dataDir } }),
    ...(options.identity ? { identity: options.identity } : {}),
  });
  for (const c of world.capabilities) host.capabilities.register(c);
  await host.start();
  hosts.push(host);
  return { host, provider, dataDir, storage };
}

const systemOf = (r: ModelRequest) => r.messages.find((m) => m.role === 'system')!.content as string;
const toolNames = (r: ModelRequest) => (r.tools ?? []).map((t) => t.name);
/** The output of the run's first call of a runtime tool, as the model got it. */
async function toolOutput(storage: MemoryStorage, runId: string, name: string): Promise<Record<string, unknown>> {
  const messages = (await storage.messages.list(runId)).map(
    (m) => m.message as { role: string; name?: string; content: string },
  );
  return (
    JSON.parse(messages.find((m) => m.role === 'tool' && m.name === name)!.content) as {
      output: Record<string, unknown>;
    }
  ).output;
}

/** Waits until a woken run ends again with a reply matching `pattern`. */
async function waitForReply(host: AgentHost, runId: string, pattern: RegExp) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { run } = await host.getRun(runId);
    if (run.status === 'succeeded' && pattern.test(run.finalText ?? '')) return run;
    if (Date.now() > deadline)
      throw new Error(`run ${runId} is ${run.status} with reply ${run.finalText} (${JSON.stringify(run.error)})`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('stable memory in runs', () => {
  it('freezes the memory snapshot for the whole run: a write in the run keeps its system prompt byte-identical and reaches the next run', async () => {
    const { host, provider, dataDir, storage } = await memoryHost([
      {
        match: 'first',
        steps: [
          {
            toolCalls: [
              { capability: 'memory', input: { action: 'add', target: 'user', content: 'prefers Chinese subtitles' } },
            ],
          },
          { toolCalls: [{ capability: 'inventory.query', input: { title: 'Dune' } }] },
        ],
        finalText: 'Noted.',
      },
      { match: 'second', finalText: 'Hello again.' },
    ]);
    await host.memory!.writeGlobal('user:admin', { action: 'add', content: 'House rule: no 3D releases' });
    await host.memory!.write('user:alice', { action: 'add', target: 'user', content: 'likes 4K HDR' });

    const s1 = await host.startRun({ goal: 'first: remember my subtitles', actor: 'user:alice', mode: 'plan_only' });
    expect((await waitForStatus(host, s1.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    const s1Requests = provider.requests.slice();
    expect(s1Requests.length).toBe(3);
    const prompts = s1Requests.map(systemOf);
    expect(new Set(prompts).size).toBe(1);
    expect(prompts[0]).toContain('likes 4K HDR');
    expect(prompts[0]).not.toContain('prefers Chinese subtitles');
    expect(prompts[0]!.indexOf('House rule: no 3D releases')).toBeLessThan(prompts[0]!.indexOf('likes 4K HDR'));
    expect(await toolOutput(storage, s1.id, 'memory')).toMatchObject({ success: true, changed: true });
    const userFile = join(dataDir, 'users', memoryUserKey('user:alice'), 'USER.md');
    expect(readFileSync(userFile, 'utf8')).toContain('prefers Chinese subtitles');

    const s2 = await host.startRun({ goal: 'second: hello', actor: 'user:alice', mode: 'plan_only' });
    await waitForStatus(host, s2.id, ['succeeded', 'failed']);
    expect(systemOf(provider.requests.at(-1)!)).toContain('prefers Chinese subtitles');
  });

  it('answers /memory commands given as a goal or a steering message without a model call, and the model can list proposals but not approve them', async () => {
    const { host, provider, dataDir, storage } = await memoryHost([
      {
        match: 'tidy',
        steps: [
          { toolCalls: [{ capability: 'memory', input: { action: 'remove', target: 'user', old_text: '4K HDR' } }] },
        ],
        finalText: 'Proposed.',
      },
      {
        match: 'what is pending',
        steps: [{ toolCalls: [{ capability: 'memory', input: { action: 'pending' } }] }],
        finalText: 'One change waits for you.',
      },
    ]);
    await host.memory!.write('user:alice', {
      target: 'user',
      operations: [
        { action: 'add', content: 'likes 4K HDR' },
        { action: 'add', content: 'prefers Chinese subtitles' },
      ],
    });
    const userFile = join(dataDir, 'users', memoryUserKey('user:alice'), 'USER.md');
    const before = readFileSync(userFile, 'utf8');

    const review = await host.startRun({
      goal: 'tidy memory',
      actor: 'user:alice',
      mode: 'plan_only',
      origin: 'background',
    });
    await waitForStatus(host, review.id, ['succeeded', 'failed']);
    const staged = (await toolOutput(storage, review.id, 'memory')) as unknown as {
      staged: boolean;
      pending_id: string;
    };
    expect(staged.staged).toBe(true);
    expect(readFileSync(userFile, 'utf8')).toBe(before);

    const chat = await host.startRun({ goal: 'what is pending', actor: 'user:alice', mode: 'plan_only' });
    await waitForStatus(host, chat.id, ['succeeded', 'failed']);
    const listed = (await toolOutput(storage, chat.id, 'memory')) as unknown as { proposals: Array<{ id: string }> };
    expect(listed.proposals.map((p) => p.id)).toEqual([staged.pending_id]);
    expect(readFileSync(userFile, 'utf8')).toBe(before);

    const calls = provider.requests.length;
    const asGoal = await host.startRun({ goal: '/memory pending', actor: 'user:alice' });
    const listedRun = await waitForStatus(host, asGoal.id, ['succeeded', 'failed']);
    expect(listedRun.status).toBe('succeeded');
    expect(listedRun.finalText).toContain(staged.pending_id);

    // A command acts for whoever typed it: an administrator steering alice's run sees their own proposals.
    await host.appendToInbox(chat.id, '/memory pending', 'user:admin');
    expect((await waitForReply(host, chat.id, /^No pending memory proposals\.$/)).finalText).toBe(
      'No pending memory proposals.',
    );

    await host.appendToInbox(chat.id, `/memory approve ${staged.pending_id}`, 'user:alice');
    const approved = await waitForReply(host, chat.id, /applied/);
    expect(approved.finalText).toMatch(/^Proposal [0-9a-f]{32} applied/);
    expect((await waitForStatus(host, chat.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    expect(readFileSync(userFile, 'utf8')).toBe('prefers Chinese subtitles');
    expect(provider.requests.length).toBe(calls);
  });

  it("lets only the identity port's administrators write the global memory, and an administrator steering a user's run adds input to the owner's memory, never their own", async () => {
    const { host, dataDir } = await memoryHost(
      [
        {
          match: 'staging',
          steps: [
            { toolCalls: [{ capability: 'memory', input: { action: 'add', content: 'root uses the staging NAS' } }] },
          ],
          finalText: 'Saved.',
        },
        { match: 'chat', finalText: 'Hello.' },
      ],
      { identity: { roleOf: (actor) => (actor === 'user:root' ? 'admin' : 'user') } },
    );
    await expect(host.memory!.writeGlobal('user:alice', { action: 'add', content: 'x' })).rejects.toMatchObject({
      code: 'MEMORY_FORBIDDEN',
    });
    await expect(host.memory!.writeGlobal('system:cron', { action: 'add', content: 'x' })).rejects.toMatchObject({
      code: 'MEMORY_FORBIDDEN',
    });
    await host.memory!.writeGlobal('user:root', { action: 'add', content: 'House rule: no 3D releases' });
    expect(readFileSync(join(dataDir, 'MEMORY.md'), 'utf8')).toBe('House rule: no 3D releases');

    const run = await host.startRun({ goal: 'chat', actor: 'user:alice', mode: 'plan_only' });
    await waitForStatus(host, run.id, ['succeeded', 'failed']);
    await host.appendToInbox(run.id, 'remember: staging NAS', 'user:root');
    await waitForReply(host, run.id, /^Saved\.$/);
    // The run acts for its owner whoever steers it: the model's memory call is alice's run writing alice's memory.
    expect(readFileSync(join(dataDir, 'users', memoryUserKey('user:alice'), 'MEMORY.md'), 'utf8')).toBe(
      'root uses the staging NAS',
    );
    expect(() => readFileSync(join(dataDir, 'users', memoryUserKey('user:root'), 'MEMORY.md'), 'utf8')).toThrow(
      /ENOENT/,
    );
    // The owner's run stays the owner's.
    expect((await host.getRun(run.id)).run.startedBy).toBe('user:alice');
  });

  it('tells the model to stop retrying after more than 3 failed memory calls in a row, showing the current entries on a single failure', async () => {
    const miss = { capability: 'memory', input: { action: 'remove', old_text: 'no such entry' } };
    const { host, storage } = await memoryHost([
      { match: 'retry', steps: [1, 2, 3, 4].map(() => ({ toolCalls: [miss] })), finalText: 'Gave up.' },
    ]);
    await host.memory!.write('user:alice', { action: 'add', content: 'NAS at 192.168.1.20' });
    const run = await host.startRun({ goal: 'retry forever', actor: 'user:alice', mode: 'plan_only' });
    await waitForStatus(host, run.id, ['succeeded', 'failed']);
    const results = (await storage.messages.list(run.id))
      .map((m) => m.message as { role: string; name?: string; content: string })
      .filter((m) => m.role === 'tool' && m.name === 'memory')
      .map((m) => JSON.parse(m.content) as { status: string; error: { code: string; message: string } });
    expect(results.map((r) => [r.status, r.error.code])).toEqual(
      Array.from({ length: 4 }, () => ['failed', 'MEMORY_ENTRY_NOT_FOUND']),
    );
    expect(results[0]!.error.message).toContain('current_entries: ["NAS at 192.168.1.20"]');
    expect(results[2]!.error.message).not.toMatch(/stop retrying/);
    expect(results[3]!.error.message).toMatch(/stop retrying and continue the reply/);
  });

  it('offers the memory tool only to top-level runs of a user, never to a subagent, and leaves hosts without memory unchanged', async () => {
    const { host, provider } = await memoryHost([
      {
        match: 'find out',
        steps: [{ toolCalls: [{ capability: 'delegate', input: { goal: 'investigate Dune' } }] }],
        finalText: 'Reported.',
      },
      { match: 'investigate', finalText: 'Dune is not in the library.' },
      { match: 'cron', finalText: 'Nothing to do.' },
    ]);
    const parent = await host.startRun({ goal: 'find out about Dune', actor: 'user:alice', mode: 'plan_only' });
    await waitForStatus(host, parent.id, ['succeeded', 'failed']);
    const [first, child] = provider.requests;
    expect(toolNames(first!)).toEqual(expect.arrayContaining(['memory', 'search_memory']));
    expect(systemOf(child!)).not.toContain('# Memory');
    expect(toolNames(child!)).not.toContain('memory');

    const cron = await host.startRun({ goal: 'cron sweep', actor: 'system:cron', mode: 'plan_only' });
    await waitForStatus(host, cron.id, ['succeeded', 'failed']);
    expect(toolNames(provider.requests.at(-1)!)).not.toContain('memory');

    const plain = await memoryHost([{ finalText: 'Hi.' }], { memory: false });
    expect(plain.host.memory).toBeUndefined();
    const run = await plain.host.startRun({ goal: 'hello', actor: 'user:alice', mode: 'plan_only' });
    await waitForStatus(plain.host, run.id, ['succeeded', 'failed']);
    const request = plain.provider.requests[0]!;
    expect(toolNames(request)).not.toContain('memory');
    expect(toolNames(request)).not.toContain('search_memory');
    expect(systemOf(request)).not.toContain('# Memory');
  });
});

describe('memory options', () => {
  it('refuses a dataDir that is not a string and a store that is not a MemoryStore when the host is made', () => {
    for (const memory of [{ dataDir: 42 }, { dataDir: ['/tmp'] }, { store: {} }, { store: { read: async () => null } }])
      expect(() => createAgentHost({ memory: memory as never }), JSON.stringify(memory)).toThrow(
        expect.objectContaining({ code: 'OPTIONS_INVALID' }),
      );
  });
});
