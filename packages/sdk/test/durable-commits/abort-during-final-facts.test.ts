// Regression guard, found in review of the commit changes — A run aborted while the final reply's deferred step waits for the goal's facts (execute mode, a GoalFacts that
// throws on the lease's signal, as host code does): the final model call's reservation rode on that step and is
// dropped with it, so the call's worst case stays counted against the owner's spending for good (the process
// did not crash: nothing will ever settle it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost, type GoalFacts } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider } from '../../src/testing';
import { waitForStatus } from '../runtime/harness';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function oneRun(abortInFacts: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'trial34-abort-'));
  dirs.push(dir);
  let host!: AgentHost;
  const facts: GoalFacts = {
    forRun: (runId, signal) => {
      if (!abortInFacts) return Promise.resolve({ plans: [], downloads: [], organizes: [], library: [] });
      return new Promise((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(new Error('aborted while reading facts')), { once: true });
        void host.abort(runId, 'changed my mind');
      });
    },
  };
  host = createAgentHost({
    storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
    logger: new ConsoleLogger('silent'),
    // A priced model: a default cost cap limits it, so each call is reserved (worst case) before it is sent.
    model: {
      provider: new ScriptedProvider({ scripts: { match: 'film', finalText: 'Nothing to do here.' } }),
      model: 'claude-sonnet-4-5',
    },
    goalFacts: facts,
    runs: { pollMs: 5, concurrency: 1 },
  });
  hosts.push(host);
  await host.start();
  const run = await host.startRun({ goal: 'add a film', actor: 'user:admin' });
  const ended = await waitForStatus(host, run.id, ['succeeded', 'failed', 'cancelled']);
  const usage = await host.budgets.usage('user:admin');
  return { status: ended.status, costUsd: usage.used.day.costUsd, tokens: usage.used.day.tokens };
}

it('an abort while the final facts are read leaves the spending counted as spent, not as the worst case', async () => {
  const normal = await oneRun(false);
  expect(normal.costUsd).toBeGreaterThan(0);
  const aborted = await oneRun(true);
  expect(aborted.status).toBe('cancelled');
  // The same single model call was made in both runs.
  expect(aborted.costUsd).toBeCloseTo(normal.costUsd, 6);
  expect(aborted.tokens).toBe(normal.tokens);
});
