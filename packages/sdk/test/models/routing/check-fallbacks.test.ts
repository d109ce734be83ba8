// Bad fallback chains are refused by createAgentHost before anything is built, each naming the entry's path.
import { describe, expect, it } from 'vitest';
import { createAgentHost, MediaAgentError, type AgentOptions } from '../../../src/index';
import { AnthropicProvider, OpenAICompatibleProvider } from '../../../src/models';
import { endpointOf } from '../../../src/models/routing/check-fallbacks';

const anthropic = { provider: 'anthropic' as const, apiKey: 'sk-ant-test-0123456789' };
const local = {
  provider: 'openai-compatible' as const,
  baseUrl: 'http://127.0.0.1:11434/v1',
  dialect: 'ollama' as const,
};

function refusal(model: unknown): MediaAgentError {
  try {
    createAgentHost({ model } as AgentOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(MediaAgentError);
    return error as MediaAgentError;
  }
  throw new Error('createAgentHost accepted the chain');
}

describe('model.fallbacks checks at createAgentHost', () => {
  it.each([
    [
      'not an array',
      { provider: anthropic, model: 'claude-sonnet-4-5', fallbacks: local },
      'model.fallbacks',
      /must be an array/,
    ],
    [
      'null',
      { provider: anthropic, model: 'claude-sonnet-4-5', fallbacks: null },
      'model.fallbacks',
      /must be an array/,
    ],
    [
      'no primary provider',
      { model: 'claude-sonnet-4-5', fallbacks: [{ provider: local, model: 'qwen3:8b' }] },
      'model.fallbacks',
      /needs model\.provider/,
    ],
    [
      'an entry that is a bare name',
      { provider: anthropic, model: 'm', fallbacks: ['openai-compatible'] },
      'model.fallbacks[0]',
      /must be an object/,
    ],
    [
      'an entry without provider',
      { provider: anthropic, model: 'm', fallbacks: [{ model: 'qwen3:8b' }] },
      'model.fallbacks[0].provider',
      /is missing/,
    ],
    [
      'an empty model id',
      { provider: anthropic, model: 'm', fallbacks: [{ provider: local, model: '' }] },
      'model.fallbacks[0].model',
      /non-empty model id/,
    ],
    [
      'a blank model id',
      {
        provider: anthropic,
        model: 'm',
        fallbacks: [
          { provider: local, model: 'qwen3:8b' },
          { provider: { ...local, baseUrl: 'http://10.0.0.2:8000/v1' }, model: '  ' },
        ],
      },
      'model.fallbacks[1].model',
      /non-empty model id/,
    ],
    [
      'no model id',
      { provider: anthropic, model: 'm', fallbacks: [{ provider: local }] },
      'model.fallbacks[0].model',
      /non-empty model id/,
    ],
    [
      'an unknown entry option',
      { provider: anthropic, model: 'm', fallbacks: [{ provider: local, model: 'q', temperature: 1 }] },
      'model.fallbacks[0].temperature',
      /not an option of a fallback entry/,
    ],
    [
      'a bad maxTokens',
      { provider: anthropic, model: 'm', fallbacks: [{ provider: local, model: 'q', maxTokens: 0 }] },
      'model.fallbacks[0].maxTokens',
      /positive integer/,
    ],
    [
      'a bad thinking',
      { provider: anthropic, model: 'm', fallbacks: [{ provider: local, model: 'q', thinking: 'max' }] },
      'model.fallbacks[0].thinking',
      /off, low, medium or high/,
    ],
    [
      "an unknown option of the entry's provider",
      { provider: anthropic, model: 'm', fallbacks: [{ provider: { ...local, apiKy: 'x' }, model: 'q' }] },
      'model.fallbacks[0].provider.apiKy',
      /not an option of the openai-compatible provider/,
    ],
    [
      'a negative cool-down',
      { provider: anthropic, model: 'm', fallbackCooldownMs: -1 },
      'model.fallbackCooldownMs',
      /non-negative/,
    ],
    [
      'a cool-down that is a string',
      { provider: anthropic, model: 'm', fallbackCooldownMs: '60s' },
      'model.fallbackCooldownMs',
      /non-negative/,
    ],
  ])('%s → OPTIONS_INVALID naming the entry', (_name, model, option, message) => {
    const error = refusal(model);
    expect(error.code).toBe('OPTIONS_INVALID');
    expect(error.details).toMatchObject({ option });
    expect(error.message).toContain(option);
    expect(error.message).toMatch(message);
  });

  it.each([
    [Number.NaN, 'got NaN'],
    [Number.POSITIVE_INFINITY, 'got Infinity'],
    ['60000', 'got "60000"'],
    [null, 'got null'],
  ] as const)(
    'fallbackCooldownMs %s → OPTIONS_INVALID whose message shows the value as given (%s)',
    (cooldown, shown) => {
      const error = refusal({
        provider: anthropic,
        model: 'claude-sonnet-4-5',
        fallbacks: [{ provider: local, model: 'qwen3:8b' }],
        fallbackCooldownMs: cooldown,
      });
      expect(error).toMatchObject({ code: 'OPTIONS_INVALID', details: { option: 'model.fallbackCooldownMs' } });
      expect(error.message).toContain(shown);
    },
  );

  it('an unknown provider name → PROVIDER_UNKNOWN naming the entry (as for model.provider)', () => {
    const error = refusal({
      provider: anthropic,
      model: 'm',
      fallbacks: [
        { provider: local, model: 'q' },
        { provider: { provider: 'gemini' }, model: 'g' },
      ],
    });
    expect(error.code).toBe('PROVIDER_UNKNOWN');
    // The path of the name itself, as `model.provider.provider` names the primary's.
    expect(error.details).toMatchObject({ option: 'model.fallbacks[1].provider.provider', provider: 'gemini' });
    expect(error.message).toContain('model.fallbacks[1].provider.provider');
  });

  it.each([
    [
      'the primary, as a configuration',
      {
        provider: anthropic,
        model: 'claude-sonnet-4-5',
        fallbacks: [{ provider: { ...anthropic, apiKey: 'sk-ant-other-0123456789' }, model: 'claude-sonnet-4-5' }],
      },
      'model.fallbacks[0]',
      /the primary/,
    ],
    [
      'an earlier entry (a trailing slash is the same URL)',
      {
        provider: anthropic,
        model: 'claude-sonnet-4-5',
        fallbacks: [
          { provider: local, model: 'qwen3:8b' },
          { provider: { ...local, baseUrl: 'http://127.0.0.1:11434/v1/' }, model: 'qwen3:8b' },
        ],
      },
      'model.fallbacks[1]',
      /model\.fallbacks\[0\]/,
    ],
    [
      'the primary, as an instance',
      {
        provider: new OpenAICompatibleProvider({ baseUrl: 'http://127.0.0.1:8080/v1' }),
        model: 'llama',
        fallbacks: [
          {
            provider: new OpenAICompatibleProvider({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey: 'other' }),
            model: 'llama',
          },
        ],
      },
      'model.fallbacks[0]',
      /the primary/,
    ],
  ])(
    'a duplicate of %s → OPTIONS_INVALID: a fallback to the same failing endpoint',
    (_name, model, option, earlier) => {
      const error = refusal(model);
      expect(error.code).toBe('OPTIONS_INVALID');
      expect(error.details).toMatchObject({ option });
      expect(error.message).toMatch(/same failing endpoint/);
      expect(error.message).toMatch(earlier);
    },
  );

  it.each([
    [
      'Ollama: the dialect default base URL as primary, the same URL written out as the fallback',
      {
        provider: { provider: 'openai-compatible', dialect: 'ollama' },
        model: 'qwen3:8b',
        fallbacks: [{ provider: local, model: 'qwen3:8b' }],
      },
    ],
    [
      'with and without the optional /v1 suffix',
      {
        provider: { ...local, baseUrl: 'http://127.0.0.1:11434' },
        model: 'qwen3:8b',
        fallbacks: [{ provider: local, model: 'qwen3:8b' }],
      },
    ],
    [
      'the OpenAI default base URL vs https://api.openai.com/v1 written out',
      {
        provider: { provider: 'openai-compatible', apiKey: 'sk-a' },
        model: 'gpt-4.1',
        fallbacks: [
          {
            provider: { provider: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-b' },
            model: 'gpt-4.1',
          },
        ],
      },
    ],
    [
      'Anthropic default vs https://API.anthropic.com:443/v1/ written out',
      {
        provider: anthropic,
        model: 'claude-sonnet-4-5',
        fallbacks: [
          { provider: { ...anthropic, baseUrl: 'https://API.anthropic.com:443/v1/' }, model: 'claude-sonnet-4-5' },
        ],
      },
    ],
    [
      'an instance on the default URL vs a configuration naming it',
      {
        provider: new OpenAICompatibleProvider({ dialect: 'vllm' }),
        model: 'llama',
        fallbacks: [
          {
            provider: { provider: 'openai-compatible', dialect: 'vllm', baseUrl: 'http://127.0.0.1:8000' },
            model: 'llama',
          },
        ],
      },
    ],
  ])(
    'hermes-agent#54251 (an omitted base URL is the provider default): %s is a duplicate → OPTIONS_INVALID',
    (_name, model) => {
      const error = refusal(model);
      expect(error.code).toBe('OPTIONS_INVALID');
      expect(error.details).toMatchObject({ option: 'model.fallbacks[0]' });
      expect(error.message).toMatch(/the primary/);
      expect(error.message).toMatch(/same failing endpoint/);
    },
  );

  it('hermes-agent#54251: the same provider and model on two different explicit URLs is a valid chain', () => {
    const host = createAgentHost({
      model: {
        provider: { ...local, baseUrl: 'http://127.0.0.1:11434' },
        model: 'qwen3:8b',
        fallbacks: [
          { provider: { ...local, baseUrl: 'http://10.0.0.2:11434/v1' }, model: 'qwen3:8b' },
          { provider: { ...local, baseUrl: 'http://127.0.0.1:11435' }, model: 'qwen3:8b' },
          { provider: { provider: 'openai-compatible', dialect: 'ollama' }, model: 'llama3.2' },
        ],
      },
    });
    expect(typeof host.startRun).toBe('function');
  });

  it('the same server with another model, or another server with the same model, is a valid chain', () => {
    const host = createAgentHost({
      model: {
        provider: new AnthropicProvider({ apiKey: 'sk-ant-test-0123456789' }),
        model: 'claude-sonnet-4-5',
        fallbacks: [
          { provider: anthropic, model: 'claude-haiku-4-5' },
          { provider: local, model: 'qwen3:8b', thinking: 'off', maxTokens: 2048 },
          { provider: { ...local, baseUrl: 'http://10.0.0.2:11434/v1' }, model: 'qwen3:8b' },
        ],
        fallbackCooldownMs: 0,
      },
    });
    expect(typeof host.startRun).toBe('function');
    expect(endpointOf(anthropic, 'm')).toBe(endpointOf({ ...anthropic, apiKey: 'another' }, 'm'));
    expect(endpointOf(local, 'm')).not.toBe(endpointOf({ ...local, dialect: 'vllm' }, 'm'));
  });
});
