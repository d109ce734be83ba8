// The failure rules: the same call failing again, and one tool failing across arguments.
import { LOOP_GUARD_CODES } from './codes';
import type { GuardRefusal } from './guard-refusal';
import type { LoopGuardConfig } from './loop-guard-config';
import type { LoopGuardState } from './loop-guard-state';
import type { GuardNotice } from './types';

/**
 * Failures of a call signature that still count: none once a successful write made them stale
 * ("a new experiment"), else the stored count.
 * @param state - the guard's failure bookkeeping
 * @param signature - the call signature
 * @internal
 */
export function liveCallFailures(
  state: Pick<LoopGuardState, 'progressSinceFailure' | 'sameCallFailures'>,
  signature: string,
): number {
  return state.progressSinceFailure.includes(signature) ? 0 : (state.sameCallFailures[signature] ?? 0);
}

/**
 * The refusal of a call that failed `failures` times with identical arguments, from `blockAt` failures on.
 * @param tool - the tool
 * @param failures - live failures of the exact call (see {@link liveCallFailures})
 * @param blockAt - `sameCallFailBlockAt`
 * @internal
 */
export function sameCallRefusal(tool: string, failures: number, blockAt: number): GuardRefusal | undefined {
  if (failures < blockAt) return undefined;
  return {
    code: LOOP_GUARD_CODES.sameCallFailing,
    reason: `Refused ${tool}: this exact call failed ${failures} times. Do not retry it unchanged; change the arguments or the approach, or report the blocker.`,
    count: failures,
  };
}

/**
 * What to tell the model after a failure, first rule that applies: a stop when the tool failed
 * `sameToolFailStopAt` times in a run that stops (never for a failure-tolerant tool); a warning when
 * the exact call failed `sameCallFailWarnAt` times; a warning when the tool failed `sameToolFailWarnAt` times.
 * @param tool - the tool that failed
 * @param exact - failures of this exact call, this one included
 * @param perTool - failures of the tool, this one included
 * @param run - `stopsRun` (background and channel runs) and `tolerant` (the tool is in `failureTolerantTools`)
 * @param config - thresholds
 * @returns the notice, or undefined below every threshold
 * @internal
 */
export function failureNotice(
  tool: string,
  exact: number,
  perTool: number,
  run: { stopsRun: boolean; tolerant: boolean },
  config: Pick<
    LoopGuardConfig,
    'sameToolFailStopAt' | 'sameCallFailWarnAt' | 'sameCallFailBlockAt' | 'sameToolFailWarnAt'
  >,
): GuardNotice | undefined {
  if (run.stopsRun && !run.tolerant && perTool >= config.sameToolFailStopAt)
    return {
      level: 'stop',
      code: LOOP_GUARD_CODES.sameToolFailing,
      count: perTool,
      message: `Stopped: ${tool} failed ${perTool} times in this run. The run ends here; report what failed instead of retrying.`,
    };
  if (exact >= config.sameCallFailWarnAt)
    return {
      level: 'warn',
      code: LOOP_GUARD_CODES.sameCallFailing,
      count: exact,
      message: `${tool} failed ${exact} times with identical arguments. This looks like a loop: read the error and change the arguments or the approach; after ${config.sameCallFailBlockAt} failures the call is refused.`,
    };
  if (perTool >= config.sameToolFailWarnAt)
    return {
      level: 'warn',
      code: LOOP_GUARD_CODES.sameToolFailing,
      count: perTool,
      message: `${tool} failed ${perTool} times in this run. Change approach before calling it again.`,
    };
  return undefined;
}
