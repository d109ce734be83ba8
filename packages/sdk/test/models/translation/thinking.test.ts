// Which thinking parts and tool-call signatures go to which provider (pure rules).
import { describe, expect, it } from 'vitest';
import { OpenAICompatibleProvider } from '../../../src/models/openai-compatible';
import { OPENAI_DIALECTS, type OpenAIDialect, type OpenAIDialectName } from '../../../src/models/openai-dialects';
import { withoutForeignParts } from '../../../src/models/translation/foreign-parts';
import type { TranslationTarget } from '../../../src/models/translation/target';
import { thinkingGoesBack } from '../../../src/models/translation/thinking';
import { toolCallSignatureGoesBack } from '../../../src/models/translation/tool-call-signatures';
import type { ModelMessage, ThinkingPart, ToolCallPart } from '../../../src/models/types';

const claude: TranslationTarget = { provider: 'anthropic', model: 'claude-sonnet-4-5', family: 'anthropic' };
const deepseek: TranslationTarget = {
  provider: 'openai-compatible:deepseek',
  model: 'deepseek-reasoner',
  family: 'openai-compatible',
};
const signed = (model: string | undefined): ThinkingPart => ({
  type: 'thinking',
  thinking: 'think',
  signature: 'EqSig',
  ...(model ? { origin: { provider: 'anthropic', model } } : {}),
});
const plain = (provider: string | undefined, model = 'm'): ThinkingPart => ({
  type: 'thinking',
  thinking: 'reason',
  ...(provider ? { origin: { provider, model } } : {}),
});

describe('thinkingGoesBack', () => {
  it.each([
    ['signed by the same Claude model → Claude', signed('claude-sonnet-4-5'), claude, true],
    ['signed by another Claude model → Claude', signed('claude-opus-4-1'), claude, false],
    [
      'redacted by the same model → Claude',
      { ...signed('claude-sonnet-4-5'), signature: undefined, redacted: 'enc' } as ThinkingPart,
      claude,
      true,
    ],
    ['signed, no origin (stored before origins) → Claude', signed(undefined), claude, true],
    ['unsigned, no origin → Claude', plain(undefined), claude, false],
    ['DeepSeek reasoning → Claude', plain('openai-compatible:deepseek'), claude, false],
    ['Claude thinking → DeepSeek', signed('claude-sonnet-4-5'), deepseek, false],
    ['signed, no origin → DeepSeek (only Anthropic signs)', signed(undefined), deepseek, false],
    [
      'DeepSeek reasoning of another model → DeepSeek',
      plain('openai-compatible:deepseek', 'deepseek-chat'),
      deepseek,
      true,
    ],
    ['Kimi reasoning → DeepSeek', plain('openai-compatible:kimi'), deepseek, false],
    ['unsigned, no origin → DeepSeek', plain(undefined), deepseek, true],
  ] as const)('%s: %s', (_name, part, target, expected) => {
    expect(thinkingGoesBack(part, target)).toBe(expected);
  });
});

describe('toolCallSignatureGoesBack and withoutForeignParts', () => {
  const gemini: TranslationTarget = {
    provider: 'openai-compatible:gemini',
    model: 'gemini-3-pro',
    family: 'openai-compatible',
  };
  const relay: TranslationTarget = {
    provider: 'openai-compatible:vertex-relay',
    model: 'gemini-3-pro',
    family: 'openai-compatible',
  };
  const call: ToolCallPart = {
    type: 'tool_call',
    id: 'call_1_0',
    name: 'catalog.lookup',
    input: {},
    signature: 'SIG==',
    origin: { provider: 'openai-compatible:gemini', model: 'gemini-3-pro' },
  };

  it('a Gemini thought signature goes back only to the dialect that produced it; without origin, as before', () => {
    expect(toolCallSignatureGoesBack(call, gemini)).toBe(true);
    expect(toolCallSignatureGoesBack(call, relay)).toBe(false);
    expect(toolCallSignatureGoesBack({ ...call, origin: undefined }, relay)).toBe(true);
    expect(toolCallSignatureGoesBack({ ...call, signature: undefined }, gemini)).toBe(false);
  });

  it('drops foreign thinking and signatures, keeps calls, text and other messages, and does not change its input', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [signed('claude-sonnet-4-5'), { type: 'text', text: 'a' }, call] },
      { role: 'tool', toolCallId: 'call_1_0', name: 'catalog.lookup', status: 'ok', content: '{}' },
      { role: 'assistant', content: [plain('openai-compatible:vertex-relay'), { type: 'text', text: 'b' }] },
    ];
    const before = JSON.stringify(messages);
    const out = withoutForeignParts(messages, relay);
    expect(JSON.stringify(messages)).toBe(before);
    expect(out[0]).toBe(messages[0]);
    expect(out[2]).toBe(messages[2]);
    expect(out[3]).toBe(messages[3]);
    expect(out[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'a' },
        { type: 'tool_call', id: 'call_1_0', name: 'catalog.lookup', input: {} },
      ],
    });
    expect(withoutForeignParts(messages, claude)[1]).toEqual({
      role: 'assistant',
      content: [
        signed('claude-sonnet-4-5'),
        { type: 'text', text: 'a' },
        { type: 'tool_call', id: 'call_1_0', name: 'catalog.lookup', input: {} },
      ],
    });
  });
});

describe('the OpenAI-compatible request builder applies the rules per dialect', () => {
  const details = [{ type: 'reasoning.encrypted', data: 'ENC==', format: 'google-gemini-v1', index: 0 }];
  const conversation = (provider: string): ModelMessage[] => [
    { role: 'user', content: 'find Dune' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'routed reasoning', details, origin: { provider, model: 'google/gemini-3-pro' } },
        {
          type: 'tool_call',
          id: 'call_1_0',
          name: 'catalog.lookup',
          input: {},
          signature: 'SIG==',
          origin: { provider, model: 'google/gemini-3-pro' },
        },
      ],
    },
    { role: 'tool', toolCallId: 'call_1_0', name: 'catalog.lookup', status: 'ok', content: '{}' },
  ];
  const body = (dialect: OpenAIDialectName | OpenAIDialect, provider: string) =>
    JSON.stringify(
      new OpenAICompatibleProvider({ dialect }).buildBody({
        model: 'm',
        messages: conversation(provider),
        thinking: 'low',
      }),
    );

  it('OpenRouter reasoning_details go back to OpenRouter only; DeepSeek gets the empty reasoning_content it requires', () => {
    expect(body('openrouter', 'openai-compatible:openrouter')).toContain('ENC==');
    const deepseek = body('deepseek', 'openai-compatible:openrouter');
    expect(deepseek).not.toContain('ENC==');
    expect(deepseek).not.toContain('routed reasoning');
    expect(deepseek).toContain('"reasoning_content":""');
  });

  it('a Gemini thought signature goes back to the gemini dialect only, not to another dialect that sends signatures', () => {
    expect(body('gemini', 'openai-compatible:gemini')).toContain('"thought_signature":"SIG=="');
    const relay: OpenAIDialect = { ...OPENAI_DIALECTS.gemini, name: 'vertex-relay' };
    expect(body(relay, 'openai-compatible:gemini')).not.toContain('SIG==');
    expect(body(relay, 'openai-compatible:vertex-relay')).toContain('"thought_signature":"SIG=="');
  });
});
