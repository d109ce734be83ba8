// checkProviderModels checks its own arguments before asking any server: entries an array of { path, provider,
// model }, `which` one of 'local' | 'all' | 'none', `timeoutMs` a positive finite number; each refusal is
// OPTIONS_INVALID naming the argument, and no request is sent.
import { afterEach, describe, expect, it } from 'vitest';
import { checkProviderModels } from '../../../src/models/local/check-provider-models';
import { resolveCheckArguments } from '../../../src/models/local/check-options';
import { type ModelServer, startModelServer, vllmRoutes } from './model-servers';

const servers: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function vllm(): Promise<ModelServer> {
  const s = await startModelServer(vllmRoutes(['qwen3:8b']));
  servers.push(s);
  return s;
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as Error & { code: string; details: Record<string, unknown> },
  );

describe('checkProviderModels: its own arguments', () => {
  const CASES: Array<[string, unknown, unknown, string, string]> = [
    ['timeoutMs: -1', 'ok', { timeoutMs: -1 }, 'options.timeoutMs', 'got -1'],
    ['timeoutMs: NaN', 'ok', { timeoutMs: Number.NaN }, 'options.timeoutMs', 'got NaN'],
    ['timeoutMs: 0', 'ok', { timeoutMs: 0 }, 'options.timeoutMs', 'got 0'],
    ['timeoutMs: Infinity', 'ok', { timeoutMs: Number.POSITIVE_INFINITY }, 'options.timeoutMs', 'got Infinity'],
    ["timeoutMs: '500'", 'ok', { timeoutMs: '500' }, 'options.timeoutMs', 'got "500"'],
    ['timeoutMs past the longest Node timer', 'ok', { timeoutMs: 2 ** 31 }, 'options.timeoutMs', 'at most 2147483647'],
    ["which: 'bogus'", 'ok', { which: 'bogus' }, 'options.which', 'got "bogus"'],
    ['options: a string', 'ok', 'all', 'options', 'got "all"'],
    ['entries: null', null, {}, 'entries', 'got null'],
    ['entries: an object', { path: 'model' }, {}, 'entries', 'got an object'],
    ['an entry that is not an object', ['model'], {}, 'entries[0]', 'got "model"'],
    ['an entry without a model', [{ path: 'model', provider: undefined }], {}, 'entries[0].model', 'got undefined'],
    ['an entry with an empty path', [{ path: '', provider: undefined, model: 'm' }], {}, 'entries[0].path', 'got ""'],
    [
      'an entry whose provider is a string',
      [{ path: 'model', provider: 'ollama', model: 'm' }],
      {},
      'entries[0].provider',
      'got "ollama"',
    ],
  ];
  for (const [name, entries, options, option, shown] of CASES) {
    it(`${name} → OPTIONS_INVALID naming ${option}, and no request is sent`, async () => {
      const srv = await vllm();
      const given =
        entries === 'ok'
          ? [
              {
                path: 'model',
                provider: { provider: 'openai-compatible', dialect: 'vllm', baseUrl: srv.origin },
                model: 'qwen3:8b',
              },
            ]
          : entries;
      const error = await refusal(checkProviderModels(given as never, options as never));
      expect(error).toMatchObject({ code: 'OPTIONS_INVALID', details: { option } });
      expect(error!.message).toContain(`checkProviderModels: ${option} `);
      expect(error!.message).toContain(shown);
      expect(srv.seen).toHaveLength(0);
    });
  }

  it("each documented value of which is accepted: 'none' asks nothing, 'local' and 'all' ask the local server", async () => {
    const srv = await vllm();
    const entries = [
      {
        path: 'model',
        provider: { provider: 'openai-compatible' as const, dialect: 'vllm' as const, baseUrl: srv.origin },
        model: 'qwen3:8b',
      },
    ];
    expect(await checkProviderModels(entries, { which: 'none' })).toEqual([]);
    expect(srv.seen).toHaveLength(0);
    for (const which of ['local', 'all'] as const) {
      const [found] = await checkProviderModels(entries, { which, timeoutMs: 2000 });
      expect(found).toMatchObject({ path: 'model', model: 'qwen3:8b', available: ['qwen3:8b'] });
    }
    expect(srv.seen).toHaveLength(2);
  });

  it('the rule resolves the defaults: which local, timeoutMs the default given', () => {
    expect(resolveCheckArguments([], undefined, 5000)).toEqual({ which: 'local', timeoutMs: 5000 });
    expect(resolveCheckArguments([], { which: 'all', timeoutMs: 250 }, 5000)).toEqual({ which: 'all', timeoutMs: 250 });
  });
});
