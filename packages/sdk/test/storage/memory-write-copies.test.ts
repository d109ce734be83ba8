// The memory store copies a run event's fields and a run patch's fields in one pass each: the stored and
// returned records keep the key order they always had, skip what they always skipped, and stay independent
// of the values given and of each other.
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/records';
import { MemoryStorage } from '../../src/storage';
import { runRecord } from './run-record';

describe('memory store write copies', () => {
  it('an event keeps its fields in order, then seq, globalSeq and (only when set) messageCount', async () => {
    const s = new MemoryStorage();
    const data = { nested: { list: [1, { x: 'y' }] } } as unknown as JsonValue;
    const plain = await s.events.append({ runId: 'r1', type: 'warning', data, at: 5 } as never);
    const counted = await s.events.append({
      runId: 'r1',
      type: 'text_delta',
      data: {},
      at: 6,
      messageCount: 3,
    } as never);
    const nulled = await s.events.append({
      runId: 'r1',
      type: 'text_delta',
      data: {},
      at: 7,
      messageCount: null,
    } as never);
    expect(Object.keys(plain)).toEqual(['runId', 'type', 'data', 'at', 'seq', 'globalSeq']);
    expect(Object.keys(counted)).toEqual(['runId', 'type', 'data', 'at', 'seq', 'globalSeq', 'messageCount']);
    expect(Object.keys(nulled)).toEqual(['runId', 'type', 'data', 'at', 'seq', 'globalSeq']);
    expect([plain.seq, counted.seq, nulled.seq]).toEqual([1, 2, 3]);
    // Neither the value given nor the record returned reaches what is stored.
    (data as { nested: { list: unknown[] } }).nested.list.push('given');
    ((plain.data as { nested: { list: unknown[] } }).nested.list[1] as { x: string }).x = 'returned';
    const [stored] = await s.events.listByRun('r1');
    expect(stored!.data).toEqual({ nested: { list: [1, { x: 'y' }] } });
  });

  it('a run patch sets its defined fields in place, appends new ones, never forkedFrom, and keeps the id', async () => {
    const s = new MemoryStorage();
    await s.runs.insert(runRecord('r1', { goal: 'g1' }));
    const keys = Object.keys((await s.runs.get('r1'))!);
    const runtimeState = { guard: { history: [{ key: 'k' }] } } as unknown as JsonValue;
    const out = await s.runs.patch('r1', {
      goal: 'g2',
      finalText: undefined,
      runtimeState,
      forkedFrom: { runId: 'other' },
      id: 'not-r1',
    } as never);
    expect(Object.keys(out!)).toEqual(keys);
    expect(out!.id).toBe('r1');
    expect(out!.goal).toBe('g2');
    expect(out!.forkedFrom).toBeUndefined();
    expect(out!.runtimeState).toEqual(runtimeState);
    ((runtimeState as { guard: { history: unknown[] } }).guard.history as unknown[]).push('given');
    ((out!.runtimeState as { guard: { history: unknown[] } }).guard.history as unknown[]).push('returned');
    expect((await s.runs.get('r1'))!.runtimeState).toEqual({ guard: { history: [{ key: 'k' }] } });
  });
});
