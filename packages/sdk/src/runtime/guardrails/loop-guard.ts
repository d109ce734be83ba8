import { blockedRepeatedlyNotice } from './blocked-calls';
import { callSignature, isPollingCall, resultFingerprint } from './call-signature';
import { isFailedOutcome, isReadOnlyCall, isWriteCall } from './call-kinds';
import { LOOP_GUARD_CODES, type LoopGuardCode } from './codes';
import { continuationVerdict, type ContinuationVerdict } from './continuation-verdict';
import { detectCycle } from './cycle';
import { cycleNotice } from './cycle-notice';
import { refusalVerdict, stoppedVerdict, type GuardRefusal } from './guard-refusal';
import { identicalCallsNotice, nextStreak } from './identical-calls';
import { DEFAULT_LOOP_GUARD_CONFIG, type LoopGuardConfig } from './loop-guard-config';
import { emptyLoopGuardState, parseLoopGuardState, type LoopGuardState } from './loop-guard-state';
import { rememberRecent } from './recent-record';
import { failureNotice, liveCallFailures, sameCallRefusal } from './repeated-failures';
import { cappedCallIndexes, runCapRefusal } from './run-caps';
import { resultRepeats, sameResultNotice, sameResultRefusal } from './same-results';
import type { GuardCall, GuardVerdict, GuardMode, GuardNotice, GuardOutcome } from './types';

export { DEFAULT_LOOP_GUARD_CONFIG, type LoopGuardConfig } from './loop-guard-config';
export { LoopGuardStateError, type LoopGuardState } from './loop-guard-state';
export type { ContinuationVerdict } from './continuation-verdict';

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
    this.#state = state ? structuredClone(state) : emptyLoopGuardState();
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
    if (this.#state.stopped) return calls.map(() => stoppedVerdict(this.#state.stopped));
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
      const indexes = cappedCallIndexes(calls, tools, (c) => this.#isPoll(c));
      if (indexes.length === 0) continue;
      const used = this.#state[field];
      const refusal = runCapRefusal(cap, used, what, code);
      if (refusal) {
        const verdict = this.#refuse(refusal);
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
    if (this.#state.stopped) return stoppedVerdict(this.#state.stopped);
    const sig = callSignature(call.tool, call.input);
    const failing = sameCallRefusal(call.tool, liveCallFailures(this.#state, sig), this.config.sameCallFailBlockAt);
    if (failing) return this.#refuse(failing);
    if (this.#isReadOnly(call) && !this.#isPoll(call)) {
      const repeats = this.#state.sameResults[sig]?.count ?? 0;
      const repeating = sameResultRefusal(call.tool, repeats, this.config.sameResultBlockAt);
      if (repeating) return this.#refuse(repeating);
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
    const failure = isFailedOutcome(outcome);
    const notices: GuardNotice[] = [];
    s.blockedInARow = 0;

    if (failure) {
      if (s.progressSinceFailure.includes(sig)) {
        s.progressSinceFailure = s.progressSinceFailure.filter((k) => k !== sig);
        delete s.sameCallFailures[sig];
      }
      const exact = (s.sameCallFailures[sig] ?? 0) + 1;
      const perTool = (s.toolFailures[call.tool] ?? 0) + 1;
      rememberRecent(s.sameCallFailures, sig, exact, c.cycleWindow);
      s.toolFailures[call.tool] = perTool;
      delete s.sameResults[sig];
      const tolerant = c.failureTolerantTools.includes(call.tool);
      const notice = failureNotice(call.tool, exact, perTool, { stopsRun: this.stopsRun, tolerant }, c);
      if (notice) notices.push(notice);
    } else if (outcome.status === 'succeeded') {
      delete s.sameCallFailures[sig];
      delete s.toolFailures[call.tool];
      s.progressSinceFailure = s.progressSinceFailure.filter((k) => k !== sig);
      if (isWriteCall(call)) {
        s.progressSinceFailure = Object.keys(s.sameCallFailures);
        s.toolFailures = {};
      }
      if (this.#isReadOnly(call) && !poll) {
        const count = resultRepeats(s.sameResults[sig], fingerprint);
        rememberRecent(s.sameResults, sig, { fingerprint, count }, c.cycleWindow);
        const notice = sameResultNotice(call.tool, count, c);
        if (notice) notices.push(notice);
      } else {
        delete s.sameResults[sig];
      }
    }

    const key = `${sig}\u0000${fingerprint}`;
    s.streak = nextStreak(s.streak, key, failure);
    s.history.push({ key, poll });
    if (s.history.length > c.cycleWindow) s.history.splice(0, s.history.length - c.cycleWindow);

    const repeated =
      identicalCallsNotice(call.tool, s.streak?.count ?? 0, poll, this.stopsRun, c) ??
      cycleNotice(
        detectCycle(s.history, c.cycleWarnLaps, c.cycleMinPeriod, c.cycleMaxPeriod),
        call.tool,
        this.stopsRun,
        c.cycleStopLaps,
      );
    if (repeated) notices.push(repeated);

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
    const verdict = continuationVerdict(text, calledTools, this.#state.continuations, this.config.maxContinuations);
    if (verdict.action === 'continue') this.#state.continuations = verdict.count;
    return verdict;
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
    if (s.stopped) return undefined;
    const notice = blockedRepeatedlyNotice(call.tool, s.blockedInARow, this.config.blockedCallsStopAt, this.stopsRun);
    if (notice) s.stopped = { code: notice.code, reason: notice.message, count: notice.count };
    return notice;
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
    return new LoopGuard(options, parseLoopGuardState(state));
  }

  #isPoll(call: GuardCall): boolean {
    return isPollingCall(call.tool, call.input, this.config.pollingTools, this.config.pollingActions);
  }

  #isReadOnly(call: GuardCall): boolean {
    return isReadOnlyCall(call, this.config.readOnlyTools);
  }

  /** The verdict for a refusal; a `stop` becomes the run's stop unless one is recorded. */
  #refuse(refusal: GuardRefusal): GuardVerdict {
    const verdict = refusalVerdict(refusal, this.stopsRun);
    if (verdict.action === 'stop')
      this.#state.stopped ??= { code: verdict.code, reason: verdict.reason, count: verdict.count };
    return verdict;
  }
}
