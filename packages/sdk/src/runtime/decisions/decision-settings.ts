/**
 * Tells whether the subject a decision is about exists: a host's downloads, releases, tasks. Decisions about a
 * `run` are checked against the store without it.
 * @public
 */
export interface DecisionSubjects {
  /**
   * Whether the host knows the subject.
   * @param subject - `type` (`download`, `release`, `task` or a host-defined type) and `id`
   * @returns false for an unknown subject: the decision is refused with `DECISION_SUBJECT_NOT_FOUND`
   */
  exists(subject: { type: string; id: string }): Promise<boolean>;
}

/**
 * Options of decisions and their automatic investigation (`createAgentHost({ decisions })`); every field
 * optional. The run budgets and the poll interval come from `runs` (`budgets.maxDurationSec`, `goalPollSec`).
 * @public
 */
export interface DecisionOptions {
  /**
   * Start one bounded run for each new `identity_ambiguous`, `download_failed` or `download_stalled` decision
   * that is open and was not raised by a run.
   * @defaultValue false
   */
  autoInvestigate?: boolean;
  /**
   * `investigate`: a `plan_only` run with read capabilities that writes a conclusion and a suggestion and hands the
   * decision to a person. `recover`: an `execute` run (actor `system:auto-recover`) that may also call
   * `download.recheck`, `task.retry` and `identity.resolve` within standing grants; the system verifies the
   * recovery from business facts and closes the decision.
   * @defaultValue `investigate`
   */
  autoInvestigateMode?: 'investigate' | 'recover';
  /**
   * Tool calls of one investigation run.
   * @defaultValue 8
   */
  investigateMaxToolCalls?: number;
  /**
   * Decisions of one root cause (e.g. `download_failed:<downloadId>`) that may attempt an automatic recovery;
   * a later one goes to a person at once (`skipped: attempts_exhausted`).
   * @defaultValue 2
   */
  investigateMaxAttempts?: number;
  /**
   * Longest verification of a recovery, in seconds (facts are read every `min(runs.goalPollSec, 30)` s).
   * @defaultValue 600
   */
  recoverVerifySec?: number;
  /**
   * How long a choice waits, in milliseconds, for the execution of a simultaneous earlier choice of the same
   * decision (by this process or another on the same store) before it fails with `DECISION_IN_PROGRESS`.
   * @defaultValue 30000
   */
  choiceWaitMs?: number;
  /** Checks the subjects of raised decisions (default: only `run` subjects are checked). */
  subjects?: DecisionSubjects;
}

/** {@link DecisionOptions} with defaults applied. @public */
export interface ResolvedDecisionOptions {
  /** See {@link DecisionOptions.autoInvestigate}. */
  autoInvestigate: boolean;
  /** See {@link DecisionOptions.autoInvestigateMode}. */
  autoInvestigateMode: 'investigate' | 'recover';
  /** See {@link DecisionOptions.investigateMaxToolCalls}. */
  investigateMaxToolCalls: number;
  /** See {@link DecisionOptions.investigateMaxAttempts}. */
  investigateMaxAttempts: number;
  /** See {@link DecisionOptions.recoverVerifySec}. */
  recoverVerifySec: number;
  /** See {@link DecisionOptions.choiceWaitMs}. */
  choiceWaitMs: number;
  /** See {@link DecisionOptions.subjects}. */
  subjects: DecisionSubjects | undefined;
}

/** Default decision options. @public */
export const DEFAULT_DECISION_OPTIONS: Readonly<Omit<ResolvedDecisionOptions, 'subjects'>> = Object.freeze({
  autoInvestigate: false,
  autoInvestigateMode: 'investigate',
  investigateMaxToolCalls: 8,
  investigateMaxAttempts: 2,
  recoverVerifySec: 600,
  choiceWaitMs: 30_000,
});
