import { describe, expect, it } from 'vitest';
import { admitToolCall, runtimeCallId } from '../../src/runtime/tool-call-identity';

const end = (rawArguments: string, ok = true) =>
  ok
    ? ({
        type: 'tool_call_end',
        id: 'download_submit:0',
        name: 'download.submit',
        rawArguments,
        ok: true,
        input: JSON.parse(rawArguments),
      } as const)
    : ({
        type: 'tool_call_end',
        id: '',
        name: 'download.submit',
        rawArguments,
        ok: false,
        input: {},
        failure: { code: 'TOOL_ARGS_MALFORMED', message: 'bad' },
      } as const);

describe('tool-call identity rules', () => {
  it('names the n-th call of a turn after the turn prefix, in a form every provider accepts', () => {
    expect(runtimeCallId('call_12', 0)).toBe('call_12_0');
    expect(runtimeCallId('call_12', 3)).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  it('keeps the server id apart from the runtime id, and none when the server sent none', () => {
    expect(admitToolCall(end('{"title":"Dune"}'), 'call_4_0', 1024).part).toEqual({
      type: 'tool_call',
      id: 'call_4_0',
      providerId: 'download_submit:0',
      name: 'download.submit',
      input: { title: 'Dune' },
      rawArguments: '{"title":"Dune"}',
    });
    const failed = admitToolCall(end('{"ti', false), 'call_4_1', 1024);
    expect(failed.part).not.toHaveProperty('providerId');
    expect(failed.failure?.code).toBe('TOOL_ARGS_MALFORMED');
  });

  it('arguments over the byte limit (UTF-8 bytes, not characters) are dropped from the stored call and fail INPUT_TOO_LARGE', () => {
    const raw = JSON.stringify({ title: 'é'.repeat(600) }); // 1 200+ bytes, ~612 characters
    const admitted = admitToolCall(end(raw), 'call_1_0', 1024);
    expect(admitted.failure?.code).toBe('INPUT_TOO_LARGE');
    expect(admitted.part.input).toEqual({});
    expect(admitted.part.rawArguments!.length).toBeLessThan(64);
    expect(admitToolCall(end(raw), 'call_1_0', 4096).failure).toBeUndefined();
  });
});
