// The memory store's run writes copy only what changes (a patch, a lease): the records it hands out
// and the values it was given stay independent of what it stores, and a rolled-back write leaves the
// record as it was.
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/records';
import { MemoryStorage } from '../../src/storage';
import { runRecord } from './run-record';

describe('memory store: run writes share unchanged fields safely', () => {
  it('changing a patch, or a returned record, after the write changes nothing stored', async () => {
    const s = new MemoryStorage();
    await s.runs.insert(runRecord('r1', { runtimeState: { a: { n: 1 } } as JsonValue }));
    const state = { a: { n: 2 }, list: [1, 2] } as { a: { n: number }; list: number[] };
    const returned = await s.runs.patch('r1', { runtimeState: state as unknown as JsonValue, goal: 'g2' });
    state.a.n = 99;
    state.list.push(3);
    (returned!.runtimeState as { a: { n: number } }).a.n = 77;
    returned!.usage.toolCalls = 5;
    const read = await s.runs.get('r1');
    expect(read!.runtimeState).toEqual({ a: { n: 2 }, list: [1, 2] });
    expect(read!.usage.toolCalls).toBe(0);
    expect(read!.goal).toBe('g2');
  });

  it('a record read before a patch or lease change keeps its values; later reads see the change', async () => {
    const s = new MemoryStorage();
    await s.runs.insert(
      runRecord('r1', { usage: { toolCalls: 1, inputTokens: 0, outputTokens: 0, costUsd: 0, modelCalls: 0 } }),
    );
    const before = await s.runs.get('r1');
    const leased = await s.runs.acquireLease('w1', 10, 1000);
    expect(leased?.leaseOwner).toBe('w1');
    leased!.usage.toolCalls = 42;
    expect(await s.runs.renewLease('r1', 'w1', 20, 1000)).toBe(true);
    await s.runs.patch(
      'r1',
      { usage: { toolCalls: 2, inputTokens: 0, outputTokens: 0, costUsd: 0, modelCalls: 1 } },
      'w1',
    );
    expect(await s.runs.releaseLease('r1', 'w1')).toBe(true);
    expect(before!.usage.toolCalls).toBe(1);
    expect(before!.leaseOwner).toBeNull();
    const after = await s.runs.get('r1');
    expect(after!.usage).toEqual({ toolCalls: 2, inputTokens: 0, outputTokens: 0, costUsd: 0, modelCalls: 1 });
    expect(after!.leaseOwner).toBeNull();
    expect(after!.leaseExpiresAt).toBeNull();
  });

  it('a patch in a transaction that fails is rolled back to the record as it was', async () => {
    const s = new MemoryStorage();
    await s.runs.insert(runRecord('r1', { runtimeState: { k: 'v1' } as JsonValue }));
    const before = await s.runs.get('r1');
    await expect(
      s.transaction(async (tx) => {
        await tx.runs.patch('r1', { runtimeState: { k: 'v2' } as JsonValue, status: 'running' });
        await tx.runs.acquireLease('w1', 10, 1000);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await s.runs.get('r1')).toEqual(before);
  });
});
