import { describe, expect, it } from 'vitest';
import { LOOP_GUARD_CODES } from '../../src/runtime/guardrails/codes';
import { refusalVerdict, stoppedVerdict } from '../../src/runtime/guardrails/guard-refusal';

const refusal = { code: LOOP_GUARD_CODES.sameResult, reason: 'Refused x.', count: 5 };

describe('refusal verdicts', () => {
  it('blocks the call in interactive runs, with the reason unchanged', () => {
    expect(refusalVerdict(refusal, false)).toEqual({ action: 'block', ...refusal });
  });

  it('stops runs that stop, saying so', () => {
    expect(refusalVerdict(refusal, true)).toEqual({
      action: 'stop',
      code: LOOP_GUARD_CODES.sameResult,
      reason: 'Refused x. The run is stopped.',
      count: 5,
    });
  });

  it('after a stop every call is refused with LOOP_STOPPED naming the first stop', () => {
    expect(stoppedVerdict({ code: LOOP_GUARD_CODES.cycle, count: 3 })).toEqual({
      action: 'stop',
      code: LOOP_GUARD_CODES.stopped,
      reason: 'Not run: the loop guard already stopped this run (LOOP_CYCLE).',
      count: 3,
    });
    expect(stoppedVerdict(null)).toMatchObject({ code: LOOP_GUARD_CODES.stopped, count: 0 });
    expect(stoppedVerdict(null).action === 'stop' && stoppedVerdict(null)).toMatchObject({
      reason: expect.stringContaining('(unknown)'),
    });
  });
});
