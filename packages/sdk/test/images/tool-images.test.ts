import { afterEach, describe, expect, it } from 'vitest';
import Type from 'typebox';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  type AgentHost,
  type Capability,
  type RunOptions,
} from '../../src/index';
import { AnthropicProvider } from '../../src/models/anthropic';
import { OpenAICompatibleProvider } from '../../src/models/openai-compatible';
import { transcriptEvents, WireReplayServer, type ReplayResponse } from '../../src/models/replay-server';
import type { ModelProvider } from '../../src/models/types';
import { MemoryStorage } from '../../src/storage';
import { SandboxWorld, sandboxPosterCapability, solidPng, waitForRunStatus } from '../../src/testing';
import { fastRetry, fixture } from '../models/helpers';

const servers: WireReplayServer[] = [];
const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const POSTER_INPUT = '{"mediaEntityId":"tmdb:693134"}';

/** The recorded Anthropic tool-use stream, calling `media_poster` (the wire name of `media.poster`) with the poster input. */
function anthropicPosterCall(): ReplayResponse {
  const text = fixture('anthropic-tool-no-args.chunks.txt')
    .replace('"name":"updateIssueList"', '"name":"media_poster"')
    .replace('"partial_json":""', `"partial_json":${JSON.stringify(POSTER_INPUT)}`);
  return { events: transcriptEvents(text, 'anthropic') };
}

/** The recorded Chat Completions tool-call stream (Groq), calling `media_poster`. */
function openaiPosterCall(): ReplayResponse {
  const text = fixture('groq-tool-call.chunks.txt').replace(
    '"name":"weather","arguments":"{}"',
    `"name":"media_poster","arguments":${JSON.stringify(POSTER_INPUT)}`,
  );
  return { events: transcriptEvents(text, 'openai') };
}

const anthropicText = (): ReplayResponse => ({
  events: transcriptEvents(fixture('anthropic-text.chunks.txt'), 'anthropic'),
});
const openaiText = (): ReplayResponse => ({ events: transcriptEvents(fixture('openai-text.chunks.txt'), 'openai') });

async function runWith(
  responses: ReplayResponse[],
  makeProvider: (url: string) => ModelProvider,
  model: string,
  runs: RunOptions = {},
  poster: (world: SandboxWorld) => Capability<any, any> = sandboxPosterCapability,
) {
  const server = await WireReplayServer.start(responses);
  servers.push(server);
  const storage = new MemoryStorage();
  const world = new SandboxWorld();
  const host = createAgentHost({
    storage,
    logger: new ConsoleLogger('silent'),
    model: { provider: makeProvider(server.url), model },
    runs: { pollMs: 5, ...runs },
  });
  hosts.push(host);
  host.capabilities.register(poster(world));
  await host.start();
  const run = await host.startRun({ goal: 'show me the poster of Dune: Part Two', actor: 'user:admin' });
  const ended = await waitForRunStatus(host, run.id, ['succeeded', 'failed', 'waiting'], { timeoutMs: 20_000 });
  const stored = JSON.stringify(await storage.messages.list(run.id));
  const events = JSON.stringify((await host.getRun(run.id, { afterSeq: 0, limit: 1000 })).events);
  return { server, run: ended, stored, events };
}

const anthropic = (url: string) =>
  new AnthropicProvider({ apiKey: 'sk-ant-test-0123456789', baseUrl: url, retry: fastRetry });
const openai = (url: string) =>
  new OpenAICompatibleProvider({ apiKey: 'sk-test-0123456789', baseUrl: url, retry: fastRetry });

/** Checks that nothing of the image reached storage: no PNG base64 (it starts `iVBORw0KGgo`), the "not retained" note instead. */
function expectNothingPersisted(stored: string, events: string) {
  expect(stored).not.toContain('iVBORw0KGgo');
  expect(events).not.toContain('iVBORw0KGgo');
  expect(stored).toContain('image not retained');
}

describe('images in tool results, over the recorded provider wire formats', () => {
  it('Anthropic: the poster goes as an image block inside the tool_result to a model that accepts images; nothing is stored', async () => {
    const { server, stored, events } = await runWith(
      [anthropicPosterCall(), anthropicText()],
      anthropic,
      'claude-sonnet-4-5',
    );
    const body = server.requests[1]!.json as { messages: { role: string; content: Record<string, unknown>[] }[] };
    const toolResult = body.messages.flatMap((m) => m.content).find((b) => b.type === 'tool_result')!;
    const blocks = toolResult.content as Record<string, unknown>[];
    expect(blocks[0]).toMatchObject({ type: 'text', text: expect.stringContaining('attached after this text') });
    expect(blocks[1]).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png' } });
    expect((blocks[1]!.source as { data: string }).data.startsWith('iVBORw0KGgo')).toBe(true);
    expect(JSON.stringify(blocks[0])).not.toContain('iVBORw0KGgo');
    expectNothingPersisted(stored, events);
  });

  it('OpenAI: the image follows the tool message as a user message with an image_url data URL', async () => {
    const { server, stored, events } = await runWith([openaiPosterCall(), openaiText()], openai, 'gpt-4o');
    const body = server.requests[1]!.json as { messages: { role: string; content: unknown }[] };
    const toolIndex = body.messages.findIndex((m) => m.role === 'tool');
    expect(body.messages[toolIndex]!.content).toEqual(expect.stringContaining('attached after this text'));
    const next = body.messages[toolIndex + 1] as { role: string; content: Record<string, unknown>[] };
    expect(next.role).toBe('user');
    expect(next.content[1]).toMatchObject({
      type: 'image_url',
      image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBORw0KGgo/) },
    });
    expectNothingPersisted(stored, events);
  });

  it('a model that does not accept images gets a text note, never the image (table; host override; host switch)', async () => {
    for (const [model, runs] of [
      ['deepseek-chat', {}],
      ['gpt-4o', { images: { models: { 'gpt-4o': false } } }],
      ['gpt-4o', { images: { enabled: false } }],
    ] as const) {
      const { server, stored } = await runWith([openaiPosterCall(), openaiText()], openai, model, runs);
      const sent = JSON.stringify(server.requests[1]!.json);
      expect(sent).not.toContain('image_url');
      expect(sent).not.toContain('iVBORw0KGgo');
      expect(sent).toContain('image not delivered');
      expect(stored).toContain('image not retained');
    }
  });

  it('a provider 400 refusing images: one text-only retry of that call, the rest of the drive text-only', async () => {
    const refusal: ReplayResponse = {
      status: 400,
      body: JSON.stringify({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'This model does not support image input.' },
      }),
    };
    const { server, run, stored } = await runWith(
      [anthropicPosterCall(), refusal, anthropicPosterCall(), anthropicText()],
      anthropic,
      'claude-sonnet-4-5',
    );
    expect(server.requests).toHaveLength(4);
    const [, refused, retry, after] = server.requests.map((r) => JSON.stringify(r.json));
    expect(refused).toContain('"type":"image"');
    expect(retry).not.toContain('"type":"image"');
    expect(retry).toContain('the provider refused images');
    // The next model call of the same drive (after a second poster call) is text-only as well.
    expect(after).not.toContain('"type":"image"');
    expect(after).not.toContain('iVBORw0KGgo');
    // The run went on past the refusal (it ends unverified here: the test host has no goal facts), not on a provider error.
    expect(run.error?.code).not.toBe('PROVIDER_HTTP');
    expect(run.finalText).toBeTruthy();
    expect(stored).not.toContain('iVBORw0KGgo');
  });

  it('images that are not images, too large or of an unsupported type reach the model as typed refusals; the host goes on', async () => {
    const bad = () =>
      defineCapability({
        id: 'media.poster',
        version: 1,
        title: 'Broken posters',
        description: 'Returns images that must be refused.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({ mediaEntityId: Type.String() }),
        output: Type.Object({}, { additionalProperties: true }),
        handler: async () => ({
          notImage: {
            type: 'image',
            mediaType: 'image/png',
            data: Buffer.from('plain text, not a PNG').toString('base64'),
          },
          tooLarge: {
            type: 'image',
            data: new Uint8Array(Buffer.concat([solidPng(2, 2, [1, 2, 3]), Buffer.alloc(800_000)])),
          },
          svg: { type: 'image', mediaType: 'image/svg+xml', data: 'PHN2Zz48L3N2Zz4=' },
        }),
      });
    const { server, stored } = await runWith([openaiPosterCall(), openaiText()], openai, 'gpt-4o', {}, bad);
    const body = server.requests[1]!.json as { messages: { role: string; content: unknown }[] };
    const tool = body.messages.find((m) => m.role === 'tool')!;
    const result = JSON.parse(tool.content as string) as {
      status: string;
      output: Record<string, { error: { code: string } }>;
    };
    expect(result.status).toBe('succeeded');
    expect(result.output.notImage!.error.code).toBe('IMAGE_INVALID');
    expect(result.output.tooLarge!.error.code).toBe('IMAGE_TOO_LARGE');
    expect(result.output.svg!.error.code).toBe('IMAGE_UNSUPPORTED_TYPE');
    expect(JSON.stringify(body)).not.toContain('image_url');
    expect(stored).not.toContain('AAAAAAAAAAAAAAAA');
  });
});
