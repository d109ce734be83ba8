import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  ManualClock,
  SequentialIdGenerator,
  createAgentHost,
  defineCapability,
  type AgentHost,
  type RunOptions,
} from '../../src/index';
import type { RunRecord } from '../../src/core/run-records';
import type { ModelMessage } from '../../src/models';
import { SqliteHistoryStore } from '../../src/history/sqlite-history-store';
import { sessionSearchTool } from '../../src/runtime/tools/session-search';
import { MemoryStorage } from '../../src/storage';
import { ScriptedProvider, type FakeScript } from '../../src/testing';
import { makeWorld, waitForStatus } from '../runtime/harness';
import { shelfReadCapability } from '../helpers';

const hosts: AgentHost[] = [];
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const c of cleanup.splice(0)) await c();
});

async function hostWith(scripts: FakeScript[], withHistory = true, runs: RunOptions = {}) {
  const directory = mkdtempSync(join(tmpdir(), 'history-host-'));
  const store = new SqliteHistoryStore({ directory });
  cleanup.push(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = makeWorld(clock);
  const provider = new ScriptedProvider({ scripts });
  const host = createAgentHost({
    storage: new MemoryStorage(),
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider, model: 'scripted' },
    goalFacts: world.facts,
    runs: { pollMs: 5, leaseMs: 60_000, refusedTurnPauseMs: 1, results: { previewBytes: 2048 }, ...runs },
    ...(withHistory ? { history: { store } } : {}),
  });
  for (const c of world.capabilities) host.capabilities.register(c);
  host.capabilities.register(
    defineCapability({
      id: 'logs.read',
      version: 1,
      title: 'Read logs',
      description: 'Reads the downloader log.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({}),
      output: Type.Object({ log: Type.String() }),
      handler: async () => ({ log: `${'line '.repeat(5000)}tailneedle token=abcdef123456` }),
    }),
  );
  host.capabilities.register(shelfReadCapability(', '));
  await host.start({ workers: true });
  hosts.push(host);
  return { host, provider, store };
}

const toolNames = (provider: ScriptedProvider, i: number) => provider.requests[i]!.tools!.map((t) => t.name);
const toolResult = (messages: ModelMessage[], name: string) =>
  messages.find((m): m is Extract<ModelMessage, { role: 'tool' }> => m.role === 'tool' && m.name === name);

describe('history capture and session_search in the runtime', () => {
  it("archives a user's goal, the model's reply and full tool results, and finds them from the user's next run", async () => {
    const { host, provider, store } = await hostWith([
      {
        match: 'Dune logs',
        steps: [{ toolCalls: [{ capability: 'logs.read', input: {} }] }],
        finalText: 'The Dune download stalled at 80%.',
      },
      {
        match: 'what happened',
        steps: [{ toolCalls: [{ capability: 'session_search', input: { query: 'stalled' } }] }],
        finalText: 'It stalled before.',
      },
    ]);
    const first = await host.startRun({ goal: 'check the Dune logs', actor: 'user:alice' });
    await waitForStatus(host, first.id, ['succeeded', 'failed', 'waiting']);
    // The tool result the model saw was shortened; the archive holds it whole (and redacted).
    const seen = toolResult(provider.requests[1]!.messages, 'logs.read');
    expect(String(seen?.content)).not.toContain('tailneedle');
    const tool = await store.search('alice', { query: 'tailneedle', role_filter: 'tool' });
    expect(tool).toMatchObject({ count: 1, search_path: 'like' });
    const read = await store.search('alice', { session_id: first.id });
    const contents = (read.messages as { role: string; content: string }[]).map((m) => `${m.role}:${m.content}`);
    expect(contents[0]).toBe('user:check the Dune logs');
    expect(contents.some((c) => c.startsWith('tool:'))).toBe(true);
    const db = new Database(store.pathOf('alice'), { readonly: true });
    const stored = db.prepare(`SELECT content FROM messages WHERE role = 'tool'`).get() as { content: string };
    db.close();
    expect(stored.content).toContain('tailneedle');
    expect(stored.content).not.toContain('abcdef123456');
    expect(contents.at(-1)).toBe('assistant:The Dune download stalled at 80%.');

    const second = await host.startRun({ goal: 'what happened with Dune?', actor: 'user:alice' });
    await waitForStatus(host, second.id, ['succeeded', 'failed', 'waiting']);
    expect(toolNames(provider, 2)).toContain('session_search');
    const answer = toolResult(provider.requests.at(-1)!.messages, 'session_search');
    const output = JSON.parse(String(answer?.content)) as {
      output: { count: number; results: { session_id: string }[] };
    };
    expect(output.output.count).toBe(1);
    expect(output.output.results[0]?.session_id).toBe(first.id);
    // Bob's history is his own: nothing of alice's is in it.
    expect((await store.search('bob', { query: 'stalled' })).count).toBe(0);
  });

  it('marks what compaction took out of the live context as compacted, and keeps it searchable from the same run', async () => {
    const steps = Array.from({ length: 30 }, (_, i) => ({
      text: `Reading shelf ${i}. `,
      toolCalls: [{ capability: 'shelf.read', input: { shelf: i } }],
    }));
    const { host, store } = await hostWith([{ match: 'survey', steps, finalText: 'Surveyed.' }], true, {
      contextWindowTokens: 6000,
      budgets: { maxToolCalls: 100 },
    });
    const run = await host.startRun({ goal: 'survey the library', mode: 'plan_only', actor: 'user:alice' });
    expect((await waitForStatus(host, run.id, ['succeeded', 'failed'], { timeoutMs: 20_000 })).status).toBe(
      'succeeded',
    );
    const db = new Database(store.pathOf('alice'), { readonly: true });
    const rows = db.prepare('SELECT message_uid, active, compacted FROM messages ORDER BY id').all() as {
      message_uid: string;
      active: number;
      compacted: number;
    }[];
    db.close();
    expect(rows[0]).toMatchObject({ message_uid: 'user:goal', active: 0, compacted: 1 });
    expect(rows.at(-1)).toMatchObject({ active: 1, compacted: 0 });
    // A compacted row is no longer in the live context: the run itself finds it again.
    const found = await store.search(
      'alice',
      { query: '"Shelf 0 title"', role_filter: 'tool' },
      { currentSessionId: run.id },
    );
    expect(found.count).toBe(1);
    const live = await store.search('alice', { query: 'Surveyed' }, { currentSessionId: run.id });
    expect(live.count).toBe(0);
  });

  it("archives an administrator's steering of a user's run in the run owner's history, not the administrator's", async () => {
    const { host, store } = await hostWith([
      { match: 'root here', finalText: 'checked again' },
      { match: 'look', finalText: 'nothing to do' },
    ]);
    const run = await host.startRun({ goal: 'look at my library', mode: 'plan_only', actor: 'user:alice' });
    await waitForStatus(host, run.id, ['succeeded']);
    await host.appendToInbox(run.id, 'root here: check the library again', 'user:root');
    await waitForStatus(host, run.id, ['running', 'queued'], { timeoutMs: 2000 }).catch(() => undefined);
    await waitForStatus(host, run.id, ['succeeded']);
    const read = await store.search('alice', { session_id: run.id });
    const texts = (read.messages as { role: string; content: string }[]).map((m) => `${m.role}:${m.content}`);
    expect(texts).toContain('user:root here: check the library again');
    expect(texts).toContain('assistant:checked again');
    expect((await store.search('root', {})).count).toBe(0);
  });

  it('neither archives nor offers session_search to runs not started by a user', async () => {
    const { host, provider, store } = await hostWith([{ finalText: 'ok' }]);
    const run = await host.startRun({ goal: 'nightly check', actor: 'apikey:cron-job' });
    await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    expect(toolNames(provider, 0)).not.toContain('session_search');
    expect((await store.search('cron-job', {})).count).toBe(0);
  });

  it('never offers session_search to a subagent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'history-sub-'));
    const store = new SqliteHistoryStore({ directory: dir });
    cleanup.push(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const tool = sessionSearchTool(store);
    expect(tool.available({ depth: 0, startedBy: 'user:alice' } as RunRecord)).toBe(true);
    expect(tool.available({ depth: 1, startedBy: 'user:alice' } as RunRecord)).toBe(false);
    expect(tool.available({ depth: 1, startedBy: 'agent:run-1' } as RunRecord)).toBe(false);
  });

  it('offers no session_search and archives nothing on a host without a history option', async () => {
    const { host, provider, store } = await hostWith([{ finalText: 'ok' }], false);
    const run = await host.startRun({ goal: 'hello there', actor: 'user:alice' });
    await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    expect(toolNames(provider, 0)).not.toContain('session_search');
    expect((await store.search('alice', {})).count).toBe(0);
  });
});
