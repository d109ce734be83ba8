/** Conformance cases for a run's conversation (`storage.messages`). */
import assert from 'node:assert/strict';
import type { JsonValue } from '../../core/records';
import { UNICODE } from './fixtures';
import type { ConformanceCase } from './helpers';

/** Registers the message case: per-run sequences and the conversation in order. */
export function messagesCases(test: ConformanceCase): void {
  test('messages append with seq from 1 per run and list the conversation in order (any JSON message)', async (s) => {
    const conversation: JsonValue[] = [
      { role: 'user', content: UNICODE },
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'call_1', name: 'media.search', args: { q: UNICODE } }],
      },
      { role: 'tool', callId: 'call_1', state: 'succeeded', output: [1, null, { ok: true }] },
      'a bare string',
    ];
    const stored = [];
    for (const [i, m] of conversation.entries()) {
      stored.push(await s.messages.append('run-a', m, 100 + i));
      if (i === 1) await s.messages.append('run-b', { role: 'user', content: 'other' }, 1);
    }
    assert.deepEqual(
      stored,
      conversation.map((message, i) => ({ runId: 'run-a', seq: i + 1, message, at: 100 + i })),
    );
    assert.deepEqual(await s.messages.list('run-a'), stored);
    assert.deepEqual(await s.messages.list('run-b'), [
      { runId: 'run-b', seq: 1, message: { role: 'user', content: 'other' }, at: 1 },
    ]);
    assert.deepEqual(await s.messages.list('nobody'), []);
  });
}
