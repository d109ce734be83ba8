// Strict OpenAI-compatible servers: 400/422 for optional request fields they do not accept.
import { describe, expect, it } from 'vitest';
import { OpenAICompatibleProvider, type OpenAICompatibleProviderOptions } from '../../src/models/openai-compatible';
import { OPENAI_DIALECTS, type OpenAIDialectName } from '../../src/models/openai-dialects';
import {
  transcriptEvents,
  WireReplayServer,
  type RecordedRequest,
  type ReplayResponse,
} from '../../src/models/replay-server';
import type { ModelMessage, ModelRequest, ModelTool } from '../../src/models/types';
import { drain, fastRetry, fixture, ofType, strictResponder, textOf, type StrictStyle, replayServers } from './helpers';

const { track } = replayServers();

async function serve(responder: (req: RecordedRequest, index: number) => ReplayResponse): Promise<WireReplayServer> {
  const s = await WireReplayServer.start(responder);
  track(s);
  return s;
}
const ok = (): ReplayResponse => ({ events: transcriptEvents(fixture('openai-text.chunks.txt'), 'openai') });
const provider = (s: WireReplayServer, o: OpenAICompatibleProviderOptions = {}) =>
  new OpenAICompatibleProvider({ apiKey: 'sk-strict-0123456789', baseUrl: s.url, retry: fastRetry, ...o });
const tool: ModelTool = {
  name: 'catalog.lookup',
  description: 'Look a title up',
  inputSchema: { type: 'object', properties: { title: { type: 'string' } } },
};
const request: ModelRequest = {
  model: 'm',
  messages: [{ role: 'user', content: 'hi' }],
  maxTokens: 500,
  temperature: 0.2,
  thinking: 'medium',
  tools: [tool],
};
const STRICT_FIELDS = ['model', 'messages', 'stream', 'max_tokens', 'temperature', 'tools'];
const keysOf = (r: RecordedRequest | undefined) => Object.keys((r?.json ?? {}) as object).sort();
const expectedText = textOf(await drainFixture());

async function drainFixture() {
  const s = await WireReplayServer.start([ok()]);
  try {
    return await drain(
      new OpenAICompatibleProvider({ baseUrl: s.url }).stream({
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
  } finally {
    await s.close();
  }
}

const styles: StrictStyle[] = ['pydantic', 'openai-unrecognized', 'serde', 'unsupported-parameter', 'vague'];
const cases = (Object.keys(OPENAI_DIALECTS) as OpenAIDialectName[]).flatMap((dialect) =>
  styles.map((style) => ({ dialect, style })),
);

describe('strict OpenAI-compatible servers', () => {
  it.each(cases)(
    '$dialect dialect, $style refusal: resent without the refused optional fields, one PROVIDER_FIELDS_DROPPED warning, later calls send the reduced body at once',
    async ({ dialect, style }) => {
      const s = await serve(strictResponder(STRICT_FIELDS, style, ok));
      const p = provider(s, { dialect });
      const first = await drain(p.stream(request));
      expect(ofType(first, 'error')).toEqual([]);
      expect(textOf(first)).toBe(expectedText);
      expect(first.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
      const sentFirst = s.requests.length;
      const extras = keysOf(s.requests[0]).filter((k) => !STRICT_FIELDS.includes(k));
      expect(extras.length).toBeGreaterThan(0);
      expect(sentFirst).toBeLessThanOrEqual(1 + extras.length);
      const accepted = s.requests.at(-1)!.json as Record<string, unknown>;
      expect(keysOf(s.requests.at(-1)).every((k) => STRICT_FIELDS.includes(k))).toBe(true);
      expect(accepted).toMatchObject({ max_tokens: 500, temperature: 0.2, stream: true });
      const warnings = ofType(first, 'warning').map((e) => e.warning);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({
        code: 'PROVIDER_FIELDS_DROPPED',
        details: { provider: `openai-compatible:${dialect}` },
      });
      expect((warnings[0]!.details!.fields as string[]).sort()).toEqual(extras);

      const second = await drain(p.stream(request));
      expect(s.requests).toHaveLength(sentFirst + 1);
      expect(s.requests.at(-1)!.json).toEqual(accepted);
      expect(ofType(second, 'warning')).toEqual([]);
      expect(p.buildBody(request)).toEqual(accepted);
    },
  );

  it('switches a refused max_tokens to max_completion_tokens when the server asks for it', async () => {
    const s = await serve(
      strictResponder(
        ['model', 'messages', 'stream', 'stream_options', 'max_completion_tokens'],
        'unsupported-parameter',
        ok,
      ),
    );
    const events = await drain(
      provider(s, { dialect: 'generic' }).stream({
        model: 'o-model',
        messages: [{ role: 'user', content: 'hi' }],
        maxTokens: 300,
      }),
    );
    expect(ofType(events, 'error')).toEqual([]);
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]!.json).toMatchObject({ max_completion_tokens: 300 });
    expect(s.requests[1]!.json).not.toHaveProperty('max_tokens');
    expect(ofType(events, 'warning')[0]?.warning.details).toMatchObject({
      fields: ['max_tokens'],
      maxTokensField: 'max_completion_tokens',
      reason: 'named',
    });
  });

  it('stops sending reasoning_content back when the server refuses it in assistant messages', async () => {
    const s = await serve((req) => {
      const messages = (req.json as { messages: Array<Record<string, unknown>> }).messages;
      if (messages.some((m) => 'reasoning_content' in m))
        return {
          status: 400,
          body: JSON.stringify({
            error: { message: 'messages[1]: unknown field `reasoning_content`', type: 'invalid_request_error' },
          }),
        };
      return ok();
    });
    const messages: ModelMessage[] = [
      { role: 'user', content: 'find Dune' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'look it up' },
          { type: 'tool_call', id: 'c1', name: 'catalog.lookup', input: { title: 'Dune' } },
        ],
      },
      { role: 'tool', toolCallId: 'c1', name: 'catalog.lookup', status: 'ok', content: '{}' },
    ];
    const events = await drain(
      provider(s, { dialect: 'deepseek' }).stream({ model: 'deepseek-reasoner', messages, tools: [tool] }),
    );
    expect(ofType(events, 'error')).toEqual([]);
    expect(s.requests).toHaveLength(2);
    expect(JSON.stringify(s.requests[1]!.json)).not.toContain('reasoning_content');
    expect(ofType(events, 'warning')[0]?.warning.details).toMatchObject({ fields: ['reasoning_content'] });
  });

  it('gives up with PROVIDER_HTTP after dropping every optional field when the server still refuses, without looping', async () => {
    const s = await serve(() => ({
      status: 400,
      body: JSON.stringify({
        detail: [{ type: 'extra_forbidden', loc: ['body', 'user'], msg: 'Extra inputs are not permitted' }],
      }),
    }));
    const events = await drain(provider(s, { dialect: 'openai' }).stream(request));
    expect(s.requests).toHaveLength(2);
    expect(keysOf(s.requests[1])).not.toContain('stream_options');
    expect(ofType(events, 'error')[0]?.error.code).toBe('PROVIDER_HTTP');
    expect(ofType(events, 'warning').map((e) => e.warning.code)).toEqual(['PROVIDER_FIELDS_DROPPED']);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'error' });
  });

  it('does not resend on a 400 that is not about request fields', async () => {
    const s = await serve(() => ({
      status: 400,
      body: JSON.stringify({
        error: {
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'.",
          type: 'invalid_request_error',
        },
      }),
    }));
    const events = await drain(provider(s, { dialect: 'openai' }).stream(request));
    expect(s.requests).toHaveLength(1);
    expect(ofType(events, 'warning')).toEqual([]);
    expect(ofType(events, 'error')[0]?.error.code).toBe('PROVIDER_HTTP');
  });
});
