/**
 * A real server restart, on a private PostgreSQL server of this suite's own (initdb in a temporary directory):
 * the transaction in flight fails typed and keeps nothing, calls while the server is down fail typed, and
 * afterwards the adapters reconnect — the pool for calls, the LISTEN connection for a subscriber in another
 * "process" (another adapter), which then receives the events written after the restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMediaAgentError } from '../../src/core/errors';
import { SystemClock } from '../../src/ports/clock';
import { PostgresStorage } from '../../src/postgres';
import type { RunEvent } from '../../src/runtime/events/run-event';
import { RunEventBus } from '../../src/runtime/events/run-event-bus';
import { type PrivatePostgres, postgresBinDir, startPrivatePostgres } from './private-postgres';

const binDir = postgresBinDir();

async function next(iterator: AsyncIterator<RunEvent>, timeoutMs: number): Promise<RunEvent> {
  const result = await Promise.race([
    iterator.next(),
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms`)), timeoutMs),
    ),
  ]);
  if (result.done) throw new Error('the subscription ended');
  return result.value;
}

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return isMediaAgentError(error) ? error.code : `not a MediaAgentError: ${String(error)}`;
}

describe.skipIf(binDir === undefined)('PostgresStorage across a real server restart (a private server)', () => {
  let server: PrivatePostgres;
  beforeAll(async () => {
    server = await startPrivatePostgres(binDir!);
  }, 60_000);
  afterAll(() => server?.destroy());

  it('the server shut down mid-transaction: the transaction fails with STORAGE_UNAVAILABLE and keeps nothing, calls while it is down fail the same way, and after it is back the adapter reconnects and a subscriber elsewhere gets the later events', async () => {
    const options = { connectionString: server.url, schema: 'media_agent', connectionTimeoutMs: 2_000 };
    const writer = new PostgresStorage(options);
    const reader = new PostgresStorage(options);
    const controller = new AbortController();
    try {
      await writer.migrate();
      await writer.settings.set('before', 1);
      // A subscriber on the other adapter, woken only by NOTIFY (it polls once a minute).
      const bus = new RunEventBus(reader, new SystemClock());
      const events = bus.subscribe({ signal: controller.signal, pollMs: 60_000 })[Symbol.asyncIterator]();
      const firstEvent = next(events, 10_000);
      await writer.events.append({ runId: 'run-1', type: 'text_delta', at: 1, data: { n: 1 } });
      expect((await firstEvent).seq).toBe(1);

      let reached!: () => void;
      const atGate = new Promise<void>((r) => (reached = r));
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      const inFlight = writer.transaction(async (tx) => {
        await tx.settings.set('in-flight', 1);
        await tx.events.append({ runId: 'run-1', type: 'text_delta', at: 2, data: { n: 'lost' } });
        reached();
        await gate;
        await tx.settings.set('after', 2);
      });
      await atGate;
      server.stop(); // pg_ctl stop -m fast: every connection is terminated
      open();
      expect(await code(inFlight)).toBe('STORAGE_UNAVAILABLE');
      expect(await code(writer.settings.get('before'))).toBe('STORAGE_UNAVAILABLE');
      expect(await code(writer.transaction(async (tx) => tx.settings.set('down', 1)))).toBe('STORAGE_UNAVAILABLE');
      server.start();

      expect(await writer.settings.get('before')).toBe(1);
      expect(await writer.settings.get('in-flight')).toBeUndefined();
      expect(await writer.settings.get('down')).toBeUndefined();
      const later = next(events, 15_000);
      const appended = await writer.events.append({ runId: 'run-1', type: 'text_delta', at: 3, data: { n: 3 } });
      const received = await later;
      expect(received.globalSeq).toBe(appended.globalSeq);
      expect(received.seq).toBe(2); // the rolled-back event left no gap
    } finally {
      controller.abort();
      await writer.close();
      await reader.close();
    }
  });

  it('a real fast restart (pg_ctl restart) between calls: the pooled connections it killed are replaced, reads and transactions after it succeed', async () => {
    const s = new PostgresStorage({
      connectionString: server.url,
      schema: 'media_agent_2',
      connectionTimeoutMs: 2_000,
      poolSize: 3,
    });
    try {
      await s.migrate();
      // Three connections in the pool, all idle when the server restarts.
      await Promise.all([s.settings.set('k', 1), s.schemaVersion(), s.settings.get('k')]);
      await server.restart();
      expect(await s.settings.get('k')).toBe(1);
      await server.restart();
      await s.transaction(async (tx) => tx.settings.set('k', 2));
      expect(await s.settings.get('k')).toBe(2);
    } finally {
      await s.close();
    }
  });
});
