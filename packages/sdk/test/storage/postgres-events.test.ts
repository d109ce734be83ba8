/**
 * Run events across processes on PostgreSQL: the global sequence is handed out in commit order (a reader paging
 * "after N" never skips an event that commits late), and subscribers in one process are woken by LISTEN/NOTIFY
 * for events appended through another — promptly, exactly once, in global order, and again after reconnecting
 * with their last sequence.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import type { RunEventRecord } from '../../src/core/run-records';
import { SystemClock } from '../../src/ports/clock';
import type { StorageTopic } from '../../src/ports/storage-adapter';
import type { PostgresStorage } from '../../src/postgres';
import { RunEventBus } from '../../src/runtime/events/run-event-bus';
import type { RunEvent } from '../../src/runtime/events/run-event';
import {
  adminPool,
  closeAdmin,
  describePostgres,
  dropSchema,
  freshSchemaName,
  PG_URL,
  pgStorage,
} from './postgres-available';
import { runRecord } from './run-record';

let schema: string;
const stores: PostgresStorage[] = [];
function store(options: Parameters<typeof pgStorage>[1] = {}): PostgresStorage {
  const s = pgStorage(schema, options);
  stores.push(s);
  return s;
}

afterAll(closeAdmin);

const event = (runId: string, n: number) => ({ runId, type: 'text_delta', at: n, data: { n } });

/** Resolves `true` when `p` settles within `ms`, else `false` (without waiting for it). */
const settlesWithin = (p: Promise<unknown>, ms: number) =>
  Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((r) => setTimeout(() => r(false), ms)),
  ]);

/** Takes `count` events from the iterator, failing after `timeoutMs`. */
async function take(iterator: AsyncIterator<RunEvent>, count: number, timeoutMs = 5_000): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (out.length < count) {
    const next = await Promise.race([
      iterator.next(),
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), Math.max(1, deadline - Date.now()))),
    ]);
    if (next === 'timeout') throw new Error(`only ${out.length} of ${count} events within ${timeoutMs} ms`);
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

describePostgres('PostgresStorage: run events across processes', () => {
  beforeEach(async () => {
    schema = freshSchemaName('ma_events');
    await store().migrate();
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    await dropSchema(schema);
  });

  it('control: with a plain sequence, a reader paging "after N" skips an event whose transaction took a lower number and committed later', async () => {
    // The hazard the design avoids, shown on a bare table: T1 takes 1, T2 takes 2 and commits first.
    const table = `"${schema}".seq_control`;
    await adminPool().query(`CREATE TABLE ${table} (n bigserial PRIMARY KEY, v text)`);
    const t1 = new pg.Client({ connectionString: PG_URL });
    const t2 = new pg.Client({ connectionString: PG_URL });
    await Promise.all([t1.connect(), t2.connect()]);
    try {
      await t1.query('BEGIN');
      await t1.query(`INSERT INTO ${table} (v) VALUES ('first')`);
      await t2.query('BEGIN');
      await t2.query(`INSERT INTO ${table} (v) VALUES ('second')`);
      await t2.query('COMMIT');
      const seen = (await adminPool().query(`SELECT n FROM ${table} WHERE n > 0 ORDER BY n`)).rows.map((r) =>
        Number(r.n),
      );
      expect(seen).toEqual([2]); // the reader's cursor moves to 2 …
      await t1.query('COMMIT');
      const after = (await adminPool().query(`SELECT n FROM ${table} WHERE n > 2 ORDER BY n`)).rows;
      expect(after).toEqual([]); // … and 1, committed now, is never read
    } finally {
      await Promise.all([t1.end(), t2.end()]);
    }
  });

  it('two appending transactions committing out of order: the later one waits for the earlier, and a reader paging "after N" misses nothing', async () => {
    const a = store();
    const b = store();
    const reader = store();
    let appended!: (e: RunEventRecord) => void;
    const firstAppended = new Promise<RunEventRecord>((r) => (appended = r));
    let commit!: () => void;
    const gate = new Promise<void>((r) => (commit = r));
    const first = a.transaction(async (tx) => {
      const e = await tx.events.append(event('run-a', 1));
      appended(e);
      await gate; // held open: this transaction commits last
      return e;
    });
    const early = await firstAppended;
    // B appends (and would commit) while A is open: its append waits for A's transaction to end.
    const second = b.transaction(async (tx) => tx.events.append(event('run-b', 2)));
    expect(await settlesWithin(second, 300)).toBe(false);
    expect(await reader.events.listAfter(0)).toEqual([]);
    commit();
    const [e1, e2] = await Promise.all([first, second]);
    expect(e1).toEqual(early);
    expect(e2.globalSeq).toBe(e1.globalSeq + 1);
    expect((await reader.events.listAfter(0)).map((e) => e.globalSeq)).toEqual([e1.globalSeq, e2.globalSeq]);
  });

  it('a reader paging "after N" while 4 processes append concurrently sees every event exactly once, in global order, with no gaps', async () => {
    const writers = [store(), store(), store(), store()];
    const reader = store();
    let done = false;
    const seen: RunEventRecord[] = [];
    const reading = (async () => {
      let last = 0;
      for (;;) {
        const finished = done;
        const page = await reader.events.listAfter(last, 50);
        for (const e of page) {
          expect(e.globalSeq).toBe(last + 1); // commit order: no number is ever read past
          last = e.globalSeq;
          seen.push(e);
        }
        if (finished && page.length === 0) return;
      }
    })();
    await Promise.all(
      writers.map(async (w, p) => {
        for (let i = 0; i < 15; i++) {
          await w
            .transaction(async (tx) => {
              await tx.events.append(event(`run-${p}`, i));
              if (i % 5 === 4) throw new Error('rolled back');
              await tx.events.append(event(`run-${p}`, i));
            })
            .catch((e: Error) => {
              if (e.message !== 'rolled back') throw e;
            });
        }
      }),
    );
    done = true;
    await reading;
    const all = await reader.events.listAfter(0, 1_000);
    expect(seen).toEqual(all);
    expect(all).toHaveLength(4 * 12 * 2);
    for (let p = 0; p < 4; p++) {
      const mine = all.filter((e) => e.runId === `run-${p}`).map((e) => e.seq);
      expect(mine).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    }
  });

  it('watch(): a listener on one instance is told about events and runnable runs committed through another', async () => {
    const writer = store();
    const watcher = store();
    const topics: StorageTopic[] = [];
    let notify!: () => void;
    let heard = new Promise<void>((r) => (notify = r));
    const stop = watcher.watch((topic) => {
      topics.push(topic);
      notify();
    });
    await heard; // the connection is listening (it reports both topics once)
    topics.length = 0;
    heard = new Promise<void>((r) => (notify = r));
    await writer.events.append(event('run-1', 1));
    await heard;
    expect(topics).toContain('events');
    topics.length = 0;
    heard = new Promise<void>((r) => (notify = r));
    await writer.runs.insert(runRecord('run-1'));
    await heard;
    expect(topics).toContain('runs');
    stop();
  });

  it('a subscriber on one process receives events appended through another promptly (no polling), exactly once, in global order, and after reconnecting with its last sequence', async () => {
    const writer = store();
    const subscriberStore = store();
    const bus = new RunEventBus(subscriberStore, new SystemClock());
    const controller = new AbortController();
    // pollMs of a minute: only LISTEN/NOTIFY can deliver within the test's timeout.
    const iterator = bus.subscribe({ signal: controller.signal, pollMs: 60_000 })[Symbol.asyncIterator]();
    const pending = take(iterator, 6);
    for (let i = 0; i < 3; i++) {
      await writer.events.append(event('run-x', i));
      await writer.transaction(async (tx) => {
        await tx.events.append(event('run-y', i));
      });
    }
    const received = await pending;
    const stored = await writer.events.listAfter(0);
    expect(received.map((e) => e.globalSeq)).toEqual(stored.map((e) => e.globalSeq));
    expect(new Set(received.map((e) => e.globalSeq)).size).toBe(6);
    controller.abort();
    await iterator.return?.(undefined);
    // Disconnected: more events are written; a new subscription from the last sequence gets exactly those.
    const last = received[received.length - 1]!.globalSeq;
    for (let i = 3; i < 5; i++) await writer.events.append(event('run-x', i));
    const again = new AbortController();
    const resumed = bus.subscribe({ after: last, signal: again.signal, pollMs: 60_000 })[Symbol.asyncIterator]();
    const tail = await take(resumed, 2);
    expect(tail.map((e) => e.globalSeq)).toEqual([last + 1, last + 2]);
    expect(tail.map((e) => (e.data as unknown as { n: number }).n)).toEqual([3, 4]);
    // Nothing else arrives: a further event is the next one delivered.
    const next = take(resumed, 1);
    await writer.events.append(event('run-z', 9));
    expect((await next)[0]!.globalSeq).toBe(last + 3);
    again.abort();
    await resumed.return?.(undefined);
  });

  it('the listening connection terminated (as on a server restart) reconnects, and the subscriber still receives later events', async () => {
    const writer = store();
    const subscriberStore = store();
    const bus = new RunEventBus(subscriberStore, new SystemClock());
    const controller = new AbortController();
    const iterator = bus.subscribe({ signal: controller.signal, pollMs: 60_000 })[Symbol.asyncIterator]();
    const first = take(iterator, 1);
    await writer.events.append(event('run-1', 1));
    await first;
    const { rows } = await adminPool().query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1`,
      [`LISTEN "media_agent.${schema}"`],
    );
    expect(rows.length).toBeGreaterThan(0);
    const second = take(iterator, 1, 10_000);
    // Appended while the listener may be away: the reconnection re-reads storage, so it is not lost either way.
    await writer.events.append(event('run-1', 2));
    expect((await second)[0]!.seq).toBe(2);
    controller.abort();
    await iterator.return?.(undefined);
  });
});
