import { describe, expect, it } from 'vitest';
import { blockedRepeatedlyNotice } from '../../src/runtime/guardrails/blocked-calls';
import { LOOP_GUARD_CODES } from '../../src/runtime/guardrails/codes';

describe('refused calls in a row', () => {
  it('stops at the limit, in every mode', () => {
    expect(blockedRepeatedlyNotice('t', 4, 5, true)).toBeUndefined();
    expect(blockedRepeatedlyNotice('t', 5, 5, true)).toMatchObject({
      level: 'stop',
      code: LOOP_GUARD_CODES.blockedRepeatedly,
      count: 5,
    });
    expect(blockedRepeatedlyNotice('t', 6, 5, false)?.level).toBe('stop');
  });

  it('tells an interactive run that it waits for the user', () => {
    expect(blockedRepeatedlyNotice('t', 5, 5, false)?.message).toMatch(/stops here and waits for the user\.$/);
    expect(blockedRepeatedlyNotice('t', 5, 5, true)?.message).toMatch(/stops here\.$/);
  });

  it('a limit of 0 or less disables the rule', () => {
    expect(blockedRepeatedlyNotice('t', 100, 0, true)).toBeUndefined();
    expect(blockedRepeatedlyNotice('t', 100, -1, true)).toBeUndefined();
  });
});
