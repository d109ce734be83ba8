import { describe, expect, it } from 'vitest';
import { LOOP_GUARD_CODES } from '../../src/runtime/guardrails/codes';
import { identicalCallsNotice, nextStreak } from '../../src/runtime/guardrails/identical-calls';

const config = { identicalCallsNoticeAt: 3, identicalCallsStopAt: 5 };

describe('identical calls', () => {
  it('extends a streak of the same key, restarts at another, and a failure ends it', () => {
    expect(nextStreak(null, 'a', false)).toEqual({ key: 'a', count: 1 });
    expect(nextStreak({ key: 'a', count: 2 }, 'a', false)).toEqual({ key: 'a', count: 3 });
    expect(nextStreak({ key: 'a', count: 2 }, 'b', false)).toEqual({ key: 'b', count: 1 });
    expect(nextStreak({ key: 'a', count: 2 }, 'a', true)).toBeNull();
  });

  it('gives a notice from identicalCallsNoticeAt, a stop from identicalCallsStopAt in runs that stop', () => {
    expect(identicalCallsNotice('t', 2, false, true, config)).toBeUndefined();
    expect(identicalCallsNotice('t', 3, false, true, config)).toMatchObject({
      level: 'notice',
      code: LOOP_GUARD_CODES.identicalCalls,
      count: 3,
    });
    expect(identicalCallsNotice('t', 5, false, true, config)).toMatchObject({ level: 'stop', count: 5 });
    expect(identicalCallsNotice('t', 9, false, false, config)).toMatchObject({ level: 'notice', count: 9 });
  });

  it('never reports polls', () => {
    expect(identicalCallsNotice('t', 50, true, true, config)).toBeUndefined();
  });
});
