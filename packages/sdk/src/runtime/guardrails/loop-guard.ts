import { MediaAgentError } from '../../core/errors';
import { callSignature, isPollingCall, resultFingerprint } from './call-signature';
import { LOOP_GUARD_CODES, type LoopGuardCode } from './codes';
import { continuationPromptFor, needsContinuation } from './continuation';
import { detectCycle, type CycleEntry } from './cycle';
import type { GuardCall, GuardVerdict, GuardMode, GuardNotice, GuardOutcome } from './types';

/**
 * Thresholds and tool lists of the loop guard. Every number is a count of calls (or of laps for
 * cycles); `0` disables a per-run cap. Defaults: {@link DEFAULT_LOOP_GUARD_CONFIG}.
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

/**
 * Serializable state of a {@link LoopGuard}; store it on the run and restore it with
 * {@link LoopGuard.fromJSON} after a crash so counting continues where it stopped.
 * @public
 */
export interface LoopGuardState {
  /** State format version. */
  version: 1;
  /** Failures per call signature (the `cycleWindow` signatures that failed last). */
  sameCallFailures: Record<string, number>;
  /** Signatures whose failure count a successful write has since made stale ("a new experiment"). */
  progressSinceFailure: string[];
  /** Failures per tool. */
  toolFailures: Record<string, number>;
  /** Last result fingerprint and its repeat count per read-only call signature (the `cycleWindow` seen last). */
  sameResults: Record<string, { fingerprint: string; count: number }>;
  /** Current run of identical calls with identical results. */
  streak: { key: string; count: number } | null;
  /** Most recent calls (signature + result), oldest first, at most `cycleWindow`. */
  history: CycleEntry[];
  /** Tool searches dispatched this run. */
  searches: number;
  /** Subagent launches dispatched this run. */
  subagents: number;
  /** Continuation prompts given this run. */
  continuations: number;
  /** Set once the guard stopped the run. */
  stopped: { code: LoopGuardCode; reason: string; count: number } | null;
  /** Calls refused in a row since the last call that was allowed to run (absent in older states: 0). */
  blockedInARow?: number;
}

/**
 * Thrown by {@link LoopGuard.fromJSON} when the stored state is not a version-1 loop guard state.
 * Code `LOOP_GUARD_STATE_INVALID`.
 * @public
 */
export class LoopGuardStateError extends MediaAgentError {
  /** @param reason - what is wrong with the stored state */
  constructor(reason: string) {
    super('LOOP_GUARD_STATE_INVALID', `invalid loop guard state: ${reason}`, { reason });
  }
}

/**
 * Options of a {@link LoopGuard}.
 * @public
 */
export interface LoopGuardOptions {
  /** How the run is attended; see {@link GuardMode}. */
  mode: GuardMode;
  /** Overrides of {@link DEFAULT_LOOP_GUARD_CONFIG}. */
  config?: Partial<LoopGuardConfig>;
}

/**
 * What to do with a final reply (no tool calls) — see {@link LoopGuard.afterReply}.
 * - `none`: the reply is a normal answer; finish.
 * - `continue`: append `prompt` as a synthetic message (not archived as a user message, not a learning turn) and call the model again.
 * - `exhausted`: the reply announced an action but the prompts are spent; finish and mark the run partially complete.
 * @public
 */
export type ContinuationVerdict =
  | { action: 'none' }
  | { action: 'continue'; prompt: string; count: number }
  | { action: 'exhausted'; count: number };

/**
 * Per-run loop guard. Pure bookkeeping: it never runs a
 * tool and never changes an outcome; it tells the driver which calls to refuse, what to append to
 * results, and when the run must end.
 *
 * Driver protocol, per model turn with tool calls:
 * 1. `beforeBatch(calls)` — per-run caps (searches, subagents); refuse calls whose verdict is not `allow`.
 * 2. for each remaining call in model order: `before(call)`; on `allow` run it, then
 *    `after(call, outcome)` and append the notices to its result; on `block` answer with the reason
 *    and call `refused(call)` instead of `after` (a `stop` notice from it ends the run); on `stop`
 *    answer with the reason and end the run.
 * 3. if any notice has level `stop`, end the run after recording that result.
 * Without tool calls: `afterReply(text, false)`.
 *
 * Interactive runs warn and only refuse single calls; background and channel runs stop. In every
 * mode, a model that keeps making refused calls is stopped (`LOOP_BLOCKED_REPEATEDLY`).
 * @public
 */
export class LoopGuard {
  /** Effective configuration. */
  readonly config: Readonly<LoopGuardConfig>;
  /** Attendance mode of the run. */
  readonly mode: GuardMode;
  #state: LoopGuardState;

  /**
   * @param options - mode and configuration overrides
   * @param state - restored state (use {@link LoopGuard.fromJSON})
   */
  constructor(options: LoopGuardOptions, state?: LoopGuardState) {
    this.mode = options.mode;
    this.config = Object.freeze({ ...DEFAULT_LOOP_GUARD_CONFIG, ...options.config });
    this.#state = state ? structuredClone(state) : emptyState();
  }

  /** True when thresholds stop the run instead of warning (background and channel runs). */
  get stopsRun(): boolean {
    return this.mode !== 'interactive';
  }

  /** The stop the guard issued, or null while the run may continue. */
  get stopped(): { code: LoopGuardCode; reason: string; count: number } | null {
    return this.#state.stopped ? { ...this.#state.stopped } : null;
  }

  /**
   * Checks the per-run caps for one model turn before any of its calls is dispatched.
   * Counts the allowed calls.
   *
   * @param calls - the turn's calls in model order
   * @returns one verdict per call, same order: `allow`, or `block`/`stop` with `LOOP_SEARCH_CAP` / `LOOP_SUBAGENT_CAP`
   */
  beforeBatch(calls: readonly GuardCall[]): GuardVerdict[] {
    if (this.#state.stopped) return calls.map(() => this.#stoppedVerdict());
    const verdicts: GuardVerdict[] = calls.map(() => ({ action: 'allow' }));
    const caps = [
      {
        tools: this.config.searchTools,
        cap: this.config.maxSearches,
        field: 'searches' as const,
        code: LOOP_GUARD_CODES.searchCap,
        what: 'tool searches',
      },
      {
        tools: this.config.subagentTools,
        cap: this.config.maxSubagents,
        field: 'subagents' as const,
        code: LOOP_GUARD_CODES.subagentCap,
        what: 'subagent launches',
      },
    ];
    for (const { tools, cap, field, code, what } of caps) {
      const indexes = calls.flatMap((c, i) => (tools.includes(c.tool) && !this.#isPoll(c) ? [i] : []));
      if (indexes.length === 0) continue;
      const used = this.#state[field];
      if (cap > 0 && used >= cap) {
        const reason = `Refused: this run already used its ${cap} ${what}. Work with the results you have, or finish and report what is missing.`;
        const verdict = this.#refuse(code, reason, used);
        for (const i of indexes) verdicts[i] = verdict;
      } else {
        this.#state[field] = used + indexes.length;
      }
    }
    return verdicts;
  }

  /**
   * Decides whether one call may run.
   *
   * @param call - the call about to run
   * @returns `allow`; `block` (interactive) or `stop` (background/channel) with `LOOP_SAME_CALL_FAILING` / `LOOP_SAME_RESULT`; `stop` with `LOOP_STOPPED` after a stop
   */
  before(call: GuardCall): GuardVerdict {
    if (this.#state.stopped) return this.#stoppedVerdict();
    const sig = callSignature(call.tool, call.input);
    const failures = this.#state.progressSinceFailure.includes(sig) ? 0 : (this.#state.sameCallFailures[sig] ?? 0);
    if (failures >= this.config.sameCallFailBlockAt) {
      return this.#refuse(
        LOOP_GUARD_CODES.sameCallFailing,
        `Refused ${call.tool}: this exact call failed ${failures} times. Do not retry it unchanged; change the arguments or the approach, or report the blocker.`,
        failures,
      );
    }
    if (this.#isReadOnly(call) && !this.#isPoll(call)) {
      const repeats = this.#state.sameResults[sig]?.count ?? 0;
      if (repeats >= this.config.sameResultBlockAt) {
        return this.#refuse(
          LOOP_GUARD_CODES.sameResult,
          `Refused ${call.tool}: this read-only call returned the same result ${repeats} times. Use the result you already have or change the query.`,
          repeats,
        );
      }
    }
    return { action: 'allow' };
  }

  /**
   * Records a call that ran and returns what to tell the model about it. Failures (`failed`,
   * `denied`) count per call and per tool; a success clears the call's and the tool's failure
   * counts, and a successful write makes every earlier failure count stale. `pending` and `unknown` count as neither.
   *
   * @param call - the call as passed to {@link LoopGuard.before}
   * @param outcome - its status and result text (never modified)
   * @returns notices to append to the result; a `stop` notice means the run must end
   */
  after(call: GuardCall, outcome: GuardOutcome): GuardNotice[] {
    const s = this.#state;
    const c = this.config;
    const sig = callSignature(call.tool, call.input);
    const fingerprint = resultFingerprint(outcome);
    const poll = this.#isPoll(call);
    const notices: GuardNotice[] = [];
    s.blockedInARow = 0;

    if (outcome.status === 'failed' || outcome.status === 'denied') {
      if (s.progressSinceFailure.includes(sig)) {
        s.progressSinceFailure = s.progressSinceFailure.filter((k) => k !== sig);
        delete s.sameCallFailures[sig];
      }
      const exact = (s.sameCallFailures[sig] ?? 0) + 1;
      const perTool = (s.toolFailures[call.tool] ?? 0) + 1;
      remember(s.sameCallFailures, sig, exact, c.cycleWindow);
      s.toolFailures[call.tool] = perTool;
      delete s.sameResults[sig];
      const tolerant = c.failureTolerantTools.includes(call.tool);
      if (this.stopsRun && !tolerant && perTool >= c.sameToolFailStopAt) {
        notices.push({
          level: 'stop',
          code: LOOP_GUARD_CODES.sameToolFailing,
          count: perTool,
          message: `Stopped: ${call.tool} failed ${perTool} times in this run. The run ends here; report what failed instead of retrying.`,
        });
      } else if (exact >= c.sameCallFailWarnAt) {
        notices.push({
          level: 'warn',
          code: LOOP_GUARD_CODES.sameCallFailing,
          count: exact,
          message: `${call.tool} failed ${exact} times with identical arguments. This looks like a loop: read the error and change the arguments or the approach; after ${c.sameCallFailBlockAt} failures the call is refused.`,
        });
      } else if (perTool >= c.sameToolFailWarnAt) {
        notices.push({
          level: 'warn',
          code: LOOP_GUARD_CODES.sameToolFailing,
          count: perTool,
          message: `${call.tool} failed ${perTool} times in this run. Change approach before calling it again.`,
        });
      }
    } else if (outcome.status === 'succeeded') {
      delete s.sameCallFailures[sig];
      delete s.toolFailures[call.tool];
      s.progressSinceFailure = s.progressSinceFailure.filter((k) => k !== sig);
      if (isWrite(call)) {
        s.progressSinceFailure = Object.keys(s.sameCallFailures);
        s.toolFailures = {};
      }
      if (this.#isReadOnly(call) && !poll) {
        const previous = s.sameResults[sig];
        const count = previous && previous.fingerprint === fingerprint ? previous.count + 1 : 1;
        remember(s.sameResults, sig, { fingerprint, count }, c.cycleWindow);
        if (count >= c.sameResultWarnAt) {
          notices.push({
            level: 'warn',
            code: LOOP_GUARD_CODES.sameResult,
            count,
            message: `${call.tool} returned the same result ${count} times. Use the result you already have or change the query; after ${c.sameResultBlockAt} repeats the call is refused.`,
          });
        }
      } else {
        delete s.sameResults[sig];
      }
    }

    // Failures have their own thresholds; they end an identical-call streak instead of extending it.
    const key = `${sig}\u0000${fingerprint}`;
    const failure = outcome.status === 'failed' || outcome.status === 'denied';
    s.streak = failure
      ? null
      : s.streak && s.streak.key === key
        ? { key, count: s.streak.count + 1 }
        : { key, count: 1 };
    s.history.push({ key, poll });
    if (s.history.length > c.cycleWindow) s.history.splice(0, s.history.length - c.cycleWindow);

    const streak = s.streak?.count ?? 0;
    if (!poll && streak >= c.identicalCallsNoticeAt) {
      if (this.stopsRun && streak >= c.identicalCallsStopAt) {
        notices.push({
          level: 'stop',
          code: LOOP_GUARD_CODES.identicalCalls,
          count: streak,
          message: `Stopped: ${call.tool} was called ${streak} times in a row with identical arguments and the same result. The run ends here.`,
        });
      } else {
        notices.push({
          level: 'notice',
          code: LOOP_GUARD_CODES.identicalCalls,
          count: streak,
          message: `Note: this is call ${streak} in a row to ${call.tool} with identical arguments returning the same result. Do not repeat it: change the arguments, use another tool, or continue with what you have.`,
        });
      }
    } else {
      const cycle = detectCycle(s.history, c.cycleWarnLaps, c.cycleMinPeriod, c.cycleMaxPeriod);
      if (cycle) {
        const stop = this.stopsRun && cycle.laps >= c.cycleStopLaps;
        notices.push({
          level: stop ? 'stop' : 'warn',
          code: LOOP_GUARD_CODES.cycle,
          count: cycle.laps,
          message: stop
            ? `Stopped: the same cycle of ${cycle.period} calls (ending with ${call.tool}) repeated ${cycle.laps} times with identical results. The run ends here.`
            : `The last ${cycle.laps * cycle.period} calls repeat the same cycle of ${cycle.period} calls (ending with ${call.tool}) with identical results. Repeating it is not progress: change the arguments, use another tool, or continue with what you have.`,
        });
      }
    }

    const stop = notices.find((n) => n.level === 'stop');
    if (stop && !s.stopped) s.stopped = { code: stop.code, reason: stop.message, count: stop.count };
    return notices;
  }

  /**
   * Decides what to do with a model reply that ends the turn. Counts the prompts given.
   *
   * @param text - the reply text
   * @param calledTools - whether the reply also called tools
   * @returns see {@link ContinuationVerdict}
   */
  afterReply(text: string, calledTools: boolean): ContinuationVerdict {
    if (!needsContinuation(text, calledTools)) return { action: 'none' };
    if (this.#state.continuations >= this.config.maxContinuations)
      return { action: 'exhausted', count: this.#state.continuations };
    this.#state.continuations += 1;
    return { action: 'continue', prompt: continuationPromptFor(text), count: this.#state.continuations };
  }

  /**
   * Records a call the driver refused because of a `block` verdict (it did not run). After
   * {@link LoopGuardConfig.blockedCallsStopAt} refusals in a row the guard stops the run, whatever its
   * mode: the returned notice has level `stop` and code `LOOP_BLOCKED_REPEATEDLY`.
   *
   * @param call - the refused call
   * @returns a `stop` notice when the threshold is reached, else undefined
   */
  refused(call: GuardCall): GuardNotice | undefined {
    const s = this.#state;
    s.blockedInARow = (s.blockedInARow ?? 0) + 1;
    const limit = this.config.blockedCallsStopAt;
    if (limit <= 0 || s.blockedInARow < limit || s.stopped) return undefined;
    const message = `Stopped: ${s.blockedInARow} calls in a row were refused (the last: ${call.tool}). Repeating refused calls is not progress; the run stops here${this.stopsRun ? '' : ' and waits for the user'}.`;
    s.stopped = { code: LOOP_GUARD_CODES.blockedRepeatedly, reason: message, count: s.blockedInARow };
    return { level: 'stop', code: LOOP_GUARD_CODES.blockedRepeatedly, count: s.blockedInARow, message };
  }

  /**
   * Lifts a stop when a person answers: a user message that wakes a run the guard stopped starts a
   * new attempt (failure and repeat counts are kept, so a repeated loop is refused again quickly).
   */
  resume(): void {
    this.#state.stopped = null;
    this.#state.blockedInARow = 0;
  }

  /**
   * The state as it is now — not a copy: it changes as the guard records calls. For writing it out
   * at once (the run loop saves it with each step, serialized when the step commits); use
   * {@link LoopGuard.toJSON} for a snapshot to keep.
   */
  get liveState(): Readonly<LoopGuardState> {
    return this.#state;
  }

  /** A deep copy of the state for storage on the run (JSON-safe). */
  toJSON(): LoopGuardState {
    return structuredClone(this.#state);
  }

  /**
   * Restores a guard from {@link LoopGuard.toJSON} output (e.g. after a crash resume).
   *
   * @param state - the stored state (parsed JSON)
   * @param options - mode and configuration of the run
   * @throws {@link LoopGuardStateError} when `state` is not a version-1 state
   */
  static fromJSON(state: unknown, options: LoopGuardOptions): LoopGuard {
    return new LoopGuard(options, parseState(state));
  }

  #isPoll(call: GuardCall): boolean {
    return isPollingCall(call.tool, call.input, this.config.pollingTools, this.config.pollingActions);
  }

  #isReadOnly(call: GuardCall): boolean {
    return (
      call.kind === 'read' ||
      call.kind === 'preview' ||
      (call.kind === 'internal' && this.config.readOnlyTools.includes(call.tool))
    );
  }

  #refuse(code: LoopGuardCode, reason: string, count: number): GuardVerdict {
    if (!this.stopsRun) return { action: 'block', code, reason, count };
    const stopReason = `${reason} The run is stopped.`;
    this.#state.stopped ??= { code, reason: stopReason, count };
    return { action: 'stop', code, reason: stopReason, count };
  }

  #stoppedVerdict(): GuardVerdict {
    const stopped = this.#state.stopped;
    return {
      action: 'stop',
      code: LOOP_GUARD_CODES.stopped,
      reason: `Not run: the loop guard already stopped this run (${stopped?.code ?? 'unknown'}).`,
      count: stopped?.count ?? 0,
    };
  }
}

function isWrite(call: GuardCall): boolean {
  return call.kind === 'propose' || call.kind === 'approve' || call.kind === 'execute';
}

function emptyState(): LoopGuardState {
  return {
    version: 1,
    sameCallFailures: {},
    progressSinceFailure: [],
    toolFailures: {},
    sameResults: {},
    streak: null,
    history: [],
    searches: 0,
    subagents: 0,
    continuations: 0,
    stopped: null,
    blockedInARow: 0,
  };
}

function parseState(value: unknown): LoopGuardState {
  if (!isRecord(value)) throw new LoopGuardStateError('not an object');
  if (value.version !== 1) throw new LoopGuardStateError(`unsupported version ${String(value.version)}`);
  const counts = (name: string): Record<string, number> => {
    const v = value[name];
    if (!isRecord(v) || !Object.values(v).every(isCount))
      throw new LoopGuardStateError(`${name} must map keys to counts`);
    return { ...(v as Record<string, number>) };
  };
  const count = (name: string): number => {
    const v = value[name];
    if (!isCount(v)) throw new LoopGuardStateError(`${name} must be a non-negative integer`);
    return v;
  };
  const progress = value.progressSinceFailure;
  if (!Array.isArray(progress) || !progress.every((k) => typeof k === 'string'))
    throw new LoopGuardStateError('progressSinceFailure must be a string array');
  const sameResults = value.sameResults;
  if (
    !isRecord(sameResults) ||
    !Object.values(sameResults).every((r) => isRecord(r) && typeof r.fingerprint === 'string' && isCount(r.count))
  )
    throw new LoopGuardStateError('sameResults must map keys to { fingerprint, count }');
  const streak = value.streak;
  if (streak !== null && !(isRecord(streak) && typeof streak.key === 'string' && isCount(streak.count)))
    throw new LoopGuardStateError('streak must be null or { key, count }');
  const history = value.history;
  if (
    !Array.isArray(history) ||
    !history.every((e) => isRecord(e) && typeof e.key === 'string' && typeof e.poll === 'boolean')
  )
    throw new LoopGuardStateError('history must be an array of { key, poll }');
  const stopped = value.stopped;
  const codes: readonly string[] = Object.values(LOOP_GUARD_CODES);
  if (
    stopped !== null &&
    !(
      isRecord(stopped) &&
      typeof stopped.code === 'string' &&
      codes.includes(stopped.code) &&
      typeof stopped.reason === 'string' &&
      isCount(stopped.count)
    )
  )
    throw new LoopGuardStateError('stopped must be null or { code, reason, count }');
  return {
    version: 1,
    sameCallFailures: counts('sameCallFailures'),
    progressSinceFailure: [...(progress as string[])],
    toolFailures: counts('toolFailures'),
    sameResults: structuredClone(sameResults as LoopGuardState['sameResults']),
    streak: streak === null ? null : { ...(streak as { key: string; count: number }) },
    history: (history as CycleEntry[]).map((e) => ({ key: e.key, poll: e.poll })),
    searches: count('searches'),
    subagents: count('subagents'),
    continuations: count('continuations'),
    stopped: stopped === null ? null : { ...(stopped as NonNullable<LoopGuardState['stopped']>) },
    blockedInARow: value.blockedInARow === undefined ? 0 : count('blockedInARow'),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/**
 * Sets `record[key]` as the most recently seen entry (last in key order) and forgets the least
 * recently seen ones beyond `max`, so what a run stores stays bounded however many distinct calls it makes.
 */
function remember<T>(record: Record<string, T>, key: string, value: T, max: number): void {
  delete record[key];
  record[key] = value;
  let excess = Object.keys(record).length - Math.max(1, max);
  if (excess <= 0) return;
  for (const old of Object.keys(record)) {
    if (excess-- <= 0) break;
    delete record[old];
  }
}
