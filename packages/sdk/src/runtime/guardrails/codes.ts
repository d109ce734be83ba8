/**
 * Stable codes the loop guard puts on every block, stop, warning and notice. Programs and event consumers switch on these; the wording of messages may change.
 *
 * - `LOOP_SAME_CALL_FAILING` — the same call (tool + canonical arguments) failed again (warn at 2, block at 5).
 * - `LOOP_SAME_TOOL_FAILING` — one tool failed repeatedly across arguments (warn at 3, stop at 8).
 * - `LOOP_SAME_RESULT` — a read-only call returned the same result again (warn at 2, block at 5).
 * - `LOOP_IDENTICAL_CALLS` — identical calls with identical results in a row, failures excluded (notice at 3).
 * - `LOOP_CYCLE` — a repeating cycle of 2–4 calls with identical results within the last 64 calls.
 * - `LOOP_SEARCH_CAP` — the per-run `search_tools` budget (50) is spent.
 * - `LOOP_SUBAGENT_CAP` — the per-run subagent launch budget (50) is spent.
 * - `LOOP_BLOCKED_REPEATEDLY` — the model kept making calls the guard refused (5 in a row with no call
 *   allowed in between): the run stops in every mode (interactive runs wait for the user).
 * - `LOOP_STOPPED` — the run was already stopped by the guard; no further call is dispatched.
 *
 * @public
 */
export const LOOP_GUARD_CODES = {
  sameCallFailing: 'LOOP_SAME_CALL_FAILING',
  sameToolFailing: 'LOOP_SAME_TOOL_FAILING',
  sameResult: 'LOOP_SAME_RESULT',
  identicalCalls: 'LOOP_IDENTICAL_CALLS',
  cycle: 'LOOP_CYCLE',
  searchCap: 'LOOP_SEARCH_CAP',
  subagentCap: 'LOOP_SUBAGENT_CAP',
  blockedRepeatedly: 'LOOP_BLOCKED_REPEATEDLY',
  stopped: 'LOOP_STOPPED',
} as const;

/** One of the {@link LOOP_GUARD_CODES} values. @public */
export type LoopGuardCode = (typeof LOOP_GUARD_CODES)[keyof typeof LOOP_GUARD_CODES];
