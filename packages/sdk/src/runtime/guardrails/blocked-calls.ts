// The refused-calls rule: a model that keeps making calls the guard refuses is stopped in every mode.
import { LOOP_GUARD_CODES } from './codes';
import type { GuardNotice } from './types';

/**
 * The stop after `inARow` refused calls in a row, from `limit` on (`limit` 0 disables the rule).
 * Interactive runs wait for the user; the message says so.
 * @param tool - the tool of the last refused call
 * @param inARow - refused calls in a row, the last one included
 * @param limit - `blockedCallsStopAt`
 * @param stopsRun - true in background and channel runs
 * @returns a `stop` notice with `LOOP_BLOCKED_REPEATEDLY`, or undefined below the limit
 * @internal
 */
export function blockedRepeatedlyNotice(
  tool: string,
  inARow: number,
  limit: number,
  stopsRun: boolean,
): GuardNotice | undefined {
  if (limit <= 0 || inARow < limit) return undefined;
  const message = `Stopped: ${inARow} calls in a row were refused (the last: ${tool}). Repeating refused calls is not progress; the run stops here${stopsRun ? '' : ' and waits for the user'}.`;
  return { level: 'stop', code: LOOP_GUARD_CODES.blockedRepeatedly, count: inARow, message };
}
