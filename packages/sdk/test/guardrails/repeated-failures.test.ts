import { describe, expect, it } from 'vitest';
import { LOOP_GUARD_CODES } from '../../src/runtime/guardrails/codes';
import { DEFAULT_LOOP_GUARD_CONFIG } from '../../src/runtime/guardrails/loop-guard-config';
import { failureNotice, liveCallFailures, sameCallRefusal } from '../../src/runtime/guardrails/repeated-failures';

const c = DEFAULT_LOOP_GUARD_CONFIG;
const stops = { stopsRun: true, tolerant: false };
const warns = { stopsRun: false, tolerant: false };

describe('repeated failures', () => {
  it('counts a signature’s failures unless a successful write made them stale', () => {
    const state = { sameCallFailures: { a: 3, b: 2 }, progressSinceFailure: ['b'] };
    expect(liveCallFailures(state, 'a')).toBe(3);
    expect(liveCallFailures(state, 'b')).toBe(0);
    expect(liveCallFailures(state, 'never')).toBe(0);
  });

  it('refuses the exact call from sameCallFailBlockAt failures on', () => {
    expect(sameCallRefusal('t', 4, 5)).toBeUndefined();
    expect(sameCallRefusal('t', 5, 5)).toMatchObject({ code: LOOP_GUARD_CODES.sameCallFailing, count: 5 });
    expect(sameCallRefusal('t', 5, 5)?.reason).toMatch(/^Refused t: this exact call failed 5 times\./);
  });

  it('says nothing below every threshold', () => {
    expect(failureNotice('t', 1, 1, stops, c)).toBeUndefined();
    expect(failureNotice('t', 1, c.sameToolFailWarnAt - 1, stops, c)).toBeUndefined();
  });

  it('warns for the same call first, then for the same tool', () => {
    expect(failureNotice('t', 2, 2, warns, c)).toMatchObject({
      level: 'warn',
      code: LOOP_GUARD_CODES.sameCallFailing,
      count: 2,
    });
    expect(failureNotice('t', 2, 2, warns, c)?.message).toContain(`after ${c.sameCallFailBlockAt} failures`);
    expect(failureNotice('t', 1, 3, warns, c)).toMatchObject({
      level: 'warn',
      code: LOOP_GUARD_CODES.sameToolFailing,
      count: 3,
    });
    expect(failureNotice('t', 2, 3, warns, c)?.code).toBe(LOOP_GUARD_CODES.sameCallFailing);
  });

  it('stops at sameToolFailStopAt only in runs that stop, and never for a tolerant tool', () => {
    expect(failureNotice('t', 1, 8, stops, c)).toMatchObject({
      level: 'stop',
      code: LOOP_GUARD_CODES.sameToolFailing,
      count: 8,
    });
    // the stop outranks the same-call warning
    expect(failureNotice('t', 4, 8, stops, c)?.level).toBe('stop');
    expect(failureNotice('t', 1, 8, warns, c)).toMatchObject({ level: 'warn', code: LOOP_GUARD_CODES.sameToolFailing });
    expect(failureNotice('t', 1, 8, { stopsRun: true, tolerant: true }, c)?.level).toBe('warn');
  });
});
