// The start-up model check over real local HTTP servers shaped like Ollama, llama.cpp server, vLLM and LM Studio:
// host.start() asks a local server for its models (no key, no Authorization header), refuses a missing model, an
// HTML page, a dead port and a silent server with typed errors naming the entry, and asks a cloud provider nothing.
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost } from '../../../src/index';
import type { ModelProviderConfig } from '../../../src/models/factory';
import { AnthropicProvider } from '../../../src/models/anthropic';
import { checkProviderModels } from '../../../src/models/local/check-provider-models';
import { OpenAICompatibleProvider } from '../../../src/models/openai-compatible';
import {
  type Answer,
  deadOrigin,
  llamacppRoutes,
  lmstudioRoutes,
  type ModelServer,
  ollamaRoutes,
  ollamaTagsOnlyRoutes,
  startModelServer,
  vllmRoutes,
} from './model-servers';

const servers: ModelServer[] = [];
const hosts: AgentHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop().catch(() => undefined)));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(routes: Record<string, Answer>): Promise<ModelServer> {
  const s = await startModelServer(routes);
  servers.push(s);
  return s;
}

function host(
  provider: ModelProviderConfig | OpenAICompatibleProvider | AnthropicProvider,
  model: string,
  checkOnStart?: boolean,
) {
  const h = createAgentHost({
    logger: new ConsoleLogger('silent'),
    model: { provider, model, ...(checkOnStart !== undefined ? { checkOnStart } : {}) },
  });
  hosts.push(h);
  return h;
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as Error & { code: string; details: Record<string, unknown> },
  );

const SERVERS = [
  { dialect: 'ollama', routes: ollamaRoutes(['qwen3:8b', 'llama3.2:3b']), model: 'qwen3:8b' },
  { dialect: 'llamacpp', routes: llamacppRoutes(['models/Qwen3-8B-Q4_K_M.gguf']), model: 'Qwen3-8B-Q4_K_M' },
  { dialect: 'vllm', routes: vllmRoutes(['Qwen/Qwen3-8B']), model: 'Qwen/Qwen3-8B' },
  { dialect: 'lmstudio', routes: lmstudioRoutes(['qwen/qwen3-8b', 'openai/gpt-oss-20b']), model: 'qwen/qwen3-8b' },
] as const;

describe('start-up model check of local servers', () => {
  for (const s of SERVERS) {
    it(`${s.dialect}: the model is listed → start() resolves after one GET /v1/models with no Authorization header`, async () => {
      const srv = await server(s.routes);
      const h = host({ provider: 'openai-compatible', dialect: s.dialect, baseUrl: `${srv.origin}/v1` }, s.model);
      await expect(h.start()).resolves.toMatchObject({ recovered: [] });
      expect(srv.seen.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v1/models']);
      expect(srv.seen[0]!.headers.authorization).toBeUndefined();
    });

    it(`${s.dialect}: the model is missing → MODEL_NOT_FOUND naming the model and the server's list; the host is not started`, async () => {
      const srv = await server(s.routes);
      const h = host({ provider: 'openai-compatible', dialect: s.dialect, baseUrl: `${srv.origin}/v1` }, 'mistral:7b');
      const error = await failure(h.start());
      const listed = (JSON.parse(s.routes['/v1/models']!.body) as { data: Array<{ id: string }> }).data.map(
        (m) => m.id,
      );
      expect(error).toMatchObject({
        code: 'MODEL_NOT_FOUND',
        details: { entry: 'model', provider: `openai-compatible:${s.dialect}`, model: 'mistral:7b', available: listed },
      });
      expect(error!.message).toContain('"mistral:7b"');
      expect(error!.message).toContain(listed.join(', '));
      await expect(h.listRuns()).rejects.toMatchObject({ code: 'HOST_NOT_STARTED' });
    });
  }

  it('the key given to a local server (vLLM --api-key) goes with the check as Bearer', async () => {
    const srv = await server(vllmRoutes(['Qwen/Qwen3-8B']));
    await host(
      { provider: 'openai-compatible', dialect: 'vllm', baseUrl: `${srv.origin}/v1`, apiKey: 'token-abc123' },
      'Qwen/Qwen3-8B',
    ).start();
    expect(srv.seen[0]!.headers.authorization).toBe('Bearer token-abc123');
  });

  it('a provider instance is checked the same way (its base URL, dialect and headers)', async () => {
    const srv = await server(lmstudioRoutes(['openai/gpt-oss-20b']));
    const provider = new OpenAICompatibleProvider({
      dialect: 'lmstudio',
      baseUrl: srv.origin,
      headers: { 'x-house': '1' },
    });
    await host(provider, 'openai/gpt-oss-20b').start();
    expect(srv.seen.map((r) => [r.url, r.headers['x-house'], r.headers.authorization])).toEqual([
      ['/v1/models', '1', undefined],
    ]);
    await provider.close();
  });

  it('Ollama without /v1/models (404): /api/tags is asked next, and a name without a tag is its :latest', async () => {
    const srv = await server(ollamaTagsOnlyRoutes(['qwen3:latest']));
    await host({ provider: 'openai-compatible', dialect: 'ollama', baseUrl: `${srv.origin}/v1` }, 'qwen3').start();
    expect(srv.seen.map((r) => r.url)).toEqual(['/v1/models', '/api/tags']);
  });

  it('the server is down → PROVIDER_UNREACHABLE naming the entry and the base URL', async () => {
    const origin = await deadOrigin();
    const error = await failure(
      host({ provider: 'openai-compatible', dialect: 'ollama', baseUrl: `${origin}/v1` }, 'qwen3:8b').start(),
    );
    expect(error).toMatchObject({
      code: 'PROVIDER_UNREACHABLE',
      details: { entry: 'model', baseUrl: `${origin}/v1`, url: `${origin}/v1/models`, cause: 'ECONNREFUSED' },
    });
    expect(error!.message).toContain(`${origin}/v1`);
  });

  it("HTTP 500 with a body that is not JSON (a crashed runner's text, a proxy's HTML page) → PROVIDER_HTTP with the status and what was received, per the docs table", async () => {
    for (const [contentType, body] of [
      ['text/plain; charset=utf-8', 'boom'],
      ['text/html', '<html><body>502 Bad Gateway</body></html>'],
      ['', 'llama runner process has terminated'],
    ] as const) {
      const srv = await server({
        '/v1/models': { status: 500, headers: contentType ? { 'content-type': contentType } : {}, body },
      });
      const error = await failure(
        host({ provider: 'openai-compatible', dialect: 'vllm', baseUrl: srv.origin }, 'm').start(),
      );
      expect(error).toMatchObject({
        code: 'PROVIDER_HTTP',
        details: { entry: 'model', status: 500, contentType, received: body },
      });
      expect(error!.message).toContain('HTTP 500');
    }
  });

  it('nothing listens on a port fetch calls "bad" (127.0.0.1:1) → PROVIDER_UNREACHABLE with details.cause ECONNREFUSED', async () => {
    const error = await failure(
      host({ provider: 'openai-compatible', dialect: 'llamacpp', baseUrl: 'http://127.0.0.1:1' }, 'x').start(),
    );
    expect(error).toMatchObject({
      code: 'PROVIDER_UNREACHABLE',
      details: {
        entry: 'model',
        baseUrl: 'http://127.0.0.1:1',
        url: 'http://127.0.0.1:1/v1/models',
        cause: 'ECONNREFUSED',
      },
    });
    expect(error!.message).toContain('ECONNREFUSED');
  });

  it("a model server on a port in fetch's bad-port list (10080) is checked as the provider reaches it", async () => {
    const srv = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'qwen3:8b', object: 'model' }] }));
    });
    const listening = await new Promise<boolean>((resolve) => {
      srv.once('error', () => resolve(false));
      srv.listen(10080, '127.0.0.1', () => resolve(true));
    });
    servers.push({
      origin: '',
      seen: [],
      close: () => new Promise<void>((r) => (listening ? srv.close(() => r()) : r())),
    });
    expect(listening, 'port 10080 is free on this machine').toBe(true);
    const [found] = await checkProviderModels([
      {
        path: 'model',
        provider: { provider: 'openai-compatible', dialect: 'vllm', baseUrl: 'http://127.0.0.1:10080/v1' },
        model: 'qwen3:8b',
      },
    ]);
    expect(found).toMatchObject({ url: 'http://127.0.0.1:10080/v1/models', available: ['qwen3:8b'] });
  });

  it('a login redirect is not followed: PROVIDER_PROTOCOL naming where it points', async () => {
    const srv = await server({
      '/v1/models': { status: 302, headers: { location: '/login.html' }, body: '' },
      '/login.html': { headers: { 'content-type': 'text/html' }, body: '<html>login</html>' },
    });
    const error = await failure(
      host({ provider: 'openai-compatible', dialect: 'llamacpp', baseUrl: srv.origin }, 'm').start(),
    );
    expect(error).toMatchObject({ code: 'PROVIDER_PROTOCOL', details: { status: 302, location: '/login.html' } });
    expect(srv.seen.map((r) => r.url)).toEqual(['/v1/models']);
  });

  it('JSON that is not a model list (another server on the port) → PROVIDER_PROTOCOL with what was received', async () => {
    const srv = await server({
      '/v1/models': { headers: { 'content-type': 'application/json' }, body: '{"status":"ok","uptime":12}' },
    });
    const error = await failure(
      host({ provider: 'openai-compatible', dialect: 'vllm', baseUrl: `${srv.origin}/v1` }, 'm').start(),
    );
    expect(error).toMatchObject({ code: 'PROVIDER_PROTOCOL', details: { received: '{"status":"ok","uptime":12}' } });
  });

  it('a server that never answers → PROVIDER_TIMEOUT within the limit', async () => {
    const srv = await server({ '/v1/models': { body: '', hang: true } });
    const error = await failure(
      checkProviderModels(
        [
          {
            path: 'model',
            provider: { provider: 'openai-compatible', dialect: 'ollama', baseUrl: `${srv.origin}/v1` },
            model: 'qwen3:8b',
          },
        ],
        { timeoutMs: 300 },
      ),
    );
    expect(error).toMatchObject({
      code: 'PROVIDER_TIMEOUT',
      details: { entry: 'model', phase: 'start_check', timeoutMs: 300 },
    });
    expect(srv.seen).toHaveLength(1);
  });

  it('401 from a server started with a key → PROVIDER_AUTH naming the entry', async () => {
    const srv = await server({
      '/v1/models': { status: 401, headers: { 'content-type': 'application/json' }, body: '{"error":"Unauthorized"}' },
    });
    const error = await failure(
      host({ provider: 'openai-compatible', dialect: 'vllm', baseUrl: `${srv.origin}/v1` }, 'm').start(),
    );
    expect(error).toMatchObject({ code: 'PROVIDER_AUTH', details: { entry: 'model', status: 401 } });
  });

  it('a chain of entries (a fallback after the primary): the failing entry is named by its path', async () => {
    const primary = await server(vllmRoutes(['Qwen/Qwen3-8B']));
    const fallback = await server(ollamaRoutes(['llama3.2:3b']));
    const error = await failure(
      checkProviderModels([
        {
          path: 'model',
          provider: { provider: 'openai-compatible', dialect: 'vllm', baseUrl: primary.origin },
          model: 'Qwen/Qwen3-8B',
        },
        {
          path: 'model.fallbacks[0]',
          provider: { provider: 'openai-compatible', dialect: 'ollama', baseUrl: fallback.origin },
          model: 'qwen3:8b',
        },
      ]),
    );
    expect(error).toMatchObject({
      code: 'MODEL_NOT_FOUND',
      details: { entry: 'model.fallbacks[0]', available: ['llama3.2:3b'] },
    });
    expect(error!.message.startsWith('model.fallbacks[0]:')).toBe(true);
  });

  it('the error message names the first 20 models of a long list and how many more', async () => {
    const many = Array.from({ length: 25 }, (_, i) => `model-${i}:latest`);
    const srv = await server(ollamaRoutes(many));
    const error = await failure(
      host({ provider: 'openai-compatible', dialect: 'ollama', baseUrl: srv.origin }, 'qwen3:8b').start(),
    );
    expect(error!.message).toContain('model-19:latest (and 5 more)');
    expect(error!.message).not.toContain('model-20:latest');
    expect((error!.details.available as string[]).length).toBe(25);
  });
});

describe('cloud providers at start', () => {
  it('an OpenAI-compatible cloud dialect and Anthropic get no request at start', async () => {
    const openai = await server({ '/v1/models': { body: '{}' } });
    const anthropic = await server({ '/v1/models': { body: '{}' } });
    await host(
      {
        provider: 'openai-compatible',
        dialect: 'openai',
        baseUrl: `${openai.origin}/v1`,
        apiKey: 'sk-test-0123456789',
      },
      'gpt-4.1-mini',
    ).start();
    await host(
      new AnthropicProvider({ apiKey: 'sk-ant-test-0123456789', baseUrl: anthropic.origin }),
      'claude-sonnet-4-5',
    ).start();
    expect(openai.seen).toEqual([]);
    expect(anthropic.seen).toEqual([]);
  });

  it('checkOnStart: true checks a cloud provider too (Anthropic: an alias is its dated id)', async () => {
    const anthropic = await server({
      '/v1/models': {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          data: [
            {
              type: 'model',
              id: 'claude-sonnet-4-5-20250929',
              display_name: 'Claude Sonnet 4.5',
              created_at: '2025-09-29T00:00:00Z',
            },
          ],
          has_more: false,
          first_id: 'claude-sonnet-4-5-20250929',
          last_id: 'claude-sonnet-4-5-20250929',
        }),
      },
    });
    await host(
      { provider: 'anthropic', apiKey: 'sk-ant-test-0123456789', baseUrl: anthropic.origin },
      'claude-sonnet-4-5',
      true,
    ).start();
    expect(anthropic.seen.map((r) => [r.url, r.headers['x-api-key']])).toEqual([
      ['/v1/models?limit=1000', 'sk-ant-test-0123456789'],
    ]);
  });

  it('checkOnStart: false checks nothing, even a local dialect', async () => {
    const origin = await deadOrigin();
    await expect(
      host({ provider: 'openai-compatible', dialect: 'ollama', baseUrl: origin }, 'qwen3:8b', false).start(),
    ).resolves.toBeDefined();
  });

  it('checkOnStart of another type is refused with OPTIONS_INVALID naming the option', () => {
    expect(() =>
      createAgentHost({ model: { provider: { provider: 'scripted' }, checkOnStart: 'yes' as unknown as boolean } }),
    ).toThrow(expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option: 'model.checkOnStart' } }));
  });

  it('a scripted provider has no list and is never checked', async () => {
    await expect(host({ provider: 'scripted' }, 'scripted', true).start()).resolves.toBeDefined();
  });
});
