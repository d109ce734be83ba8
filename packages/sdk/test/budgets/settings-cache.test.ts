// The spending settings are read from storage once per 2 seconds, not at every model call: a change made through
// the host is seen by its next call; one made by another host on the same SQLite file within 2 seconds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConsoleLogger, ManualClock, SequentialIdGenerator, createAgentHost, type AgentHost } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider } from '../../src/testing';

const ALICE = 'user:alice';
const ADMIN = 'user:admin';
const SETTINGS_KEY = 'budgets.spending';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const h of hosts.splice(0).reverse()) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A host on `file` (a real SQLite file), no workers; counts its reads of the spending settings. */
async function host(file: string): Promise<{ host: AgentHost; reads: () => number; failNext: () => void }> {
  const storage = new SqliteStorage({ path: file });
  const get = storage.settings.get.bind(storage.settings);
  let reads = 0;
  let fail = false;
  vi.spyOn(storage.settings, 'get').mockImplementation((key) => {
    if (key !== SETTINGS_KEY) return get(key);
    reads++;
    if (fail) {
      fail = false;
      return Promise.reject(new Error('settings read failed'));
    }
    return get(key);
  });
  const h = createAgentHost({
    storage,
    clock: new ManualClock(Date.UTC(2026, 10, 30, 12)),
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [] }), model: 'scripted' },
    identity: { roleOf: (actor) => (actor === ADMIN ? 'admin' : 'user') },
    runs: { spending: { people: { [ALICE]: { day: { modelCalls: 1 } } } } },
  });
  await h.start({ workers: false });
  hosts.push(h);
  return {
    host: h,
    reads: () => reads,
    failNext: () => {
      fail = true;
    },
  };
}

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-settings-cache-'));
  dirs.push(dir);
  return join(dir, 'agent.sqlite');
}

describe('spending settings cache', () => {
  it('reads storage once for many calls; a change through host.budgets.update is seen by the very next call, by settings() and by the caps of a reservation', async () => {
    const { host: h, reads } = await host(tempFile());
    const before = reads();
    const many = await Promise.all([h.budgets.settings(), h.budgets.settings(), h.budgets.ledger.capsOf(ALICE)]);
    expect(many[0].people[ALICE]?.day?.modelCalls).toBe(1);
    expect(many[2].person.day.modelCalls).toBe(1);
    for (let i = 0; i < 20; i++) await h.budgets.ledger.capsOf(ALICE);
    expect(reads() - before).toBeLessThanOrEqual(1);

    const after = await h.budgets.update(ADMIN, { people: { [ALICE]: { day: { modelCalls: 7 } } } });
    expect(after.people[ALICE]?.day?.modelCalls).toBe(7);
    expect((await h.budgets.settings()).people[ALICE]?.day?.modelCalls).toBe(7);
    expect((await h.budgets.ledger.capsOf(ALICE)).person.day.modelCalls).toBe(7);
    expect((await h.budgets.usage(ALICE)).caps.day.modelCalls).toBe(7);
    await h.budgets.update(ADMIN, { household: { day: { costUsd: 3 } } });
    expect((await h.budgets.ledger.capsOf(ALICE)).household.day.costUsd).toBe(3);
    expect((await h.budgets.ledger.capsOf(ALICE)).person.day.modelCalls).toBe(7);
  });

  it('a refused change (not an administrator, invalid) leaves the cached settings as they were', async () => {
    const { host: h } = await host(tempFile());
    await h.budgets.settings();
    await expect(h.budgets.update(ALICE, { people: { [ALICE]: { day: { modelCalls: 100 } } } })).rejects.toMatchObject({
      code: 'ADMIN_FORBIDDEN',
    });
    await expect(h.budgets.update(ADMIN, { household: { day: { costUsd: -1 } } })).rejects.toMatchObject({
      code: 'BUDGET_SETTINGS_INVALID',
    });
    expect((await h.budgets.ledger.capsOf(ALICE)).person.day.modelCalls).toBe(1);
  });

  it('a change made by another host on the same file is seen within 2 seconds, and not read again before', async () => {
    const file = tempFile();
    const a = await host(file);
    const b = await host(file);
    let now = performance.now();
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    expect((await b.host.budgets.ledger.capsOf(ALICE)).person.day.modelCalls).toBe(1);
    const readsBefore = b.reads();
    await a.host.budgets.update(ADMIN, { people: { [ALICE]: { day: { modelCalls: 9 } } } });
    now += 1_999;
    // Within the bound: the value read before is used, storage is not read.
    expect((await b.host.budgets.ledger.capsOf(ALICE)).person.day.modelCalls).toBe(1);
    expect(b.reads()).toBe(readsBefore);
    now += 1;
    expect((await b.host.budgets.ledger.capsOf(ALICE)).person.day.modelCalls).toBe(9);
    expect(b.reads()).toBe(readsBefore + 1);
    expect((await b.host.budgets.settings()).people[ALICE]?.day?.modelCalls).toBe(9);
  });

  it('a failed read is not kept: the call fails, the next one reads again', async () => {
    const { host: h, failNext } = await host(tempFile());
    failNext();
    await expect(h.budgets.ledger.capsOf(ALICE)).rejects.toThrow(/settings read failed/);
    expect((await h.budgets.ledger.capsOf(ALICE)).person.day.modelCalls).toBe(1);
  });
});
