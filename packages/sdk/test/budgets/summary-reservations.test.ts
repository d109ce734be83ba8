// A compaction summary is a model call of the run: it is reserved for the run's owner like every other
// (docs/budgets.md). A host on a SQLite file, the scripted model, a small context window.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHost } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { startHost, waitForStatus } from '../runtime/harness';
import { shelfReadCapability } from '../helpers';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const shelf = shelfReadCapability();

describe('compaction summary calls and the spending budgets', () => {
  it("a compaction summary call is reserved for the run's owner, settled or released, never left in flight", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-budgets-summary-'));
    dirs.push(dir);
    const steps = Array.from({ length: 12 }, (_, i) => ({
      text: `Reading shelf ${i}. `,
      toolCalls: [{ capability: 'shelf.read', input: { shelf: i } }],
    }));
    const { host } = await startHost(
      { match: 'survey', steps, finalText: 'Surveyed every shelf.' },
      {
        storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
        identity: { roleOf: () => 'user' },
        runs: { contextWindowTokens: 4000, budgets: { maxToolCalls: 100 } },
      },
    );
    hosts.push(host);
    host.capabilities.register(shelf);
    const run = await host.startRun({ goal: 'survey the library', mode: 'plan_only', actor: 'user:alice' });
    expect((await waitForStatus(host, run.id, ['succeeded', 'failed', 'waiting'])).status).toBe('succeeded');
    // Read from the file by a second connection, as another process would.
    const reader = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
    const reservations = await reader.budgetUsage.reservations({ runId: run.id });
    await reader.close();
    const summaries = reservations.filter((r) => r.key.startsWith(`${run.id}:summary:`));
    expect(summaries.length).toBeGreaterThan(0);
    expect(reservations.every((r) => r.subject === 'user:alice' && r.state !== 'reserved')).toBe(true);
    const settledCalls = reservations.filter((r) => r.state === 'settled' && r.modelCalls === 1).length;
    expect((await host.budgets.usage('user:alice')).used.day.modelCalls).toBe(settledCalls);
  });
});
