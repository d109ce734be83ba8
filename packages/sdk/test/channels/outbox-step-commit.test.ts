// A step's outbox rows are written by its commit, in the step's transaction: a committed step writes them once
// (a re-committed step finds them by key), a step whose lease was lost writes none, and the dispatcher is woken
// only after a commit that inserted rows. Memory store and a real SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/ports/clock';
import type { StorageAdapter } from '../../src/ports/storage-adapter';
import { outboxRowsForReply } from '../../src/runtime/channels/outbox-rows';
import { RunEventBus } from '../../src/runtime/events/run-event-bus';
import { commitStep } from '../../src/runtime/loop/commit';
import { RunSession } from '../../src/runtime/loop/run-session';
import { SqliteStorage } from '../../src/sqlite';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { runRecord } from '../../src/testing/storage-conformance/fixtures';
import { TELEGRAM_LIKE } from './test-channel';

const dirs: string[] = [];
const stores: StorageAdapter[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const lease = (owner: string) =>
  ({ owner, signal: new AbortController().signal, reason: () => undefined, adopt: () => () => undefined }) as never;

const STORES: Array<[string, () => StorageAdapter]> = [
  ['memory', () => new MemoryStorage()],
  [
    'sqlite file',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'media-agent-outbox-step-'));
      dirs.push(dir);
      return new SqliteStorage({ path: join(dir, 'agent.sqlite') });
    },
  ],
];

describe.each(STORES)('outbox rows in a step commit (%s)', (_name, open) => {
  it('inserts the rows with the step, once; wakes the dispatcher only when rows were inserted; a lost lease writes none', async () => {
    const storage = open();
    stores.push(storage);
    await storage.migrate();
    const clock = new ManualClock();
    const bus = new RunEventBus(storage, clock);
    let woken = 0;
    const deps = { storage, bus, clock, onOutboxWritten: () => void woken++ };
    await storage.runs.insert(
      runRecord({ id: 'run-1', status: 'running', leaseOwner: 'w1', leaseExpiresAt: clock.now() + 60_000 }),
    );
    const rows = outboxRowsForReply(
      {
        runId: 'run-1',
        stepKey: '3',
        channelId: 'telegram:home',
        chatId: '42',
        kind: 'text',
        text: `${'a'.repeat(4000)}\n\n${'b'.repeat(200)}`,
        createdAt: clock.now(),
      },
      TELEGRAM_LIKE,
    );
    expect(rows).toHaveLength(2);

    const session = new RunSession((await storage.runs.get('run-1'))!, lease('w1'));
    session.writes.outbox.push(...rows);
    expect(session.writes.empty).toBe(false);
    expect(await commitStep(deps, session)).toBe(true);
    expect(woken).toBe(1);
    const stored = await storage.outbox.listByRun('run-1');
    expect(stored.map((r) => [r.idempotencyKey, r.seq, r.status, r.payload.text.length])).toEqual([
      ['run-1:3:0', 1, 'queued', 4002],
      ['run-1:3:1', 2, 'queued', 200],
    ]);

    // The same step committed again (a resumed run re-doing its last step): nothing new, no wake.
    session.writes.outbox.push(...rows);
    expect(await commitStep(deps, session)).toBe(true);
    expect(await storage.outbox.listByRun('run-1')).toHaveLength(2);
    expect(woken).toBe(1);

    // A worker whose lease is gone commits nothing: neither its run patch nor its rows.
    const stale = new RunSession((await storage.runs.get('run-1'))!, lease('w2'));
    stale.writes.outbox.push(
      ...outboxRowsForReply(
        {
          runId: 'run-1',
          stepKey: '4',
          channelId: 'telegram:home',
          chatId: '42',
          kind: 'text',
          text: 'late',
          createdAt: clock.now(),
        },
        TELEGRAM_LIKE,
      ),
    );
    expect(await commitStep(deps, stale)).toBe(false);
    expect(await storage.outbox.listByRun('run-1')).toHaveLength(2);
    expect(woken).toBe(1);
  });

  it('a malformed row fails the whole step: nothing of it is written', async () => {
    const storage = open();
    stores.push(storage);
    await storage.migrate();
    const clock = new ManualClock();
    const deps = { storage, bus: new RunEventBus(storage, clock), clock };
    await storage.runs.insert(
      runRecord({ id: 'run-1', status: 'running', leaseOwner: 'w1', leaseExpiresAt: clock.now() + 60_000 }),
    );
    const session = new RunSession((await storage.runs.get('run-1'))!, lease('w1'));
    session.writes.patch = { finalText: 'should not be stored' };
    session.writes.outbox.push({
      id: 'good',
      channelId: 'telegram:home',
      chatId: '42',
      runId: 'run-1',
      kind: 'text',
      payload: { text: 'fine' },
      idempotencyKey: 'run-1:5:0',
      createdAt: clock.now(),
    });
    session.writes.outbox.push({ ...session.writes.outbox[0]!, id: 'bad', idempotencyKey: 'run-1:5:1', chatId: '' });
    await expect(commitStep(deps, session)).rejects.toMatchObject({ code: 'OUTBOX_INPUT_INVALID' });
    expect(await storage.outbox.listByRun('run-1')).toEqual([]);
    expect((await storage.runs.get('run-1'))?.finalText).toBeNull();
  });
});
