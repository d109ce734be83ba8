// Empty tool-call argument text: `{}` only for a tool that `{}` is valid for.
import { describe, expect, it } from 'vitest';
import { parseToolArguments } from '../../src/models/tools';
import type { ModelTool } from '../../src/models/types';

const tool = (inputSchema: Record<string, unknown>): ModelTool => ({ name: 't', description: '', inputSchema });

describe('parseToolArguments with empty text', () => {
  it('is {} for a tool without required fields (OpenAI-compatible "" for a call without arguments)', () => {
    expect(parseToolArguments('', tool({ type: 'object', properties: {} }), 't')).toEqual({ ok: true, input: {} });
    expect(parseToolArguments(' \n', tool({ type: 'object', properties: { path: { type: 'string' } } }), 't')).toEqual({
      ok: true,
      input: {},
    });
  });

  it('fails TOOL_ARGS_INVALID, naming the required fields, for a tool that requires some', () => {
    const r = parseToolArguments(
      '',
      tool({
        type: 'object',
        properties: { title: { type: 'string' }, year: { type: 'integer' } },
        required: ['title', 'year'],
      }),
      'download_submit',
    );
    expect(r).toMatchObject({ ok: false, failure: { code: 'TOOL_ARGS_INVALID' } });
    if (!r.ok) expect(r.failure.message).toMatch(/no arguments, and download_submit requires title, year/);
  });

  it('"{}" sent explicitly for such a tool keeps the schema message', () => {
    const r = parseToolArguments(
      '{}',
      tool({ type: 'object', properties: { title: { type: 'string' } }, required: ['title'] }),
      't',
    );
    expect(r).toMatchObject({ ok: false, failure: { code: 'TOOL_ARGS_INVALID' } });
    if (!r.ok) expect(r.failure.message).toMatch(/^arguments do not match the schema/);
  });
});
