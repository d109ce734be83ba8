// The provider-safe schema rules apply to every request body a provider builds, whatever tool it is
// handed: every standard, mp.* and V2 plugin schema through every dialect's body builder and the
// Anthropic one; and a union-input tool through a server that refuses a root anyOf, over local HTTP.
import Type from 'typebox';
import { beforeAll, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/models/anthropic';
import { OPENAI_DIALECTS } from '../../src/models/openai-dialects';
import { OpenAICompatibleProvider } from '../../src/models/openai-compatible';
import { REQUIRED_PROVIDER_FAMILIES, validateProviderSchema } from '../../src/models/provider-schema';
import { WireReplayServer, type RecordedRequest, type ReplayResponse } from '../../src/models/replay-server';
import type { ModelTool } from '../../src/models/types';
import { drain, fastRetry, ofType, replayServers } from './helpers';
import { offeredCapabilities } from '../offered-capabilities';

type Json = Record<string, unknown>;

/** The tools as a caller hands them to a provider: each capability's own input schema, not rewritten. */
let rawTools: ModelTool[] = [];
beforeAll(async () => {
  const offered = await offeredCapabilities();
  expect(offered.counts.standard).toBe(15);
  expect(offered.counts.v3Operations).toBeGreaterThan(200);
  expect(offered.counts.v2PluginRoutes).toBeGreaterThan(0);
  rawTools = [...offered.byId.values()].map((d) => ({
    name: d.id,
    description: d.description,
    inputSchema: d.input as unknown as Json,
  }));
}, 60_000);

const { track } = replayServers();

/** Every problem any required family (Anthropic, OpenAI, Gemini) finds in a schema. */
function problems(id: string, schema: unknown): string[] {
  return REQUIRED_PROVIDER_FAMILIES.flatMap((f) => validateProviderSchema(schema, f)).map(
    (p) => `${id}: ${p.rule} at ${p.path} — ${p.message}`,
  );
}

const union: ModelTool = {
  name: 'library.lookup',
  description: 'Look a title up by name or by TMDB id',
  inputSchema: Type.Union([
    Type.Object({ title: Type.String() }, { additionalProperties: false }),
    Type.Object({ tmdbId: Type.Integer() }, { additionalProperties: false }),
  ]) as unknown as Json,
};

describe('provider-safe schemas on every wire', () => {
  it('every standard, mp.* and V2 plugin schema goes out of every OpenAI-compatible dialect and of Anthropic in a form each provider family accepts', () => {
    const request = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }], tools: rawTools };
    const failures: string[] = [];
    let checked = 0;
    for (const dialect of Object.values(OPENAI_DIALECTS)) {
      const body = new OpenAICompatibleProvider({ dialect }).buildBody(request);
      const sent = body.tools as Array<{ function: { name: string; parameters: Json } }>;
      expect(sent).toHaveLength(rawTools.length);
      for (const t of sent) {
        failures.push(...problems(`${dialect.name} ${t.function.name}`, t.function.parameters));
        checked++;
      }
    }
    const anthropic = new AnthropicProvider({ apiKey: 'k' }).buildBody(request);
    for (const t of anthropic.tools as Array<{ name: string; input_schema: Json }>) {
      failures.push(...problems(`anthropic ${t.name}`, t.input_schema));
      checked++;
    }
    expect(failures).toEqual([]);
    expect(checked).toBe(rawTools.length * (Object.keys(OPENAI_DIALECTS).length + 1));
  });

  // Root shapes that strict OpenAI-compatible servers refuse, each from a public report:
  // kernl-sdk/kernl#62 (a union of objects: OpenAI "schema must be a JSON Schema of 'type: "object"', got 'type: "None"'"),
  // tetsuo-ai/agenc-core#1324 (an object root with a root anyOf of `required` alternatives: xAI "tool parameter root must be an object type"),
  // duolahypercho/codex-router#222 (a nullable object root `type: ["object","null"]`: xAI and DeepSeek refuse it by name),
  // vercel/ai#7924 (a root without `type`: DeepSeek refuses the implicit object root).
  const strictRoots: Array<[string, Json, Json, Json]> = [
    ['a union of objects', union.inputSchema, { tmdbId: 693134 }, { tmdbId: 'x' }],
    [
      'an object root with a root anyOf of required alternatives',
      {
        type: 'object',
        properties: { cmd: { type: 'string' }, command: { type: 'string' } },
        anyOf: [{ required: ['cmd'] }, { required: ['command'] }],
      },
      { cmd: 'ls' },
      {},
    ],
    [
      'a nullable object root',
      { type: ['object', 'null'], properties: { path: { type: 'string' } }, required: ['path'] },
      { path: '/media' },
      { path: 3 },
    ],
    ['a root without type', { properties: { path: { type: 'string' } }, required: ['path'] }, { path: '/media' }, {}],
  ];
  it.each(strictRoots)(
    '%s is sent as a plain object root that strict servers accept; arguments are still checked against the original',
    async (_label, schema, good, bad) => {
      const tool: ModelTool = { name: 'library.lookup', description: 'Look a title up', inputSchema: schema };
      // What OpenAI, xAI and DeepSeek answer to a function whose parameters root is not exactly `type: "object"` without a root combinator.
      const refuseLooseRoot = (req: RecordedRequest): ReplayResponse => {
        const tools = ((req.json as Json).tools ?? []) as Array<{ function: { name: string; parameters: Json } }>;
        const loose = tools.find(
          (t) =>
            t.function.parameters.type !== 'object' ||
            ['anyOf', 'oneOf', 'allOf'].some((k) => k in t.function.parameters),
        );
        if (loose)
          return {
            status: 400,
            body: JSON.stringify({
              error: {
                message: `Invalid schema for function '${loose.function.name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${typeof loose.function.parameters.type === 'string' ? loose.function.parameters.type : loose.function.parameters.type === undefined ? 'None' : JSON.stringify(loose.function.parameters.type)}"'.`,
                type: 'invalid_request_error',
                param: 'tools[0].function.parameters',
                code: 'invalid_function_parameters',
              },
            }),
          };
        const chunk = (delta: Json, finish: string | null = null) => ({
          data: JSON.stringify({
            id: 'c',
            object: 'chat.completion.chunk',
            choices: [{ index: 0, delta, finish_reason: finish }],
          }),
        });
        const call = (index: number, args: Json) => ({
          tool_calls: [
            {
              index,
              id: `call_${index}`,
              type: 'function',
              function: { name: 'library_lookup', arguments: JSON.stringify(args) },
            },
          ],
        });
        return {
          events: [
            chunk({ role: 'assistant', content: null, ...call(0, good) }),
            chunk(call(1, bad)),
            chunk({}, 'tool_calls'),
            { data: '[DONE]' },
          ],
        };
      };
      const server = await WireReplayServer.start(refuseLooseRoot);
      track(server);
      const provider = new OpenAICompatibleProvider({ baseUrl: server.url, retry: fastRetry });
      const events = await drain(
        provider.stream({ model: 'grok-4', messages: [{ role: 'user', content: 'Dune' }], tools: [tool] }),
      );
      expect(ofType(events, 'error')).toEqual([]);
      expect(server.requests).toHaveLength(1);
      const sent = ((server.requests[0]!.json as Json).tools as Array<{ function: { parameters: Json } }>)[0]!;
      expect(sent.function.parameters.type).toBe('object');
      expect(problems('sent', sent.function.parameters)).toEqual([]);
      const ends = ofType(events, 'tool_call_end');
      expect(ends.map((e) => e.ok)).toEqual([true, false]);
      expect(ends[0]).toMatchObject({ name: 'library.lookup', input: good });
      expect(ends[1]).toMatchObject({ failure: { code: 'TOOL_ARGS_INVALID' } });
    },
  );
});
