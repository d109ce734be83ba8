// What the loop guard says about a cycle found by detectCycle.
import { LOOP_GUARD_CODES } from './codes';
import type { GuardNotice } from './types';

/**
 * The notice for a cycle: a stop from `stopLaps` laps on in runs that stop, else a warning.
 * @param cycle - the cycle {@link detectCycle} found, or null
 * @param tool - the tool of the call that closed it
 * @param stopsRun - true in background and channel runs
 * @param stopLaps - `cycleStopLaps`
 * @returns the notice, or undefined without a cycle
 * @internal
 */
export function cycleNotice(
  cycle: { period: number; laps: number } | null,
  tool: string,
  stopsRun: boolean,
  stopLaps: number,
): GuardNotice | undefined {
  if (!cycle) return undefined;
  const stop = stopsRun && cycle.laps >= stopLaps;
  return {
    level: stop ? 'stop' : 'warn',
    code: LOOP_GUARD_CODES.cycle,
    count: cycle.laps,
    message: stop
      ? `Stopped: the same cycle of ${cycle.period} calls (ending with ${tool}) repeated ${cycle.laps} times with identical results. The run ends here.`
      : `The last ${cycle.laps * cycle.period} calls repeat the same cycle of ${cycle.period} calls (ending with ${tool}) with identical results. Repeating it is not progress: change the arguments, use another tool, or continue with what you have.`,
  };
}
