import { describe, expect, it } from 'vitest';
import { LOOP_GUARD_CODES } from '../../src/runtime/guardrails/codes';
import { cappedCallIndexes, runCapRefusal } from '../../src/runtime/guardrails/run-caps';
import type { GuardCall } from '../../src/runtime/guardrails/types';

const call = (tool: string, input: unknown = {}): GuardCall => ({ tool, input, kind: 'internal' });

describe('per-run caps', () => {
  it('counts only the listed tools, and never polls', () => {
    const calls = [call('delegate'), call('search_tools'), call('delegate', { action: 'status' }), call('delegate')];
    const isPoll = (c: GuardCall) => (c.input as { action?: string }).action === 'status';
    expect(cappedCallIndexes(calls, ['delegate'], isPoll)).toEqual([0, 3]);
    expect(cappedCallIndexes(calls, [], isPoll)).toEqual([]);
  });

  it('refuses once the cap is spent, not before', () => {
    expect(runCapRefusal(3, 2, 'tool searches', LOOP_GUARD_CODES.searchCap)).toBeUndefined();
    expect(runCapRefusal(3, 3, 'tool searches', LOOP_GUARD_CODES.searchCap)).toEqual({
      code: LOOP_GUARD_CODES.searchCap,
      reason:
        'Refused: this run already used its 3 tool searches. Work with the results you have, or finish and report what is missing.',
      count: 3,
    });
    expect(runCapRefusal(3, 7, 'subagent launches', LOOP_GUARD_CODES.subagentCap)?.count).toBe(7);
  });

  it('a cap of 0 is no cap', () => {
    expect(runCapRefusal(0, 1_000, 'tool searches', LOOP_GUARD_CODES.searchCap)).toBeUndefined();
  });
});
