// createAgentHost, createModelProvider and the provider constructors refuse options of the wrong shape with a
// typed error naming the option's path and the accepted shapes, before anything is built or sent.
import { describe, expect, it } from 'vitest';
import { isMediaAgentError } from '../../src/core/errors';
import { createAgentHost } from '../../src/index';
import { AnthropicProvider, createModelProvider, OpenAICompatibleProvider } from '../../src/models';
import { watchSockets } from './no-io';

function thrown(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Asserts `make` throws `code` naming `option` (message and details) and matching `says`, with no socket opened. */
function expectRefused(make: () => unknown, code: string, option: string, says: RegExp): void {
  const sockets = watchSockets();
  try {
    const error = thrown(make);
    expect(isMediaAgentError(error), String(error)).toBe(true);
    const e = error as { code: string; message: string; details: { option?: string } };
    expect(e.code, e.message).toBe(code);
    expect(e.details.option).toBe(option);
    expect(e.message).toContain(option);
    expect(e.message).toMatch(says);
    expect(sockets.targets).toEqual([]);
  } finally {
    sockets.restore();
  }
}

const PROVIDER_NAMES = /'anthropic', 'openai-compatible', 'scripted' \(alias 'fake'\)/;

describe('createAgentHost: model.provider', () => {
  const cases: Array<[label: string, provider: unknown, code: string, option: string, says: RegExp]> = [
    // the provider's name where its configuration goes: it used to say `unknown model provider "undefined"`
    [
      'the name alone',
      'anthropic',
      'OPTIONS_INVALID',
      'model.provider',
      /not the name alone: write \{ provider: 'anthropic'/,
    ],
    ['a number', 42, 'OPTIONS_INVALID', 'model.provider', /must be a ModelProvider \(an object with stream\(\)\)/],
    ['an object without provider', { apiKey: 'k' }, 'OPTIONS_INVALID', 'model.provider.provider', /is missing/],
    [
      'a misspelt provider name',
      { provider: 'antropic', apiKey: 'k' },
      'PROVIDER_UNKNOWN',
      'model.provider.provider',
      /unknown model provider "antropic"/,
    ],
    // openclaw/openclaw#946: a missing key reached the request code and failed with
    // "Cannot read properties of undefined (reading 'trim')" before any request
    [
      'anthropic without apiKey',
      { provider: 'anthropic' },
      'OPTIONS_INVALID',
      'model.provider.apiKey',
      /is required for the anthropic provider/,
    ],
    [
      'anthropic with an empty apiKey',
      { provider: 'anthropic', apiKey: '' },
      'OPTIONS_INVALID',
      'model.provider.apiKey',
      /non-empty string/,
    ],
    [
      'a baseUrl without a scheme',
      { provider: 'openai-compatible', baseUrl: 'localhost:11434/v1' },
      'OPTIONS_INVALID',
      'model.provider.baseUrl',
      /http\(s\) URL/,
    ],
    [
      'an unknown dialect',
      { provider: 'openai-compatible', dialect: 'gpt' },
      'OPTIONS_INVALID',
      'model.provider.dialect',
      /one of 'openai', /,
    ],
    [
      'a timeout given as text',
      { provider: 'openai-compatible', connectTimeoutMs: '5000' },
      'OPTIONS_INVALID',
      'model.provider.connectTimeoutMs',
      /positive number of milliseconds; got "5000"/,
    ],
    [
      'headers that are not strings',
      { provider: 'anthropic', apiKey: 'k', headers: { 'x-n': 1 } },
      'OPTIONS_INVALID',
      'model.provider.headers',
      /string values/,
    ],
    [
      'an option of another provider',
      { provider: 'scripted', apiKey: 'k' },
      'OPTIONS_INVALID',
      'model.provider.apiKey',
      /not an option of the scripted provider; known: scripts/,
    ],
  ];

  it.each(cases)('%s', (_label, provider, code, option, says) => {
    expectRefused(() => createAgentHost({ model: { provider: provider as never } }), code, option, says);
  });

  it('lists the provider names when the provider is not known, or given by name', () => {
    for (const provider of ['anthropic', { provider: 'gemini' }]) {
      const error = thrown(() => createAgentHost({ model: { provider: provider as never } }));
      expect((error as Error).message).toMatch(PROVIDER_NAMES);
    }
  });

  it('accepts instances and each kind of configuration (so the checks above can fail)', async () => {
    for (const provider of [
      { provider: 'anthropic', apiKey: 'k', baseUrl: 'http://127.0.0.1:9/v1', retry: { maxAttempts: 1 } },
      { provider: 'openai-compatible', dialect: 'deepseek', baseUrl: 'https://api.deepseek.com' },
      { provider: 'fake', chunkSize: 4 },
      createModelProvider({ provider: 'scripted' }),
    ] as const) {
      const host = createAgentHost({ model: { provider } });
      await host.stop();
    }
  });
});

describe('createAgentHost: option types', () => {
  const cases: Array<[label: string, options: Record<string, unknown>, option: string, says: RegExp]> = [
    ['model.model a number', { model: { model: 4 } }, 'model.model', /must be a model id/],
    [
      'model.maxTokens as text',
      { model: { maxTokens: '1024' } },
      'model.maxTokens',
      /positive integer; got "1024" \(a string\)/,
    ],
    [
      'runs.concurrency as text',
      { runs: { concurrency: '2' } },
      'runs.concurrency',
      /must be a number; got "2" \(a string\)/,
    ],
    ['runs.systemPrompt a number', { runs: { systemPrompt: 5 } }, 'runs.systemPrompt', /must be a string/],
    ['runs.budgets as text', { runs: { budgets: '40' } }, 'runs.budgets', /must be an object such as \{ maxToolCalls/],
    [
      'a budget as text',
      { runs: { budgets: { maxToolCalls: '40' } } },
      'runs.budgets.maxToolCalls',
      /non-negative number \(or null/,
    ],
    ['runs.daily a number', { runs: { daily: 5 } }, 'runs.daily', /must be an object/],
    ['runs.loopGuard as text', { runs: { loopGuard: 'strict' } }, 'runs.loopGuard', /object of thresholds/],
    [
      'a loop guard threshold as text',
      { runs: { loopGuard: { sameCallFailBlockAt: 'five' } } },
      'runs.loopGuard.sameCallFailBlockAt',
      /non-negative number/,
    ],
    [
      'a loop guard tool list as text',
      { runs: { loopGuard: { pollingTools: 'downloads.status' } } },
      'runs.loopGuard.pollingTools',
      /array of tool names/,
    ],
    ['runs.results as text', { runs: { results: 'big' } }, 'runs.results', /object of limits/],
    ['runs.images as text', { runs: { images: 'on' } }, 'runs.images', /must be an object/],
    ['runs.images.enabled as text', { runs: { images: { enabled: 'yes' } } }, 'runs.images.enabled', /true or false/],
    ['skills as text', { skills: './skills' }, 'skills', /\{ dataDir: '\.\/data'/],
    ['configure not a function', { configure: {} }, 'configure', /must be a function/],
    ['maxInputBytes as text', { maxInputBytes: '1mb' }, 'maxInputBytes', /must be a number/],
  ];

  it.each(cases)('%s', (_label, options, option, says) => {
    expectRefused(() => createAgentHost(options as never), 'OPTIONS_INVALID', option, says);
  });
});

describe('createModelProvider and the provider constructors', () => {
  it.each([
    [
      'createModelProvider with the name alone',
      () => createModelProvider('openai-compatible' as never),
      'config',
      /not the name alone/,
    ],
    [
      'createModelProvider without apiKey',
      () => createModelProvider({ provider: 'anthropic' } as never),
      'config.apiKey',
      /is required/,
    ],
    [
      'new AnthropicProvider()',
      () => new AnthropicProvider(undefined as never),
      'AnthropicProvider',
      /must be an object of anthropic provider options/,
    ],
    [
      'new AnthropicProvider with a bad baseUrl',
      () => new AnthropicProvider({ apiKey: 'k', baseUrl: 'api.anthropic.com' }),
      'AnthropicProvider.baseUrl',
      /http\(s\) URL/,
    ],
    [
      'new OpenAICompatibleProvider with a misspelt option',
      () => new OpenAICompatibleProvider({ baseURL: 'http://x' } as never),
      'OpenAICompatibleProvider.baseURL',
      /not an option .* known: .*baseUrl/,
    ],
  ] as const)('%s', (_label, make, option, says) => {
    expectRefused(make, 'OPTIONS_INVALID', option, says);
  });
});
