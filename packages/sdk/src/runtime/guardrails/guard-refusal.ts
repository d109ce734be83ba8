// How a refusal becomes a verdict: a block in interactive runs, a stop in the others.
import { LOOP_GUARD_CODES, type LoopGuardCode } from './codes';
import type { GuardVerdict } from './types';

/**
 * A call a rule refuses: its code, the reason for the model and the count that tripped the rule.
 * @internal
 */
export interface GuardRefusal {
  /** Stable code of the rule. */
  code: LoopGuardCode;
  /** Text for the model. */
  reason: string;
  /** The count that tripped the rule. */
  count: number;
}

/**
 * The verdict for a refused call: `block` when the run only warns (interactive), else `stop` with
 * "The run is stopped." added to the reason.
 * @param refusal - what the rule refused
 * @param stopsRun - true in background and channel runs
 * @returns the verdict; the guard records a `stop` as the run's stop unless one is recorded already
 * @internal
 */
export function refusalVerdict(refusal: GuardRefusal, stopsRun: boolean): GuardVerdict {
  const { code, reason, count } = refusal;
  if (!stopsRun) return { action: 'block', code, reason, count };
  return { action: 'stop', code, reason: `${reason} The run is stopped.`, count };
}

/**
 * The verdict for any call after the guard stopped the run: `stop` with `LOOP_STOPPED`, naming the first stop's code.
 * @param stopped - the stop recorded on the run
 * @internal
 */
export function stoppedVerdict(stopped: { code: LoopGuardCode; count: number } | null): GuardVerdict {
  return {
    action: 'stop',
    code: LOOP_GUARD_CODES.stopped,
    reason: `Not run: the loop guard already stopped this run (${stopped?.code ?? 'unknown'}).`,
    count: stopped?.count ?? 0,
  };
}
