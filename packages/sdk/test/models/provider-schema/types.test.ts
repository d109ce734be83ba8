import { describe, expect, it } from 'vitest';
import { REQUIRED_PROVIDER_FAMILIES } from '../../../src/models/provider-schema/types';

describe('REQUIRED_PROVIDER_FAMILIES', () => {
  it('is Anthropic, OpenAI and Gemini (strict mode is opt-in), frozen', () => {
    expect(REQUIRED_PROVIDER_FAMILIES).toEqual(['anthropic', 'openai', 'gemini']);
    expect(Object.isFrozen(REQUIRED_PROVIDER_FAMILIES)).toBe(true);
  });
});
