// Peer projects' bug reports about local model servers, each replayed against a real local HTTP server shaped
// like the server in the report.
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost } from '../../../src/index';
import { createModelProvider } from '../../../src/models/factory';
import { WireReplayServer } from '../../../src/models/replay-server';
import { drain, textOf } from '../helpers';
import { type ModelServer, ollamaRoutes, routerLoginRoutes, startModelServer } from './model-servers';

const servers: Array<{ close(): Promise<void> }> = [];
const hosts: AgentHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop().catch(() => undefined)));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(routes: Parameters<typeof startModelServer>[0]): Promise<ModelServer> {
  const s = await startModelServer(routes);
  servers.push(s);
  return s;
}

function ollamaHost(origin: string, model: string): AgentHost {
  const host = createAgentHost({
    logger: new ConsoleLogger('silent'),
    model: { provider: { provider: 'openai-compatible', dialect: 'ollama', baseUrl: `${origin}/v1` }, model },
  });
  hosts.push(host);
  return host;
}

describe('peer reports: local model servers', () => {
  it('ogx-ai/ogx#183: a model not pulled into Ollama fails host.start() with MODEL_NOT_FOUND naming the list, not the first request', async () => {
    const ollama = await server(ollamaRoutes(['llama3.2:3b', 'qwen2.5-coder:7b']));
    const error = await ollamaHost(ollama.origin, 'llama3.1:8b-instruct-fp16')
      .start()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toMatchObject({
      code: 'MODEL_NOT_FOUND',
      details: { entry: 'model', model: 'llama3.1:8b-instruct-fp16', available: ['llama3.2:3b', 'qwen2.5-coder:7b'] },
    });
    expect((error as Error).message).toContain('llama3.2:3b, qwen2.5-coder:7b');
    // the check asked the list, and no chat request was made
    expect(ollama.seen.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v1/models']);
  });

  it('dzhng/deep-research#8 (AI SDK "OpenAI API key is missing" against LM Studio): the lmstudio dialect streams with no key and sends no Authorization header', async () => {
    const replay = await WireReplayServer.start([
      {
        events: [
          {
            data: '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"qwen/qwen3-8b","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}',
          },
          {
            data: '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"qwen/qwen3-8b","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
          },
          { data: '[DONE]' },
        ],
      },
    ]);
    servers.push(replay);
    const provider = createModelProvider({
      provider: 'openai-compatible',
      dialect: 'lmstudio',
      baseUrl: replay.url,
    });
    const events = await drain(
      provider.stream({ model: 'qwen/qwen3-8b', messages: [{ role: 'user', content: 'hello' }] }),
    );
    expect(textOf(events)).toBe('Hi');
    expect(provider.id).toBe('openai-compatible:lmstudio');
    expect(replay.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('continuedev/continue#10286 ("Unexpected token \'<\', "<!DOCTYPE"... is not valid JSON" from an ollama baseUrl): an HTML page fails host.start() with PROVIDER_PROTOCOL naming what was received', async () => {
    const router = await server(routerLoginRoutes());
    const error = await ollamaHost(router.origin, 'devstral-small-2:latest')
      .start()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toMatchObject({
      code: 'PROVIDER_PROTOCOL',
      details: { entry: 'model', contentType: 'text/html; charset=utf-8', baseUrl: `${router.origin}/v1` },
    });
    expect((error as { details: { received: string } }).details.received.startsWith('<!DOCTYPE html>')).toBe(true);
    expect((error as Error).message).toContain('<!DOCTYPE html>');
  });
});
