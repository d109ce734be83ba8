import { describe, expect, it } from 'vitest';
import { MESSAGE_OVERHEAD_TOKENS, type TokenCounter } from '../../src/models/token-counter';
import type { ModelMessage, ModelTool } from '../../src/models/types';
import { estimateRequestTokens, fixedPartTokens, messageTokens } from '../../src/runtime/context/request-tokens';

/** Counts each message as 10 + its JSON length and each tool as 100; records every call. */
function countingCounter() {
  const calls: string[] = [];
  const counter: TokenCounter = {
    count: (text) => text.length,
    countRequest: (messages, tools = []) => {
      calls.push(`${messages.length}m${tools.length}t`);
      return (
        MESSAGE_OVERHEAD_TOKENS + messages.reduce((n, m) => n + 10 + JSON.stringify(m).length, 0) + tools.length * 100
      );
    },
  };
  return { counter, calls };
}

const tool = (name: string): ModelTool => ({ name, description: name, inputSchema: { type: 'object' } });

describe('request tokens', () => {
  it('a message counts its content plus the overhead, once per message object', () => {
    const { counter, calls } = countingCounter();
    const m: ModelMessage = { role: 'user', content: 'hello' };
    const n = messageTokens(counter, m, 'gpt-4o');
    expect(n).toBe(10 + JSON.stringify(m).length);
    expect(messageTokens(counter, m, 'gpt-4o')).toBe(n);
    expect(calls).toHaveLength(1);
    // another model is counted again; an equal but new object too
    messageTokens(counter, m, 'claude');
    messageTokens(counter, { role: 'user', content: 'hello' }, 'gpt-4o');
    expect(calls).toHaveLength(3);
  });

  it('system messages are memoized by their text, whatever the object', () => {
    const { counter, calls } = countingCounter();
    const a = messageTokens(counter, { role: 'system', content: 'You help.' }, undefined);
    const b = messageTokens(counter, { role: 'system', content: 'You help.' }, undefined);
    expect(a).toBe(b);
    expect(calls).toHaveLength(1);
  });

  it('keeps at most 32 system prompts, then starts afresh', () => {
    const { counter, calls } = countingCounter();
    for (let i = 0; i < 33; i++) messageTokens(counter, { role: 'system', content: `prompt ${i}` }, undefined);
    expect(calls).toHaveLength(33);
    messageTokens(counter, { role: 'system', content: 'prompt 32' }, undefined);
    expect(calls).toHaveLength(33);
    messageTokens(counter, { role: 'system', content: 'prompt 0' }, undefined);
    expect(calls).toHaveLength(34);
  });

  it('a request is the overhead plus its messages and tools, each counted once', () => {
    const { counter, calls } = countingCounter();
    const messages: ModelMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
    ];
    const tools = [tool('a'), tool('b')];
    const total = estimateRequestTokens(counter, messages, tools, undefined);
    expect(total).toBe(
      MESSAGE_OVERHEAD_TOKENS + messages.reduce((n, m) => n + 10 + JSON.stringify(m).length, 0) + 2 * 100,
    );
    const counted = calls.length;
    expect(estimateRequestTokens(counter, messages, tools, undefined)).toBe(total);
    expect(calls).toHaveLength(counted);
  });

  it('the fixed part is counted again only when its objects change', () => {
    const { counter, calls } = countingCounter();
    const system: ModelMessage[] = [{ role: 'system', content: 's' }];
    const tools = [tool('a')];
    const first = fixedPartTokens(counter, system, tools, undefined);
    expect(fixedPartTokens(counter, [...system], [...tools], undefined)).toBe(first);
    expect(calls).toHaveLength(1);
    fixedPartTokens(counter, system, [tool('a')], undefined);
    fixedPartTokens(counter, system, [tool('a')], 'other-model');
    expect(calls).toHaveLength(3);
  });
});
