import { describe, expect, it } from 'vitest';
import { LOOP_GUARD_CODES } from '../../src/runtime/guardrails/codes';
import { cycleNotice } from '../../src/runtime/guardrails/cycle-notice';

describe('cycle notice', () => {
  it('says nothing without a cycle', () => {
    expect(cycleNotice(null, 't', true, 5)).toBeUndefined();
  });

  it('warns, quoting the calls in the repeated laps', () => {
    const n = cycleNotice({ period: 2, laps: 3 }, 'search', true, 5);
    expect(n).toMatchObject({ level: 'warn', code: LOOP_GUARD_CODES.cycle, count: 3 });
    expect(n?.message).toMatch(/^The last 6 calls repeat the same cycle of 2 calls \(ending with search\)/);
  });

  it('stops from stopLaps laps on, only in runs that stop', () => {
    expect(cycleNotice({ period: 3, laps: 5 }, 't', true, 5)?.level).toBe('stop');
    expect(cycleNotice({ period: 3, laps: 4 }, 't', true, 5)?.level).toBe('warn');
    expect(cycleNotice({ period: 3, laps: 9 }, 't', false, 5)?.level).toBe('warn');
  });
});
