// Provider conformance corpus: every recorded case in ./cases is served over real local HTTP by the
// WireReplayServer and streamed through the real translator (AnthropicProvider, or OpenAICompatibleProvider
// with the server's dialect when one is built in, else `generic`); the runtime's view (text, reasoning,
// tool calls, usage, stop reason, error code, retries) must equal the case's `# expect:` header.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../src/models/anthropic';
import { collectStream } from '../../../src/models/complete';
import { OPENAI_DIALECTS, type OpenAIDialectName } from '../../../src/models/openai-dialects';
import { OpenAICompatibleProvider } from '../../../src/models/openai-compatible';
import { WireReplayServer } from '../../../src/models/replay-server';
import type { ModelEvent, ModelProvider, ModelTool } from '../../../src/models/types';
import { drain, fastRetry } from '../helpers';
import { type ConformanceCase, parseCase } from './case-file';

const dir = fileURLToPath(new URL('./cases/', import.meta.url));
const cases: ConformanceCase[] = readdirSync(dir)
  .filter((f) => f.endsWith('.chunks.txt'))
  .sort()
  .map((f) => parseCase(f, readFileSync(`${dir}${f}`, 'utf8')));

const servers: WireReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** The built-in dialect of that name, or `generic` when the SDK has none (yet). */
function dialectOf(name: string | undefined): OpenAIDialectName {
  return name !== undefined && Object.hasOwn(OPENAI_DIALECTS, name) ? (name as OpenAIDialectName) : 'generic';
}

function providerFor(c: ConformanceCase, url: string): ModelProvider {
  if (c.format === 'anthropic')
    return new AnthropicProvider({ apiKey: 'sk-ant-test-conformance', baseUrl: url, retry: fastRetry });
  return new OpenAICompatibleProvider({
    apiKey: 'sk-test-conformance',
    baseUrl: url,
    dialect: dialectOf(c.dialect),
    retry: fastRetry,
  });
}

function toolsOf(c: ConformanceCase): ModelTool[] {
  const offered = c.tools ?? (c.expect.calls ?? []).map((call) => ({ name: call.name }));
  const unique = [...new Map(offered.map((t) => [t.name, t])).values()];
  return unique.map((t) => ({
    name: t.name,
    description: `the ${t.name} tool of the recording`,
    inputSchema: (t as { schema?: Record<string, unknown> }).schema ?? { type: 'object' },
  }));
}

async function* replay(events: ModelEvent[]): AsyncIterable<ModelEvent> {
  yield* events;
}

describe('provider conformance corpus', () => {
  it('holds at least 40 cases from at least 12 servers, each naming a public source', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(new Set(cases.map((c) => c.server)).size).toBeGreaterThanOrEqual(12);
    for (const c of cases)
      expect(c.sources.join(' '), c.file).toMatch(/https:\/\/|[\w.-]+\/[\w.-]+(#\d+|@[0-9a-f]{7,})/);
  });

  for (const c of cases) {
    it(`${c.server}: ${c.title} (${c.file})`, async () => {
      const server = await WireReplayServer.start(c.responses);
      servers.push(server);
      const tools = toolsOf(c);
      const events = await drain(
        providerFor(c, server.url).stream({
          model: c.model ?? 'conformance-model',
          messages: [{ role: 'user', content: 'conformance case' }],
          ...(tools.length > 0 ? { tools } : {}),
        }),
      );
      const x = c.expect;
      const got = {
        text: events.map((e) => (e.type === 'text_delta' ? e.text : '')).join(''),
        reasoning: events.map((e) => (e.type === 'thinking_delta' ? e.thinking : '')).join(''),
        calls: events
          .flatMap((e) => (e.type === 'tool_call_end' ? [e] : []))
          .map((e, i) => ({
            ...(e.ok ? { name: e.name, input: e.input } : { name: e.name, failure: e.failure.code }),
            // id and signature are compared only where the case names them
            ...(x.calls?.[i]?.id !== undefined ? { id: e.id } : {}),
            ...(x.calls?.[i]?.signature !== undefined ? { signature: e.signature } : {}),
          })),
        stop: events.at(-1)?.type === 'done' ? (events.at(-1) as { stopReason: string }).stopReason : 'no done event',
        error: events.flatMap((e) => (e.type === 'error' ? [e.error.code ?? e.error.message] : []))[0],
        requests: server.requests.length,
      };
      expect(got).toEqual({
        text: x.text ?? '',
        reasoning: x.reasoning ?? '',
        calls: x.calls ?? [],
        stop: x.stop,
        error: x.error,
        requests: x.requests ?? 1,
      });
      const usage = events.filter((e) => e.type === 'usage').at(-1);
      if (x.usage === null) expect(usage).toBeUndefined();
      else if (x.usage !== undefined) expect(usage?.usage).toMatchObject(x.usage);
      if (x.thinking !== undefined) {
        const turn = await collectStream(replay(events.filter((e) => e.type !== 'error')));
        const blocks = turn.message.content.flatMap((p) => (p.type === 'thinking' ? [{ ...p, type: undefined }] : []));
        expect(blocks).toEqual(x.thinking);
      }
    });
  }
});
