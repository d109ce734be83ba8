import { describe, expect, it } from 'vitest';
import { continuationPromptFor } from '../../src/runtime/guardrails/continuation';
import { continuationVerdict } from '../../src/runtime/guardrails/continuation-verdict';

const announces = 'I will check the download queue now.';

describe('continuation verdict', () => {
  it('a normal answer, or a reply that called tools, needs nothing', () => {
    expect(continuationVerdict('The film is in your library.', false, 0, 2)).toEqual({ action: 'none' });
    expect(continuationVerdict(announces, true, 0, 2)).toEqual({ action: 'none' });
  });

  it('prompts while prompts are left, counting the one given', () => {
    expect(continuationVerdict(announces, false, 0, 2)).toEqual({
      action: 'continue',
      prompt: continuationPromptFor(announces),
      count: 1,
    });
    expect(continuationVerdict(announces, false, 1, 2)).toMatchObject({ action: 'continue', count: 2 });
  });

  it('is exhausted once the prompts are spent (max 0: at once)', () => {
    expect(continuationVerdict(announces, false, 2, 2)).toEqual({ action: 'exhausted', count: 2 });
    expect(continuationVerdict(announces, false, 0, 0)).toEqual({ action: 'exhausted', count: 0 });
  });
});
