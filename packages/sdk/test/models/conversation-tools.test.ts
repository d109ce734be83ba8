import { describe, expect, it } from 'vitest';
import { normalizeConversation, UNKNOWN_OUTCOME_TEXT } from '../../src/models/conversation';
import { joinApiUrl } from '../../src/models/http';
import { backoffDelay, parseRetryAfter } from '../../src/models/retry';
import { parseToolArguments, ToolNameMap } from '../../src/models/tools';
import type { ModelMessage, ModelTool } from '../../src/models/types';

const call = (id: string, name = 'download.submit') => ({ type: 'tool_call' as const, id, name, input: {} });
const result = (id: string, content = 'ok'): ModelMessage => ({
  role: 'tool',
  toolCallId: id,
  name: 'download.submit',
  status: 'ok',
  content,
});

describe('normalizeConversation', () => {
  it('layers every system message, in order, into one system prompt', () => {
    const n = normalizeConversation([
      { role: 'system', content: 'base' },
      { role: 'user', content: 'u' },
      { role: 'system', content: 'run rules' },
    ]);
    expect(n.system).toBe('base\n\nrun rules');
    expect(n.messages).toEqual([{ role: 'user', content: 'u' }]);
  });

  it('gives a dangling tool call a synthetic result with status unknown', () => {
    const n = normalizeConversation([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [call('a'), call('b')] },
      result('a'),
    ]);
    expect(n.messages.slice(3)).toEqual([
      { role: 'tool', toolCallId: 'b', name: 'download.submit', status: 'unknown', content: UNKNOWN_OUTCOME_TEXT },
    ]);
  });

  it('keeps only the first result of a call and drops results of calls that are not in the preceding turn', () => {
    const n = normalizeConversation([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [call('a')] },
      result('a', 'first'),
      result('a', 'second'),
      result('zzz'),
    ]);
    expect(n.messages.filter((m) => m.role === 'tool')).toEqual([result('a', 'first')]);
  });

  it('moves a user message that arrived between a call and its result after the results', () => {
    const n = normalizeConversation([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [call('a')] },
      { role: 'user', content: 'steer' },
      result('a'),
    ]);
    expect(n.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  });

  it('drops an assistant turn that has no content (aborted before any output)', () => {
    const n = normalizeConversation([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [] },
      { role: 'user', content: 'again' },
    ]);
    expect(n.messages.map((m) => m.role)).toEqual(['user', 'user']);
  });
});

describe('ToolNameMap', () => {
  it('maps dotted capability ids to ^[a-zA-Z0-9_-]{1,64}$ names and back exactly', () => {
    const ids = ['download.submit', 'download_submit', 'x'.repeat(80), 'plugin.My Plugin/run'];
    const map = new ToolNameMap(ids);
    for (const id of ids) {
      expect(map.toWire(id)).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(map.fromWire(map.toWire(id))).toBe(id);
    }
    expect(new Set(ids.map((id) => map.toWire(id))).size).toBe(ids.length);
    expect(map.toWire('download.submit')).toMatch(/^download_submit-[0-9a-f]{8}$/);
  });

  it('keeps the readable name when nothing collides', () => {
    expect(new ToolNameMap(['download.submit']).toWire('download.submit')).toBe('download_submit');
  });
});

describe('parseToolArguments', () => {
  const tool: ModelTool = {
    name: 't',
    description: '',
    inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] },
  };
  it('rejects arguments that are JSON but not an object', () => {
    expect(parseToolArguments('[1]', tool, 't')).toMatchObject({ ok: false, failure: { code: 'TOOL_ARGS_MALFORMED' } });
  });
  it('lists the failing paths of schema errors', () => {
    const r = parseToolArguments('{"n": 0}', tool, 't');
    expect(r).toMatchObject({
      ok: false,
      failure: { code: 'TOOL_ARGS_INVALID', message: expect.stringContaining('/n') },
    });
  });
});

describe('retry and URL rules', () => {
  it('reads retry-after as seconds or an HTTP date, and retry-after-ms first', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'retry-after': '3' }, now)).toBe(3000);
    expect(parseRetryAfter({ 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }, now)).toBe(10_000);
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '3' }, now)).toBe(250);
    expect(parseRetryAfter({}, now)).toBeUndefined();
  });

  it('reads negative, garbage and past retry-after values as absent, and keeps very large ones for the caller to cap', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    for (const v of [
      '-1',
      '-0',
      '-3.5',
      'soon',
      '1e3',
      '3 s',
      'Infinity',
      'Wed, 21 Oct 2015 07:28:00 GMT',
      'Thu, 01 Jan 2026 00:00:00 GMT',
      '2026-02-01',
    ]) {
      expect(parseRetryAfter({ 'retry-after': v }, now), v).toBeUndefined();
    }
    expect(parseRetryAfter({ 'retry-after-ms': '-5' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after-ms': 'x', 'retry-after': '1' }, now)).toBe(1000);
    expect(parseRetryAfter({ 'retry-after': '0' }, now)).toBe(0);
    expect(parseRetryAfter({ 'retry-after': '9'.repeat(400) }, now)).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseRetryAfter({ 'retry-after': 'Sunday, 01-Feb-26 00:00:00 GMT' }, now)).toBe(31 * 86_400_000);
  });

  it('doubles the backoff per attempt up to the maximum, with up to half of it random', () => {
    const base = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(a, { ...base, random: () => 0 }))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(a, { ...base, random: () => 0.999999 }))).toEqual([
      100, 200, 400, 800, 1000,
    ]);
  });

  it('adds /v1 to a base URL only when it has no version segment', () => {
    expect(joinApiUrl('https://api.deepseek.com', 'chat/completions')).toBe(
      'https://api.deepseek.com/v1/chat/completions',
    );
    expect(joinApiUrl('https://dashscope.aliyuncs.com/compatible-mode/v1/', 'chat/completions')).toBe(
      'https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions',
    );
    expect(joinApiUrl('http://localhost:11434/v1/chat/completions', 'chat/completions')).toBe(
      'http://localhost:11434/v1/chat/completions',
    );
  });
});
