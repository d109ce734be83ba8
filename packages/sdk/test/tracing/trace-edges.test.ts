// Edges of the tracing helpers: W3C traceparent parsing, the content byte budget, Azure provider names.
import { describe, expect, it } from 'vitest';
import { CONTENT_BUDGET_BYTES, withinBudget, type ContentMessage } from '../../src/runtime/tracing/message-content';
import { providerName } from '../../src/runtime/tracing/provider-name';
import { parseTraceparent } from '../../src/runtime/tracing/run-trace-root';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('parseTraceparent (W3C Trace Context)', () => {
  it('accepts a valid version 00 value, with surrounding spaces or tabs', () => {
    for (const v of [`00-${TRACE}-${SPAN}-01`, ` 00-${TRACE}-${SPAN}-01\t`]) {
      const ctx = parseTraceparent(v);
      expect(ctx, v).toMatchObject({ traceId: TRACE, spanId: SPAN, traceFlags: 1, isRemote: true });
    }
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`)?.traceFlags).toBe(0);
  });

  it('ignores uppercase hex in any field (PostHog/posthog-js#4776, DataDog/dd-trace-py#4756)', () => {
    for (const v of [
      `00-${TRACE.toUpperCase()}-${SPAN}-01`,
      `00-${TRACE}-${SPAN.toUpperCase()}-01`,
      `00-${TRACE}-${SPAN}-0A`,
      `0A-${TRACE}-${SPAN}-01`,
    ])
      expect(parseTraceparent(v), v).toBeUndefined();
  });

  it('ignores version ff, all-zero ids, wrong lengths, extra fields on version 00 (DataDog/dd-trace-py#4756)', () => {
    for (const v of [
      `ff-${TRACE}-${SPAN}-01`,
      `00-${'0'.repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `00-${TRACE.slice(1)}-${SPAN}-01`,
      `00-${TRACE}a-${SPAN}-01`,
      `00-${TRACE}-${SPAN.slice(1)}-01`,
      `00-${TRACE}-${SPAN}-1`,
      `00-${TRACE}-${SPAN}-01-extra`,
      `00-${TRACE}-${SPAN}-01x`,
      `00_${TRACE}-${SPAN}-01`,
      '',
      42,
      undefined,
    ])
      expect(parseTraceparent(v), String(v)).toBeUndefined();
  });

  it('reads the first four fields of a higher version, ignoring what follows', () => {
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-01-what-comes-later`)).toMatchObject({ traceId: TRACE, spanId: SPAN });
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-01`)).toMatchObject({ traceId: TRACE, spanId: SPAN });
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-01x`)).toBeUndefined();
  });
});

describe('withinBudget: never over the budget, always valid JSON (getsentry/sentry-javascript#17809)', () => {
  const call = (i: number, note: string) => ({
    type: 'tool_call' as const,
    id: `c${i}`,
    name: 'library.note',
    arguments: { note },
  });
  const check = (messages: ContentMessage[], budget = CONTENT_BUDGET_BYTES) => {
    const { json, dropped } = withinBudget(messages, budget);
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(budget);
    const parsed = JSON.parse(json) as ContentMessage[];
    expect(parsed).toHaveLength(messages.length - dropped);
    return { parsed, dropped };
  };

  it('keeps everything that fits as it is', () => {
    const messages: ContentMessage[] = [
      { role: 'user', parts: [{ type: 'text', content: 'hi' }] },
      { role: 'assistant', parts: [{ type: 'text', content: 'hello' }] },
    ];
    expect(withinBudget(messages)).toEqual({ json: JSON.stringify(messages), dropped: 0 });
    expect(withinBudget([])).toEqual({ json: '[]', dropped: 0 });
  });

  it('a newest message over the budget loses its oldest parts, the cut marked, the newest part kept whole', () => {
    const parts = Array.from({ length: 60 }, (_, i) => call(i, `page ${i} `.padEnd(250, 'n')));
    const older: ContentMessage = { role: 'user', parts: [{ type: 'text', content: 'annotate' }] };
    const { parsed, dropped } = check([older, { role: 'assistant', parts }]);
    expect(dropped).toBe(1);
    const kept = parsed[0]!.parts;
    expect(kept[0]).toMatchObject({ type: 'text' });
    const left = Number(/^…\(\+(\d+) earlier parts left out\)$/.exec((kept[0] as { content: string }).content)?.[1]);
    expect(left).toBeGreaterThan(0);
    expect(left + kept.length - 1).toBe(60);
    expect(kept[kept.length - 1]).toEqual(parts[59]);
  });

  it('a single part over the budget is shortened (multi-byte text too), the cut marked', () => {
    const text = '日本語のテキスト'.repeat(1500); // 3 bytes a character: ~36 KB
    const { parsed } = check([{ role: 'assistant', parts: [{ type: 'text', content: text }] }]);
    const content = (parsed[0]!.parts[0] as { content: string }).content;
    expect(content).toMatch(/…\(\+\d+ chars\)$/);
    expect(text.startsWith(content.replace(/…\(\+\d+ chars\)$/, ''))).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(parsed))).toBeGreaterThan(CONTENT_BUDGET_BYTES - 64);

    const response = {
      rows: Array.from({ length: 400 }, (_, i) => ({ id: i, title: `title "${i}"`.padEnd(60, 'x') })),
    };
    const tool = check([{ role: 'tool', parts: [{ type: 'tool_call_response', id: 't1', response }] }]).parsed;
    const cut = (tool[0]!.parts[0] as { response: string }).response;
    expect(typeof cut).toBe('string');
    expect(JSON.stringify(response).startsWith(cut.replace(/…\(\+\d+ chars\)$/, ''))).toBe(true);
  });

  it('a message that cannot be cut to fit (a huge id) is left out with a note, still within the budget', () => {
    const { parsed } = check([
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'x'.repeat(20_000), name: 'n', arguments: {} }] },
    ]);
    expect(parsed[0]).toEqual({
      role: 'assistant',
      parts: [{ type: 'text', content: expect.stringMatching(/^…\(message left out: \d+ bytes\)$/) }],
    });
  });
});

describe('providerName on Azure hosts (voideditor/void#937: Azure OpenAI endpoints moved to *.cognitiveservices.azure.com)', () => {
  it('names Azure OpenAI and Azure AI Inference hosts by the registry values', () => {
    const cases: Array<[string, string]> = [
      ['https://myres.openai.azure.com/openai/v1', 'azure.ai.openai'],
      ['https://myres.cognitiveservices.azure.com/openai/v1', 'azure.ai.openai'],
      ['https://MyRes.CognitiveServices.Azure.com/openai/v1', 'azure.ai.openai'],
      ['https://myres.services.ai.azure.com/openai/v1', 'azure.ai.openai'],
      ['https://myres.services.ai.azure.com/models', 'azure.ai.inference'],
      ['https://my-llama.eastus2.models.ai.azure.com/v1', 'azure.ai.inference'],
      ['https://api.openai.com/v1', 'openai'],
      ['https://cognitiveservices.azure.com.example.org/v1', 'openai'],
    ];
    for (const [url, want] of cases) expect(providerName('openai', url), url).toBe(want);
    // On a known Azure host the host names the provider, whatever the OpenAI-compatible dialect.
    expect(providerName('openai-compatible:ollama', 'https://myres.cognitiveservices.azure.com/v1')).toBe(
      'azure.ai.openai',
    );
    expect(providerName('openai-compatible:ollama', 'http://127.0.0.1:11434/v1')).toBe('ollama');
  });
});
