// The Anthropic translator reads content_block_delta events in the API's compact form without parsing
// the event object; every other form goes through JSON.parse. These tests hold the two to the same
// result: the same events out, or the same typed error.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { AnthropicTranslator } from '../../src/models/anthropic-stream';
import { RequestTools } from '../../src/models/tools';
import type { ModelEvent } from '../../src/models/types';

const tools = new RequestTools([
  {
    name: 'inventory.query',
    description: 'Query',
    inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
  },
]);

/** A translator with a text block at index 0 and a tool_use block at index 1, opened through the general path. */
function translator(): AnthropicTranslator {
  const t = new AnthropicTranslator(tools);
  const out: ModelEvent[] = [];
  t.push(
    {
      event: 'content_block_start',
      id: '',
      data: '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
    },
    out,
  );
  t.push(
    {
      event: 'content_block_start',
      id: '',
      data: '{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"inventory_query","input":{}}}',
    },
    out,
  );
  return t;
}

/** What one event yields: the events pushed, or the code of the error thrown. */
function translate(data: string): { events: ModelEvent[] } | { code: unknown } {
  const out: ModelEvent[] = [];
  try {
    translator().push({ event: 'content_block_delta', id: '', data }, out);
    return { events: out };
  } catch (error) {
    return { code: (error as { code?: unknown }).code };
  }
}

/** The same event through the general path: a trailing space is valid JSON but not the compact form. */
const general = (data: string) => translate(`${data} `);

const compact = (index: string, type: string, field: string, literal: string) =>
  `{"type":"content_block_delta","index":${index},"delta":{"type":"${type}","${field}":${literal}}}`;
const KINDS = [
  ['text_delta', 'text'],
  ['thinking_delta', 'thinking'],
  ['input_json_delta', 'partial_json'],
] as const;

describe('AnthropicTranslator: compact content_block_delta events', () => {
  it('reads a compact delta without JSON.parse, and one with escapes by parsing its string only', () => {
    const t = translator();
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const out: ModelEvent[] = [];
      t.push({ event: 'content_block_delta', id: '', data: compact('0', 'text_delta', 'text', '"plain"') }, out);
      expect(parse).not.toHaveBeenCalled();
      t.push({ event: 'content_block_delta', id: '', data: compact('0', 'text_delta', 'text', '"two\\nlines"') }, out);
      expect(parse.mock.calls).toEqual([['"two\\nlines"']]);
      expect(out).toEqual([
        { type: 'text_delta', text: 'plain' },
        { type: 'text_delta', text: 'two\nlines' },
      ]);
    } finally {
      parse.mockRestore();
    }
  });

  it('translates text, thinking and tool input deltas as JSON.parse would, for any string', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...KINDS),
        fc.constantFrom('0', '1', '7'),
        fc.string({ unit: 'binary' }),
        ([type, field], index, value) => {
          const data = compact(index, type, field, JSON.stringify(value));
          const got = translate(data);
          expect(got).toEqual(general(data));
          if ('events' in got && value !== '' && (type !== 'input_json_delta' || index === '1'))
            expect(got.events).toHaveLength(1);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives the same events or the same error as the general path for malformed or unusual payloads', () => {
    const cases = [
      compact('0', 'text_delta', 'text', '"a\\nb \\"q\\" \\u00e9 \\ud83d\\ude00"'),
      compact('0', 'text_delta', 'text', '"bad \\x escape"'),
      compact('0', 'text_delta', 'text', '"bad \\u12 escape"'),
      compact('0', 'text_delta', 'text', '"raw \u0001 control"'),
      compact('0', 'text_delta', 'text', '"raw\nnewline"'),
      compact('0', 'text_delta', 'text', '"line \u2028 separator"'),
      compact('0', 'text_delta', 'text', '"lone \\ud800 surrogate"'),
      compact('0', 'text_delta', 'text', '"a","text":"b"'), // a second key: JSON.parse keeps the last
      compact('0', 'text_delta', 'text', '"a","extra":1'),
      compact('0', 'text_delta', 'text', '"unterminated'),
      compact('0', 'text_delta', 'text', '""'),
      compact('0', 'text_delta', 'text', '5'),
      compact('01', 'text_delta', 'text', '"leading zero"'),
      compact('-1', 'text_delta', 'text', '"negative"'),
      compact('1e0', 'input_json_delta', 'partial_json', '"{\\"query\\":"'),
      compact('1', 'input_json_delta', 'partial_json', '"{\\"query\\":\\"dune\\"}"'),
      compact('0', 'input_json_delta', 'partial_json', '"{}"'), // not a tool_use block
      compact('9', 'input_json_delta', 'partial_json', '"{}"'), // no block
      compact('0', 'signature_delta', 'signature', '"sig"'),
      compact('0', 'text_delta', 'thinking', '"field of another type"'),
      compact('0', 'thinking_delta', 'thinking', '"trailing"') + '}',
      `${compact('0', 'text_delta', 'text', '"x"')}\n`,
      '{"type":"content_block_delta", "index":0,"delta":{"type":"text_delta","text":"spaced"}}',
      '{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"reordered"}}',
      '{"type":"content_block_delta","index":0,"delta":{"text":"reordered","type":"text_delta"}}',
    ];
    for (const data of cases) expect(translate(data), data).toEqual(general(data));
    // Spot checks of what the general path gives (so the comparison above is not of two wrong answers).
    expect(translate(cases[0]!)).toEqual({ events: [{ type: 'text_delta', text: 'a\nb "q" é 😀' }] });
    expect(translate(cases[1]!)).toEqual({ code: 'PROVIDER_PROTOCOL' });
    expect(translate(cases[7]!)).toEqual({ events: [{ type: 'text_delta', text: 'b' }] });
    expect(translate(cases[12]!)).toEqual({ code: 'PROVIDER_PROTOCOL' });
    expect(translate(cases[15]!)).toEqual({
      events: [{ type: 'tool_call_delta', id: 'toolu_1', argumentsDelta: '{"query":"dune"}' }],
    });
  });
});
