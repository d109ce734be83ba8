// The count memo for system messages: a new system message object with a prompt counted before costs
// a lookup, and gives the same count as counting it afresh. Public reports of the kind: a system prompt and
// tool schemas re-encoded on every agent turn (vortex3964/GoWork#24), history re-tokenized every turn, O(n²)
// in the turn count (kyegomez/swarms#1735).
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { TiktokenCounter } from '../../src/models/token-counter';
import type { ModelMessage } from '../../src/models/types';
import { estimateRequestTokens } from '../../src/runtime/context/compaction';

const counter = new TiktokenCounter();
afterAll(() => counter.dispose());

const system = (content: string): ModelMessage => ({ role: 'system', content });

describe('system prompt count memo', () => {
  it('a new system message object with the same prompt is not counted again', () => {
    const own = new TiktokenCounter();
    const spy = vi.spyOn(own, 'countRequest');
    const prompt = 'You are the media agent. Answer briefly.';
    const first = estimateRequestTokens(own, [system(prompt)], [], 'gpt-4o');
    const calls = spy.mock.calls.length;
    expect(estimateRequestTokens(own, [system(prompt)], [], 'gpt-4o')).toBe(first);
    expect(spy.mock.calls.length).toBe(calls);
    // Another prompt, or another model (another encoding), is counted.
    estimateRequestTokens(own, [system(`${prompt} Also: be kind.`)], [], 'gpt-4o');
    expect(spy.mock.calls.length).toBe(calls + 1);
    estimateRequestTokens(own, [system(prompt)], [], 'gpt-4');
    expect(spy.mock.calls.length).toBe(calls + 2);
    own.dispose();
  });

  it('gives the count of counting afresh, for any prompts, however many', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 80, unit: 'grapheme' }), { minLength: 1, maxLength: 50 }),
        (prompts) => {
          for (const p of prompts) {
            const messages = [system(p), { role: 'user', content: [{ type: 'text', text: p }] } as ModelMessage];
            expect(estimateRequestTokens(counter, messages, [], 'gpt-4o')).toBe(
              counter.countRequest(messages, [], 'gpt-4o'),
            );
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
