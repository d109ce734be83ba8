import { describe, expect, it } from 'vitest';
import { ContextTurnTooLargeError } from '../../src/runtime/context/turn-too-large';

describe('ContextTurnTooLargeError', () => {
  it('names the turn and every figure', () => {
    const details = { turnTokens: 90, fixedTokens: 10, pinnedTokens: 5, windowTokens: 100, from: 3, to: 6 };
    const error = new ContextTurnTooLargeError(details);
    expect(error.code).toBe('CONTEXT_TURN_TOO_LARGE');
    expect(error.details).toEqual(details);
    expect(error.message).toBe(
      'the latest turn (messages 3–5, 90 tokens) with the fixed prompt (10 tokens) and pinned facts (5 tokens) exceeds the model window of 100 tokens',
    );
  });
});
