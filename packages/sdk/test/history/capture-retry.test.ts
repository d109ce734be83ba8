// A capture the store refuses is kept and retried until it is archived, not only reported as a warning
// (NousResearch/hermes-agent#87049: whole conversations never reached state.db while the file was locked;
// singular0/corelet#5: an append that failed silently destroyed the only copy of the messages).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Type from 'typebox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ConsoleLogger,
  ManualClock,
  SequentialIdGenerator,
  createAgentHost,
  defineCapability,
  type AgentHost,
} from '../../src/index';
import { HistoryStoreError } from '../../src/history/errors';
import type { HistoryAppend, HistoryAppendResult } from '../../src/history/history-store';
import { SqliteHistoryStore } from '../../src/history/sqlite-history-store';
import { HistoryRetryQueue } from '../../src/runtime/middleware/history-retry';
import { MemoryStorage } from '../../src/storage';
import { ScriptedProvider, listRunEvents, waitForRunStatus } from '../../src/testing';

/** A real SQLite history store whose appends fail (as a locked file does) while `failing` says so. */
class FlakyHistoryStore extends SqliteHistoryStore {
  failing: (attempt: number) => boolean = () => false;
  attempts = 0;
  override async append(userId: string, batch: HistoryAppend): Promise<HistoryAppendResult> {
    if (this.failing(++this.attempts)) throw new HistoryStoreError('database is locked');
    return super.append(userId, batch);
  }
}

const hosts: AgentHost[] = [];
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const c of cleanup.splice(0)) await c();
});

async function hostWith(store: FlakyHistoryStore) {
  const provider = new ScriptedProvider({
    scripts: [
      {
        match: 'logs',
        steps: [{ toolCalls: [{ capability: 'logs.read', input: {} }] }],
        finalText: 'The Dune download stalled at 80%.',
      },
    ],
  });
  const host = createAgentHost({
    storage: new MemoryStorage(),
    clock: new ManualClock(Date.UTC(2026, 10, 30, 12)),
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider, model: 'scripted' },
    runs: { pollMs: 5, leaseMs: 60_000 },
    history: { store },
  });
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
      handler: async () => ({ log: 'stalled at 80%' }),
    }),
  );
  await host.start({ workers: true });
  hosts.push(host);
  return host;
}

function newStore(): FlakyHistoryStore {
  const directory = mkdtempSync(join(tmpdir(), 'capture-retry-'));
  const store = new FlakyHistoryStore({ directory });
  cleanup.push(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return store;
}

async function archivedRoles(store: SqliteHistoryStore, runId: string): Promise<string[]> {
  const read = await store.search('alice', { session_id: runId });
  return ((read.messages ?? []) as { role: string }[]).map((m) => m.role);
}

describe('history capture retries what the store refused', () => {
  it('archives every message of a run whose first appends failed (hermes-agent#87049): retried at the next capture points', async () => {
    const store = newStore();
    store.failing = (attempt) => attempt <= 2;
    const host = await hostWith(store);
    const run = await host.startRun({ goal: 'check the Dune logs', actor: 'user:alice' });
    await waitForRunStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    expect(await archivedRoles(store, run.id)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const warnings = (await listRunEvents(host, run.id)).filter(
      (e) => e.type === 'warning' && (e.data as { code?: string }).code === 'HISTORY_CAPTURE_FAILED',
    );
    // The failure is reported, and it is not the only outcome.
    expect(warnings.length).toBeGreaterThan(0);
    expect(String((warnings[0]!.data as { message?: string }).message)).toContain('retried until archived');
  });

  it('archives what the store refused during the whole run once it takes writes again, after the run ended (singular0/corelet#5)', async () => {
    const store = newStore();
    let down = true;
    store.failing = () => down;
    const host = await hostWith(store);
    const run = await host.startRun({ goal: 'check the Dune logs', actor: 'user:alice' });
    await waitForRunStatus(host, run.id, ['succeeded', 'failed', 'waiting']);
    expect(await archivedRoles(store, run.id)).toEqual([]);
    down = false;
    await vi.waitFor(
      async () => expect(await archivedRoles(store, run.id)).toEqual(['user', 'assistant', 'tool', 'assistant']),
      // The host's queue backs off 1 s, 2 s, 5 s, 10 s while the store is down.
      { timeout: 45_000, interval: 50 },
    );
  });
});

describe('HistoryRetryQueue', () => {
  it('keeps a message queued twice once, and gives up the oldest above its bound', () => {
    const store = new FlakyHistoryStore({ directory: join(tmpdir(), 'never-opened') });
    const queue = new HistoryRetryQueue(store, { delaysMs: [3_600_000], maxMessages: 3 });
    const m = (uid: string) => ({ uid, role: 'user' as const, content: uid, timestamp: 1 });
    queue.add({ user: 'alice', session: { id: 's1' }, messages: [m('a'), m('b')] });
    queue.add({ user: 'alice', session: { id: 's1' }, messages: [m('b')] });
    expect([queue.size, queue.dropped]).toEqual([2, 0]);
    queue.add({ user: 'alice', session: { id: 's2' }, messages: [m('a'), m('c')] });
    expect([queue.size, queue.dropped]).toEqual([3, 1]);
    queue.stop();
  });
});
