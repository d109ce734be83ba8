// The loop guard's thresholds and tool lists, and their defaults.
/**
 * Thresholds and tool lists of the loop guard. Every number is a count of calls (or of laps for
 * cycles); `0` disables a per-run cap. Each number's default is given with it; the tool lists default to
 * the SDK's own tools (`search_tools`, `delegate`, `execute_code`, `read_tool_result`) and the poll
 * actions to `read`, `wait`, `status`, `list`.
 * @public
 */
export interface LoopGuardConfig {
  /** Same call (tool + canonical arguments) failed this many times: warn. Default 2. */
  sameCallFailWarnAt: number;
  /** Same call failed this many times: the next identical call is blocked (stopped in background/channel runs). Default 5. */
  sameCallFailBlockAt: number;
  /** One tool failed this many times (any arguments): warn. Default 3. */
  sameToolFailWarnAt: number;
  /** One tool failed this many times: background/channel runs stop (interactive runs keep warning). Default 8. */
  sameToolFailStopAt: number;
  /** A read-only call returned the same result this many times in a row: warn. Default 2. */
  sameResultWarnAt: number;
  /** A read-only call returned the same result this many times: the next identical call is blocked (stopped in background/channel runs). Default 5. */
  sameResultBlockAt: number;
  /** Identical calls with identical results in a row (a failure ends the streak; failures have their own rules): notice. Default 3. */
  identicalCallsNoticeAt: number;
  /** Identical calls with identical results in a row: background/channel runs stop (Hermes hard-stop threshold, 5). */
  identicalCallsStopAt: number;
  /** Shortest cycle period checked. Default 2. */
  cycleMinPeriod: number;
  /** Longest cycle period checked. Default 4. */
  cycleMaxPeriod: number;
  /**
   * Calls kept for cycle detection, and call signatures the same-call-failure and same-result rules
   * remember (the least recently seen is forgotten beyond it). Default 64.
   */
  cycleWindow: number;
  /** Laps of a cycle (e.g. A,B,A,B is 2 laps) that give a warning. Default 2. */
  cycleWarnLaps: number;
  /** Laps of a cycle at which background/channel runs stop (Hermes hard-stop threshold, 5). */
  cycleStopLaps: number;
  /** Per-run budget of tool searches, checked before a batch is dispatched; 0 disables. Default 50. */
  maxSearches: number;
  /** Per-run budget of subagent launches, checked before a batch is dispatched; 0 disables. Default 50. */
  maxSubagents: number;
  /** Tools counted against {@link LoopGuardConfig.maxSearches}. */
  searchTools: readonly string[];
  /** Tools counted against {@link LoopGuardConfig.maxSubagents} (poll actions excluded). */
  subagentTools: readonly string[];
  /** Tools allowed to fail repeatedly with different arguments (diagnostics): warned, never stopped by the same-tool rule. */
  failureTolerantTools: readonly string[];
  /** Tools whose every call is a poll (exempt from the identical-call, same-result and cycle rules). */
  pollingTools: readonly string[];
  /** Values of an `action` argument that make a call a poll. */
  pollingActions: readonly string[];
  /** `internal` tools treated as read-only for the same-result rule. */
  readOnlyTools: readonly string[];
  /** Continuation prompts per run for replies that announce an action but call no tool. Default 2. */
  maxContinuations: number;
  /**
   * Refused calls in a row (no call allowed in between) at which the run stops in every mode: a model
   * that keeps repeating what the guard refuses makes no progress, however the run is attended.
   * Interactive runs then wait for the user instead of failing. Default 5 (the Hermes hard-stop
   * threshold used by the other stop rules); 0 disables.
   */
  blockedCallsStopAt: number;
}

/**
 * The defaults, which follow the pinned Hermes agent thresholds.
 * @public
 */
export const DEFAULT_LOOP_GUARD_CONFIG: Readonly<LoopGuardConfig> = Object.freeze({
  sameCallFailWarnAt: 2,
  sameCallFailBlockAt: 5,
  sameToolFailWarnAt: 3,
  sameToolFailStopAt: 8,
  sameResultWarnAt: 2,
  sameResultBlockAt: 5,
  identicalCallsNoticeAt: 3,
  identicalCallsStopAt: 5,
  cycleMinPeriod: 2,
  cycleMaxPeriod: 4,
  cycleWindow: 64,
  cycleWarnLaps: 2,
  cycleStopLaps: 5,
  maxSearches: 50,
  maxSubagents: 50,
  searchTools: Object.freeze(['search_tools']),
  subagentTools: Object.freeze(['delegate']),
  failureTolerantTools: Object.freeze(['execute_code']),
  pollingTools: Object.freeze([]),
  pollingActions: Object.freeze(['read', 'wait', 'status', 'list']),
  readOnlyTools: Object.freeze(['search_tools', 'read_tool_result']),
  maxContinuations: 2,
  blockedCallsStopAt: 5,
});
