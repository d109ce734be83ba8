// The identical-calls rule: the same call with the same result, again and again in a row.
import { LOOP_GUARD_CODES } from './codes';
import type { LoopGuardConfig } from './loop-guard-config';
import type { GuardNotice } from './types';

/**
 * The streak after one more call: a failure ends it (failures have their own rules), the same key
 * (signature and result fingerprint) extends it, another key starts a new one.
 * @param streak - the streak so far
 * @param key - the call signature and result fingerprint of the call just recorded
 * @param failed - the call failed or was denied
 * @internal
 */
export function nextStreak(
  streak: { key: string; count: number } | null,
  key: string,
  failed: boolean,
): { key: string; count: number } | null {
  if (failed) return null;
  return streak && streak.key === key ? { key, count: streak.count + 1 } : { key, count: 1 };
}

/**
 * What to tell the model about a streak of `streak` identical calls: from `identicalCallsNoticeAt` on
 * a notice, from `identicalCallsStopAt` on a stop in runs that stop. Polls are never reported.
 * @param tool - the tool
 * @param streak - length of the streak
 * @param poll - the call is a poll
 * @param stopsRun - true in background and channel runs
 * @param config - thresholds
 * @returns the notice, or undefined when the rule does not apply (the cycle rule is checked then)
 * @internal
 */
export function identicalCallsNotice(
  tool: string,
  streak: number,
  poll: boolean,
  stopsRun: boolean,
  config: Pick<LoopGuardConfig, 'identicalCallsNoticeAt' | 'identicalCallsStopAt'>,
): GuardNotice | undefined {
  if (poll || streak < config.identicalCallsNoticeAt) return undefined;
  if (stopsRun && streak >= config.identicalCallsStopAt)
    return {
      level: 'stop',
      code: LOOP_GUARD_CODES.identicalCalls,
      count: streak,
      message: `Stopped: ${tool} was called ${streak} times in a row with identical arguments and the same result. The run ends here.`,
    };
  return {
    level: 'notice',
    code: LOOP_GUARD_CODES.identicalCalls,
    count: streak,
    message: `Note: this is call ${streak} in a row to ${tool} with identical arguments returning the same result. Do not repeat it: change the arguments, use another tool, or continue with what you have.`,
  };
}
