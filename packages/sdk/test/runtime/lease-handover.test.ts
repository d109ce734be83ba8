// The worker pool releases the lease of the run it drove in the transaction that leases its next run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost, type StorageAdapter } from '../../src/index';
import { MemoryStorage, type StorageSession } from '../../src/storage';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider } from '../../src/testing';
import { waitForStatus } from './harness';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Records the `runs` calls of each transaction (the rest passes through, bound to the real adapter). */
function recording(inner: StorageAdapter, transactions: string[][]): StorageAdapter {
  const bound = (t: object, value: unknown) =>
    typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
  const runsOf = (runs: object, calls: string[]) =>
    new Proxy(runs, {
      get(t, prop) {
        const value: unknown = Reflect.get(t, prop);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(`runs.${String(prop)}`);
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  return new Proxy(inner, {
    get(t, prop) {
      if (prop !== 'transaction') return bound(t, Reflect.get(t, prop));
      return <T>(fn: (s: StorageSession) => Promise<T>) =>
        t.transaction((s) => {
          const calls: string[] = [];
          transactions.push(calls);
          return fn(
            new Proxy(s, {
              get: (ss, name) => (name === 'runs' ? runsOf(ss.runs, calls) : bound(ss, Reflect.get(ss, name))),
            }),
          );
        });
    },
  });
}

const stores: Array<[string, () => StorageAdapter]> = [
  ['MemoryStorage', () => new MemoryStorage()],
  [
    'SqliteStorage (file)',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'media-agent-lease-'));
      dirs.push(dir);
      return new SqliteStorage({ path: join(dir, 'agent.sqlite') });
    },
  ],
];

/**
 * A started host on `storage` recording its transactions, one worker answering "hello" runs; the pool polls only
 * every 60 s, so a run that is neither handed over nor woken for would wait.
 */
async function startedHost(storage: StorageAdapter, transactions: string[][]): Promise<AgentHost> {
  const host = createAgentHost({
    storage: recording(storage, transactions),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [{ match: 'hello', steps: [], finalText: 'Hi.' }] }) },
    runs: { pollMs: 60_000, concurrency: 1 },
  });
  hosts.push(host);
  await host.start();
  return host;
}

describe.each(stores)('lease hand-over (%s)', (_name, make) => {
  it('a run that ended has its lease released at once; two runs one after the other: one transaction releases the first and leases the second; every lease is given back', async () => {
    const storage = make();
    const transactions: string[][] = [];
    const host = await startedHost(storage, transactions);
    const first = await host.startRun({ goal: 'hello', mode: 'plan_only', actor: 'user:admin' });
    expect((await waitForStatus(host, first.id, ['succeeded'])).status).toBe('succeeded');
    // Released once the drive ended, without waiting for another run (the pool polls only every 60 s here).
    let stored = await storage.runs.get(first.id);
    for (let i = 0; i < 1000 && stored?.leaseOwner !== null; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      stored = await storage.runs.get(first.id);
    }
    expect(stored!.leaseOwner).toBeNull();
    expect(transactions.some((t) => t.join() === 'runs.releaseLease,runs.acquireLease')).toBe(true);
    // Back to back: the second run is queued before the first run's drive ends.
    transactions.length = 0;
    const a = await host.startRun({ goal: 'hello a', mode: 'plan_only', actor: 'user:admin' });
    const b = await host.startRun({ goal: 'hello b', mode: 'plan_only', actor: 'user:admin' });
    expect((await waitForStatus(host, a.id, ['succeeded'])).status).toBe('succeeded');
    expect((await waitForStatus(host, b.id, ['succeeded'])).status).toBe('succeeded');
    const leases = transactions.filter((t) => t.includes('runs.acquireLease'));
    const handover = leases.find((t) => t.join() === 'runs.releaseLease,runs.acquireLease');
    expect(handover, JSON.stringify(leases)).toBeDefined();
    // Never a release in a transaction of its own while the pool runs.
    expect(transactions.filter((t) => t.join() === 'runs.releaseLease')).toEqual([]);
    // Every lease is given back once the drives ended.
    const held = async () =>
      (await Promise.all([first.id, a.id, b.id].map((id) => storage.runs.get(id)))).filter(
        (r) => r!.leaseOwner !== null,
      );
    for (let i = 0; i < 1000 && (await held()).length > 0; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(await held()).toEqual([]);
  });
});

describe.each(stores)('a run started while a worker is idle (%s)', (_name, make) => {
  it('is stored leased to that worker and driven without a lease transaction of its own', async () => {
    const storage = make();
    const transactions: string[][] = [];
    const host = await startedHost(storage, transactions);
    // Let the worker's first lease query find nothing and go idle.
    for (let i = 0; i < 1000 && !transactions.some((t) => t.includes('runs.acquireLease')); i++)
      await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    transactions.length = 0;
    const run = await host.startRun({ goal: 'hello', mode: 'plan_only', actor: 'user:admin' });
    const inserted = await storage.runs.get(run.id);
    expect(inserted!.leaseOwner).not.toBeNull();
    expect((await waitForStatus(host, run.id, ['succeeded'])).status).toBe('succeeded');
    // The insert carried the lease; nothing leased the run afterwards (the only lease query is the one that released
    // it when its drive ended and found nothing else).
    const leasing = transactions.filter((t) => t.includes('runs.acquireLease'));
    expect(leasing.every((t) => t.join() === 'runs.releaseLease,runs.acquireLease')).toBe(true);
    expect(transactions[0]).toEqual(['runs.insert']);
  });
});
