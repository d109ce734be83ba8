import { describe, expect, it } from 'vitest';
import type { ModelMessage, ToolResultMessage } from '../../src/models/types';
import { dedupeRepeatedResults } from '../../src/runtime/context/repeated-tool-results';

const result = (id: string, content: ToolResultMessage['content']): ToolResultMessage => ({
  role: 'tool',
  toolCallId: id,
  name: 'media.search',
  status: 'ok',
  content,
});
const long = JSON.stringify({ status: 'succeeded', output: 'x'.repeat(600) });

describe('dedupeRepeatedResults', () => {
  it('replaces a repeat of a long result by a reference to the first, keeping the message’s identity', () => {
    const messages: ModelMessage[] = [result('a', long), { role: 'user', content: long }, result('b', long)];
    const out = dedupeRepeatedResults(messages);
    expect(out).toHaveLength(3);
    expect(out[0]).toBe(messages[0]);
    expect(out[1]).toBe(messages[1]);
    expect(out[2]).toMatchObject({ role: 'tool', toolCallId: 'b', name: 'media.search', status: 'ok' });
    expect(JSON.parse((out[2] as ToolResultMessage).content as string)).toEqual({
      status: 'succeeded',
      note: 'identical to the earlier result of media.search (call a) above; the call did run again, its result is not repeated here',
      sameAsCallId: 'a',
    });
  });

  it('leaves short results, different results and results with images alone', () => {
    const image = [
      { type: 'text' as const, text: long },
      { type: 'image' as const, mediaType: 'image/png', data: 'x' },
    ];
    const messages: ModelMessage[] = [
      result('a', 'short'),
      result('b', 'short'),
      result('c', long),
      result('d', `${long} `),
      result('e', image),
      result('f', image),
    ];
    expect(dedupeRepeatedResults(messages)).toEqual(messages);
    expect(dedupeRepeatedResults([result('a', 'short'), result('b', 'short')], 5)[1]).not.toEqual(result('b', 'short'));
  });

  it('compares text parts by their text', () => {
    const out = dedupeRepeatedResults([result('a', long), result('b', [{ type: 'text', text: long }])]);
    expect(JSON.parse((out[1] as ToolResultMessage).content as string).sameAsCallId).toBe('a');
  });
});
