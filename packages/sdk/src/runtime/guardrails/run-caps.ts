// The per-run caps on tool searches and subagent launches.
import type { LoopGuardCode } from './codes';
import type { GuardRefusal } from './guard-refusal';
import type { GuardCall } from './types';

/**
 * Positions of the calls in a batch that count against a cap: calls of one of `tools` that are not polls.
 * @param calls - the batch in model order
 * @param tools - the tools the cap counts
 * @param isPoll - whether a call is a poll (polls never count)
 * @returns the indexes, ascending
 * @internal
 */
export function cappedCallIndexes(
  calls: readonly GuardCall[],
  tools: readonly string[],
  isPoll: (call: GuardCall) => boolean,
): number[] {
  return calls.flatMap((c, i) => (tools.includes(c.tool) && !isPoll(c) ? [i] : []));
}

/**
 * The refusal of a batch's counted calls once a per-run cap is spent: `cap > 0` and `used ≥ cap`.
 * A batch is let through whole while the cap is not spent, even when it goes past it.
 * @param cap - the cap (0 disables it)
 * @param used - calls counted so far in the run
 * @param what - what is counted, plural (`tool searches`)
 * @param code - the code of the cap
 * @returns the refusal (count `used`), or undefined when the calls may run
 * @internal
 */
export function runCapRefusal(cap: number, used: number, what: string, code: LoopGuardCode): GuardRefusal | undefined {
  if (!(cap > 0 && used >= cap)) return undefined;
  return {
    code,
    reason: `Refused: this run already used its ${cap} ${what}. Work with the results you have, or finish and report what is missing.`,
    count: used,
  };
}
