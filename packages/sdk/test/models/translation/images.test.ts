// Images follow the model that answers: the provider's setting, else the support table, else true.
import { describe, expect, it } from 'vitest';
import { OpenAICompatibleProvider } from '../../../src/models/openai-compatible';
import { AnthropicProvider } from '../../../src/models/anthropic';
import { targetAcceptsImages } from '../../../src/models/translation/images';
import type { ModelRequest } from '../../../src/models/types';
import { toolCallWithImage } from '../helpers';

describe('targetAcceptsImages', () => {
  it.each([
    ['claude-sonnet-4-5', undefined, true],
    ['deepseek-chat', undefined, false],
    ['mistral-large-latest', undefined, false],
    ['a-local-model', undefined, true],
    ['deepseek-chat', true, true],
    ['claude-sonnet-4-5', false, false],
  ] as const)('%s with supportsImages %s → %s', (model, option, expected) => {
    expect(targetAcceptsImages(model, option)).toBe(expected);
  });
});

describe('a tool image admitted for a vision model reaches a text-only fallback as a note', () => {
  const request = (model: string): ModelRequest => ({
    model,
    messages: [
      { role: 'user', content: 'show the poster' },
      ...toolCallWithImage('call_1_0', 'poster', 'image/png', 'iVBORw0KGgo='),
    ],
  });

  it('deepseek-chat gets the note, gpt-4.1 and Claude get the image', () => {
    const deepseek = JSON.stringify(
      new OpenAICompatibleProvider({ dialect: 'deepseek' }).buildBody(request('deepseek-chat')),
    );
    expect(deepseek).not.toContain('image_url');
    expect(deepseek).toContain('image omitted');
    const openai = JSON.stringify(new OpenAICompatibleProvider({ dialect: 'openai' }).buildBody(request('gpt-4.1')));
    expect(openai).toContain('data:image/png;base64,iVBORw0KGgo=');
    const claude = JSON.stringify(
      new AnthropicProvider({ apiKey: 'sk-ant-test-0123456789' }).buildBody(request('claude-sonnet-4-5')),
    );
    expect(claude).toContain('"type":"image"');
  });
});
