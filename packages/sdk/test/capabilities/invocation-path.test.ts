import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineCapability, InvalidInputError } from '../../src/index';
import type { InvocationEvent } from '../../src/capabilities';
import { InputTooLargeError } from '../../src/capabilities/errors';
import { makeHost, makePlan } from '../helpers';
import { STORAGE_KINDS } from '../helpers';

describe.each(STORAGE_KINDS)('the invocation path (DESIGN.md §4) on %s storage', (kind) => {
  it('an unknown capability id is a typed error and runs nothing; the refusal is audited', async () => {
    const { host, storage } = await makeHost({ kind });
    await expect(host.invoke('download.nothing', {}, { actor: 'user:admin' })).rejects.toMatchObject({
      code: 'CAPABILITY_NOT_FOUND',
    });
    expect((await storage.audit.list()).map((r) => [r.action, r.capabilityId, r.outcome])).toEqual([
      ['capability.refused', 'download.nothing', 'refused'],
    ]);
    expect(await storage.ledger.listByState(['running', 'succeeded', 'failed', 'pending', 'unknown'])).toEqual([]);
  });

  it('a malformed actor is rejected before anything runs', async () => {
    const { host, calls } = await makeHost({ kind });
    await expect(host.invoke('inventory.query', { query: 'x' }, { actor: 'root' as never })).rejects.toMatchObject({
      code: 'ACTOR_INVALID',
    });
    expect(calls['inventory.query']).toBeUndefined();
  });

  it('schema-invalid input is a typed error listing every path, and the handler is never called', async () => {
    const { host, calls, storage } = await makeHost({ kind });
    const error = await host
      .invoke('download.plan', { releaseId: 5, bytes: -1 }, { actor: 'user:admin' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.code).toBe('INPUT_INVALID');
    const paths = (error as InvalidInputError).issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['/releaseId', '/bytes']));
    expect(error.message).toMatch(/mediaEntityId/);
    expect(calls['download.plan']).toBeUndefined();
    expect(await storage.ledger.listByState(['running', 'succeeded', 'failed', 'pending', 'unknown'])).toEqual([]);
  });

  it('input that is not JSON is rejected as invalid input', async () => {
    const { host } = await makeHost({ kind });
    const cyclic: Record<string, unknown> = { query: 'x' };
    cyclic.self = cyclic;
    await expect(host.invoke('inventory.query', cyclic, { actor: 'user:admin' })).rejects.toMatchObject({
      code: 'INPUT_INVALID',
    });
    await expect(host.invoke('inventory.query', undefined, { actor: 'user:admin' })).rejects.toMatchObject({
      code: 'INPUT_INVALID',
    });
  });

  it('input over the size limit (default 1 MiB of JSON) is rejected before validation', async () => {
    const { host, calls } = await makeHost({ kind });
    const big = { query: 'x'.repeat(1024 * 1024) };
    const error = await host.invoke('inventory.query', big, { actor: 'user:admin' }).catch((e) => e);
    expect(error).toBeInstanceOf(InputTooLargeError);
    expect(error.details).toMatchObject({ limit: 1024 * 1024 });
    expect(calls['inventory.query']).toBeUndefined();
  });

  it('the input size limit is configurable', async () => {
    const { host } = await makeHost({ kind, maxInputBytes: 64 });
    await expect(
      host.invoke('inventory.query', { query: 'y'.repeat(100) }, { actor: 'user:admin' }),
    ).rejects.toMatchObject({ code: 'INPUT_TOO_LARGE', details: { limit: 64 } });
    await expect(host.invoke('inventory.query', { query: 'ok' }, { actor: 'user:admin' })).resolves.toMatchObject({
      status: 'succeeded',
    });
  });

  it('a read runs without authorization records and without a ledger entry', async () => {
    const { host, storage } = await makeHost({ kind });
    const result = await host.invoke('inventory.query', { query: '沙丘2' }, { actor: 'agent:run-1', runId: 'run-1' });
    expect(result).toMatchObject({ status: 'succeeded', output: { items: [{ title: '沙丘2' }] } });
    expect(result.idempotencyKey).toBeUndefined();
    expect(await storage.ledger.listByState(['running', 'succeeded', 'failed', 'pending', 'unknown'])).toEqual([]);
  });

  it('a typed call through the capability object returns the typed output', async () => {
    const { host, capabilities } = await makeHost({ kind });
    const result = await host.invoke(capabilities.lookup, { query: 'Alien' }, { actor: 'user:admin' });
    const title: string | undefined = result.output?.items[0]?.title;
    expect(title).toBe('Alien');
  });

  it('a handler that throws gives a failed result with the error code, not an exception', async () => {
    const { host, faults } = await makeHost({ kind });
    const plan = await makePlan(host);
    faults.submitFail = true;
    const result = await host.invoke('download.submit', { planId: plan.id }, { actor: 'user:admin' });
    expect(result).toMatchObject({
      status: 'failed',
      error: { code: 'HANDLER_FAILED', message: 'downloader rejected the torrent' },
    });
  });

  it('output that does not match the schema is failed for reads and unknown for side effects', async () => {
    const { host, storage } = await makeHost({ kind });
    const badOut = {
      version: 1,
      title: 'Bad',
      description: 'returns garbage',
      input: Type.Object({}),
      output: Type.Object({ n: Type.Number() }),
      handler: async () => ({ n: 'x' }) as never,
    };
    host.capabilities.register(defineCapability({ ...badOut, id: 'bad.read', kind: 'read', replay: 'safe' }));
    host.capabilities.register(defineCapability({ ...badOut, id: 'bad.write', kind: 'execute', replay: 'never' }));
    expect(await host.invoke('bad.read', {}, { actor: 'user:admin' })).toMatchObject({
      status: 'failed',
      error: { code: 'OUTPUT_INVALID' },
    });
    const write = await host.invoke('bad.write', {}, { actor: 'user:admin', runId: 'r' });
    expect(write).toMatchObject({ status: 'unknown', error: { code: 'OUTPUT_INVALID' } });
    expect((await storage.ledger.get(write.idempotencyKey!))?.state).toBe('unknown');
  });

  it('a handler may report an accepted async job as pending, which is not done', async () => {
    const { host, storage } = await makeHost({ kind });
    host.capabilities.register(
      defineCapability({
        id: 'transfer.start',
        version: 1,
        title: 'Start a transfer',
        description: 'async',
        kind: 'execute',
        replay: 'reconcile',
        input: Type.Object({ path: Type.String() }),
        output: Type.Object({ receipt: Type.String() }),
        handler: async (input, ctx) => ctx.pending({ receipt: `accepted:${input.path}` }),
      }),
    );
    const result = await host.invoke('transfer.start', { path: '/dl/a' }, { actor: 'user:admin', runId: 'r1' });
    expect(result).toMatchObject({ status: 'pending', output: { receipt: 'accepted:/dl/a' } });
    expect((await storage.ledger.get(result.idempotencyKey!))?.state).toBe('pending');
  });

  it('an abort during a side effect records unknown, never failed', async () => {
    const { host, storage } = await makeHost({ kind });
    const controller = new AbortController();
    host.capabilities.register(
      defineCapability({
        id: 'slow.write',
        version: 1,
        title: 'Slow write',
        description: 'waits for abort',
        kind: 'execute',
        replay: 'never',
        input: Type.Object({}),
        output: Type.Object({}),
        handler: (_input, ctx) =>
          new Promise((_, reject) => {
            ctx.signal.addEventListener('abort', () => reject(new Error('socket closed')));
            // The abort comes while the side effect is in flight, however slow the way to it was.
            controller.abort();
          }),
      }),
    );
    const pending = host.invoke('slow.write', {}, { actor: 'user:admin', runId: 'r1', signal: controller.signal });
    const result = await pending;
    expect(result).toMatchObject({ status: 'unknown', error: { code: 'OUTCOME_UNKNOWN' } });
    expect((await storage.ledger.get(result.idempotencyKey!))?.state).toBe('unknown');
  });

  it('emits an invocation event after every settled invocation', async () => {
    const { host } = await makeHost({ kind });
    const seen: InvocationEvent[] = [];
    host.capabilities.events.on('invocation', (e) => seen.push(e));
    await host.invoke('inventory.query', { query: 'a' }, { actor: 'agent:r1', runId: 'r1', callId: 'c1' });
    await host.invoke('organize.execute', { path: '/x' }, { actor: 'agent:r1', runId: 'r1', callId: 'c2' });
    expect(seen.map((e) => [e.capabilityId, e.runId, e.callId, e.result.status])).toEqual([
      ['inventory.query', 'r1', 'c1', 'succeeded'],
      ['organize.execute', 'r1', 'c2', 'denied'],
    ]);
  });
});
