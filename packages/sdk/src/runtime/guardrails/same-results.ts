// The same-result rule: a read-only call that keeps returning the same result.
import { LOOP_GUARD_CODES } from './codes';
import type { GuardRefusal } from './guard-refusal';
import type { LoopGuardConfig } from './loop-guard-config';
import type { GuardNotice } from './types';

/**
 * How many times in a row a read-only call has now returned `fingerprint`: one more than before when
 * the previous result was the same, else 1.
 * @param previous - the call's last result fingerprint and its count, if any
 * @param fingerprint - the fingerprint of the result just seen
 * @internal
 */
export function resultRepeats(
  previous: { fingerprint: string; count: number } | undefined,
  fingerprint: string,
): number {
  return previous && previous.fingerprint === fingerprint ? previous.count + 1 : 1;
}

/**
 * The refusal of a read-only call that returned the same result `repeats` times, from `blockAt` on.
 * @param tool - the tool
 * @param repeats - times in a row it returned the same result
 * @param blockAt - `sameResultBlockAt`
 * @internal
 */
export function sameResultRefusal(tool: string, repeats: number, blockAt: number): GuardRefusal | undefined {
  if (repeats < blockAt) return undefined;
  return {
    code: LOOP_GUARD_CODES.sameResult,
    reason: `Refused ${tool}: this read-only call returned the same result ${repeats} times. Use the result you already have or change the query.`,
    count: repeats,
  };
}

/**
 * The warning after a read-only call returned the same result `count` times, from `sameResultWarnAt` on.
 * @param tool - the tool
 * @param count - times in a row (see {@link resultRepeats})
 * @param config - thresholds
 * @internal
 */
export function sameResultNotice(
  tool: string,
  count: number,
  config: Pick<LoopGuardConfig, 'sameResultWarnAt' | 'sameResultBlockAt'>,
): GuardNotice | undefined {
  if (count < config.sameResultWarnAt) return undefined;
  return {
    level: 'warn',
    code: LOOP_GUARD_CODES.sameResult,
    count,
    message: `${tool} returned the same result ${count} times. Use the result you already have or change the query; after ${config.sameResultBlockAt} repeats the call is refused.`,
  };
}
