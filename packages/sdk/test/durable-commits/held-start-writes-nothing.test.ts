// Regression guard, found in review of the commit changes — A run held at a runs cap at its start: "nothing of the start is written". The start's commit is rolled back,
// but the drive's start (startDrive: memory snapshot frozen, middleware onDriveStart) already ran in memory, and
// the hold's commit writes the whole runtime state — so the memory block frozen at the refused start is stored
// and the run, resumed later, is prompted with memory as it was when it was refused, not when it started.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost, type ModelProvider } from '../../src/index';
import type { ModelEvent, ModelRequest } from '../../src/models';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider } from '../../src/testing';
import { waitForStatus } from '../runtime/harness';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

class Recording implements ModelProvider {
  readonly id = 'recording';
  readonly systems: string[] = [];
  constructor(private readonly inner: ModelProvider) {}
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> {
    const first = request.messages[0];
    this.systems.push(typeof first?.content === 'string' ? first.content : JSON.stringify(first?.content));
    return this.inner.stream(request, signal);
  }
}

it('a start refused at the runs cap stores nothing of the start, and the resumed run sees memory as of its real start', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'trial34-held-'));
  dirs.push(dir);
  const memoryDir = join(dir, 'memory');
  mkdirSync(memoryDir, { recursive: true });
  const storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
  const provider = new Recording(new ScriptedProvider({ scripts: { finalText: 'Nothing to do.' } }));
  const host = createAgentHost({
    storage,
    logger: new ConsoleLogger('silent'),
    model: { provider },
    memory: { dataDir: memoryDir },
    runs: { pollMs: 5, concurrency: 1, spending: { people: { 'user:admin': { day: { runs: 0 } } } } },
  });
  hosts.push(host);
  await host.start();
  writeFileSync(join(memoryDir, 'MEMORY.md'), 'The household prefers ALPHA-OLD releases.\n');
  const run = await host.startRun({ goal: 'what do we prefer?', mode: 'plan_only', actor: 'user:admin' });
  const held = await waitForStatus(host, run.id, ['waiting']);
  expect(held.startedAt).toBeNull();
  // Nothing of the refused start is in storage: no goal message, no frozen memory block.
  expect(await storage.messages.list(run.id)).toHaveLength(0);
  const stored = await storage.runs.get(run.id);
  expect.soft((stored!.runtimeState as Record<string, unknown> | null)?.memorySnapshot).toBeUndefined();

  writeFileSync(join(memoryDir, 'MEMORY.md'), 'The household prefers BETA-NEW releases.\n');
  await host.budgets.update('user:admin', { people: { 'user:admin': { day: { runs: 5 } } } });
  expect((await waitForStatus(host, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
  expect(provider.systems).toHaveLength(1);
  expect.soft(provider.systems[0]).toContain('BETA-NEW');
});
