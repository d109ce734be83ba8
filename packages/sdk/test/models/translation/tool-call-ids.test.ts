// Tool call ids per target rule, remapped consistently within one request (pure rules).
import { describe, expect, it } from 'vitest';
import {
  isValidToolCallId,
  remapToolCallIds,
  toolCallIdMap,
  type ToolCallIdRule,
} from '../../../src/models/translation/tool-call-ids';
import type { ModelMessage } from '../../../src/models/types';

const RULES: ToolCallIdRule[] = ['anthropic', 'openai', 'mistral'];
// Ids seen in the wild: the runtime's, OpenAI's, Anthropic's, Kimi's `functions.name:0`, Mistral's, a 51-character
// web-search id, pairs that collide once cleaned (`a:b` / `a_b`), an empty one.
const IDS = [
  'call_12_0',
  'call_PTLP8xhu3uwZk4l3nlnrrJha',
  'toolu_01D7FLrfh4GYq7yT1ULFeyMV',
  'functions.catalog_lookup:0',
  'gSIMJiOkT',
  'ws_689e2d4880a0819d98acca37694989b00b15d90494fc6b87',
  'a:b',
  'a_b',
  'a.b',
  'download_submit:0',
  '',
];

describe('isValidToolCallId', () => {
  it.each([
    ['call_12_0', 'anthropic', true],
    ['functions.catalog_lookup:0', 'anthropic', false],
    ['x'.repeat(40), 'openai', true],
    ['x'.repeat(41), 'openai', false],
    ['gSIMJiOkT', 'mistral', true],
    ['call_12_0', 'mistral', false],
    ['abcdefghij', 'mistral', false],
  ] as const)('%s under %s → %s', (id, rule, expected) => {
    expect(isValidToolCallId(id, rule)).toBe(expected);
  });
});

describe('toolCallIdMap', () => {
  it.each(RULES)(
    '%s: every id maps to a valid, distinct wire id; valid ids stay; the same input maps the same way',
    (rule) => {
      const map = toolCallIdMap(IDS, rule);
      expect(new Set(map.keys())).toEqual(new Set(IDS));
      const wire = [...map.values()];
      expect(new Set(wire).size).toBe(IDS.length);
      for (const w of wire) expect(isValidToolCallId(w, rule)).toBe(true);
      for (const id of IDS) if (isValidToolCallId(id, rule)) expect(map.get(id)).toBe(id);
      expect([...toolCallIdMap(IDS, rule)]).toEqual([...map]);
    },
  );

  it('a replacement never takes an id the conversation already uses', () => {
    const first = toolCallIdMap(['a:b'], 'anthropic').get('a:b')!;
    const map = toolCallIdMap(['a:b', first], 'anthropic');
    expect(map.get(first)).toBe(first);
    expect(map.get('a:b')).not.toBe(first);
  });
});

describe('remapToolCallIds', () => {
  const conversation: ModelMessage[] = [
    { role: 'user', content: 'find Dune' },
    {
      role: 'assistant',
      content: [
        { type: 'tool_call', id: 'call_1_0', name: 'catalog.lookup', input: { title: 'Dune' } },
        { type: 'tool_call', id: 'call_1_1', name: 'catalog.lookup', input: { title: 'Emma' } },
      ],
    },
    { role: 'tool', toolCallId: 'call_1_0', name: 'catalog.lookup', status: 'ok', content: '{}' },
    { role: 'tool', toolCallId: 'call_1_1', name: 'catalog.lookup', status: 'error', content: 'nope' },
  ];

  it('keeps every result paired with its call under the new ids (mistral)', () => {
    const out = remapToolCallIds(conversation, 'mistral');
    const calls = out[1]!.role === 'assistant' ? out[1]!.content.map((p) => (p.type === 'tool_call' ? p.id : '')) : [];
    const results = out.slice(2).map((m) => (m.role === 'tool' ? m.toolCallId : ''));
    expect(results).toEqual(calls);
    for (const id of calls) expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(new Set(calls).size).toBe(2);
    expect(conversation[2]).toMatchObject({ toolCallId: 'call_1_0' });
  });

  it('returns the same messages when every id is valid (anthropic, openai)', () => {
    for (const rule of ['anthropic', 'openai'] as const) {
      const out = remapToolCallIds(conversation, rule);
      expect(out).toHaveLength(conversation.length);
      for (const [i, m] of out.entries()) expect(m).toBe(conversation[i]);
    }
  });
});
