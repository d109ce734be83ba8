// Regression guard, found in review of the commit changes — A run held at the runs cap before its start raises a `budget_reached` decision; once the cap is raised and the
// run starts, the decision must be resolved (the run spends again). Since the start's charge rides on the start's
// commit, the decision is resolved only by the run's first model call — a resumed run that makes none (a
// `/memory` command is answered without the model) leaves it open for good.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider } from '../../src/testing';
import { waitForStatus } from '../runtime/harness';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it('a run held at the runs cap, started once the cap is raised, resolves its budget_reached decision', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'trial34-decision-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'memory'));
  const host = createAgentHost({
    storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: { finalText: 'Nothing to do.' } }) },
    memory: { dataDir: join(dir, 'memory') },
    runs: { pollMs: 5, concurrency: 1, spending: { people: { 'user:admin': { day: { runs: 0 } } } } },
  });
  hosts.push(host);
  await host.start();
  const run = await host.startRun({ goal: '/memory pending', mode: 'plan_only', actor: 'user:admin' });
  await waitForStatus(host, run.id, ['waiting']);
  const open = await host.decisions({ subjectId: run.id, kind: 'budget_reached', status: 'open' });
  expect(open).toHaveLength(1);
  await host.budgets.update('user:admin', { people: { 'user:admin': { day: { runs: 5 } } } });
  expect((await waitForStatus(host, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
  expect(await host.decisions({ subjectId: run.id, kind: 'budget_reached', status: 'open' })).toHaveLength(0);
});
