// Trial of "fewer commits per run" (CHANGELOG): a side effect's settlement riding on its result's step, the run's start
// charged in the start's step, and the worker pool's lease hand-over — tried with real parts: SQLite files, a real
// child process killed with SIGKILL, real SQLite write locks, two hosts on one file.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  type AgentHost,
  type AgentOptions,
  type StorageAdapter,
} from '../../src/index';
import type { ModelMessage, ToolResultMessage } from '../../src/models';
import { SqliteStorage } from '../../src/sqlite';
import type { StorageSession } from '../../src/storage';
import { ScriptedProvider, type FakeScript } from '../../src/testing';
import { runEvents, waitForStatus } from '../runtime/harness';
import { killWorkerWhen } from '../runtime/kill-worker';
import { noteSend, sendScript } from './fixtures/commit-merges-scripts';

const crashWorker = fileURLToPath(new URL('./fixtures/commit-merges-crash-worker.ts', import.meta.url));
const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'commit-merges-trial-'));
  dirs.push(dir);
  return dir;
}

const TERMINAL = ['succeeded', 'failed', 'cancelled', 'budget_exceeded', 'waiting'] as const;

/** Polls `check` (setImmediate between tries, no fixed sleep) until it returns true or `tries` are used. */
async function until(check: () => Promise<boolean> | boolean, tries = 5000): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return check();
}

function makeHost(storage: StorageAdapter, options: Partial<AgentOptions> = {}): AgentHost {
  const host = createAgentHost({
    storage,
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [sendScript] }) },
    runs: { pollMs: 5, concurrency: 1 },
    ...options,
  });
  hosts.push(host);
  return host;
}

describe('SIGKILL after an execute handler returned, inside the step that appends its result (child process, SQLite file)', () => {
  it('after restart the effect is not run again, the entry ends unknown (not running), the run resumes and ends', async () => {
    const dir = tempDir();
    const dbFile = join(dir, 'agent.sqlite');
    const effectsFile = join(dir, 'effects.txt');
    writeFileSync(effectsFile, '');
    const { value: runId, signal } = await killWorkerWhen(crashWorker, [dbFile, effectsFile], (out) => {
      const id = /"runId":"([^"]+)"/.exec(out)?.[1];
      return id && out.includes('in-settle\n') ? id : undefined;
    });
    expect(signal).toBe('SIGKILL');
    expect(readFileSync(effectsFile, 'utf8')).toBe('hello\n');

    // What the killed process left: the claim (running) and the step that opened the call; no result, no settlement.
    const before = new SqliteStorage({ path: dbFile });
    await before.migrate();
    const [claimed] = await before.ledger.listByRun(runId, { limit: 10 });
    expect(claimed!.state).toBe('running');
    const left = (await before.messages.list(runId)).map((m) => (m.message as unknown as ModelMessage).role);
    expect(left).toEqual(['user', 'assistant']);
    expect(
      (await before.audit.list({ limit: 100 })).filter(
        (a) => a.action === 'capability.invoke' && a.capabilityId === 'note.send',
      ),
    ).toEqual([]);
    await before.close();

    const storage = new SqliteStorage({ path: dbFile });
    const host = makeHost(storage, { runs: { pollMs: 5, leaseMs: 300, concurrency: 1 } });
    host.capabilities.register(noteSend((text) => appendFileSync(effectsFile, `${text}\n`)));
    await host.start();
    const done = await waitForStatus(host, runId, [...TERMINAL], { timeoutMs: 15_000 });
    // Never run twice.
    expect(readFileSync(effectsFile, 'utf8')).toBe('hello\n');
    const entries = await storage.ledger.listByRun(runId, { limit: 10 });
    expect(entries.map((e) => e.state)).toEqual(['unknown']);
    expect(done.status).toBe('succeeded');
    // The model was told the outcome is unknown, once, for the one call.
    const messages = (await storage.messages.list(runId)).map((m) => m.message as unknown as ModelMessage);
    const results = messages.filter((m): m is ToolResultMessage => m.role === 'tool');
    expect(results).toHaveLength(1);
    expect(String(results[0]!.content)).toMatch(/unknown|OUTCOME_UNKNOWN/i);
    expect(await storage.runs.get(runId)).toMatchObject({ leaseOwner: null });
  });
});
