import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../../src/models/types';
import { turnBoundaries } from '../../src/runtime/context/turn-boundaries';
import { longConversation, toolTurn } from './context-fixtures';

const user = (content: string): ModelMessage => ({ role: 'user', content });

describe('turn boundaries', () => {
  it('before each user message and each assistant message whose earlier calls are all answered', () => {
    const messages = [user('goal'), ...toolTurn(0, 2), ...toolTurn(1, 1), user('more')];
    // 0 user, 1 assistant, 2-3 results, 4 assistant, 5 result, 6 user
    expect(turnBoundaries(messages)).toEqual([1, 4, 6]);
  });

  it('never cuts while a call is unanswered, even across a user message', () => {
    const [assistant, result] = toolTurn(0, 1);
    expect(turnBoundaries([user('goal'), assistant!, user('wait'), result!, user('next')])).toEqual([1, 4]);
  });

  it('an unanswered call blocks nothing after it', () => {
    const [assistant] = toolTurn(0, 1);
    expect(turnBoundaries([user('goal'), assistant!, user('next')])).toEqual([1, 2]);
  });

  it('no cut ever separates a tool call from its result', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 25 }), (turns) => {
        const messages = longConversation(turns, 20);
        for (const b of turnBoundaries(messages)) {
          const before = new Set(
            messages
              .slice(0, b)
              .flatMap((m) =>
                m.role === 'assistant' ? m.content.flatMap((p) => (p.type === 'tool_call' ? [p.id] : [])) : [],
              ),
          );
          for (const m of messages.slice(b)) if (m.role === 'tool') expect(before.has(m.toolCallId)).toBe(false);
          expect(messages[b]?.role).not.toBe('tool');
        }
      }),
    );
  });
});
