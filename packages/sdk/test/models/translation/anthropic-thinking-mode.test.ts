// Whether an Anthropic request may enable thinking (pure rule).
import { describe, expect, it } from 'vitest';
import { anthropicThinkingAllowed } from '../../../src/models/translation/anthropic-thinking-mode';

const user = (...content: Array<Record<string, unknown>>) => ({ role: 'user' as const, content });
const assistant = (...content: Array<Record<string, unknown>>) => ({ role: 'assistant' as const, content });
const text = { type: 'text', text: 'x' };
const use = { type: 'tool_use', id: 'c', name: 't', input: {} };
const result = { type: 'tool_result', tool_use_id: 'c', content: '{}' };

describe('anthropicThinkingAllowed', () => {
  it.each([
    ['a plain user turn', [user(text)], true],
    [
      'a tool loop whose turn starts with thinking',
      [user(text), assistant({ type: 'thinking', thinking: 't', signature: 's' }, use), user(result)],
      true,
    ],
    [
      'a tool loop whose turn starts with redacted thinking',
      [user(text), assistant({ type: 'redacted_thinking', data: 'd' }, use), user(result)],
      true,
    ],
    ['a tool loop another family began (no thinking block)', [user(text), assistant(use), user(result)], false],
    ['a tool loop whose turn starts with text', [user(text), assistant(text, use), user(result)], false],
    [
      'a new user turn after a foreign tool loop',
      [user(text), assistant(use), user(result), assistant(text), user(text)],
      true,
    ],
  ] as const)('%s → %s', (_name, wire, expected) => {
    expect(anthropicThinkingAllowed(wire as never)).toBe(expected);
  });
});
