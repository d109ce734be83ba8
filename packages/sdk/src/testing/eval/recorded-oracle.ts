// The oracle of a recorded trajectory: the run's own verified goal report decides, never its model's words.
import type { OracleFailure } from './scenario';

/** Run statuses that end a run (a run in one of these without a goal report failed before it could be judged). */
const ENDED = new Set(['succeeded', 'failed', 'cancelled', 'budget_exceeded']);

/**
 * What the recorded oracle reads of a run: its status and its verified goal report (`status`, `summary`), as
 * stored or as replayed.
 * @public
 */
export interface RecordedOutcome {
  /** The run's status (`succeeded`, `failed`, `waiting` …). */
  status: string;
  /** Its verified goal report's status and summary, or null when it has none. */
  report: { status: string; summary: string } | null;
  /** Why the run failed (`code`, `message`), or null. */
  error?: { code: string; message: string } | null;
}

/**
 * The recorded oracle (scenario `recorded`): a run passes when its verified goal report says `succeeded`. Otherwise
 * it fails with a stable code:
 *
 * - `goal_failed`: the goal report says `failed`;
 * - `goal_waiting`: the goal report says `waiting` (what the run started is still moving), or the run has not ended
 *   and has no report yet;
 * - `run_failed`: the run ended (`failed`, `cancelled`, `budget_exceeded`) without a goal report.
 *
 * A pure function of the outcome: the same rule judges the stored run (`--export-trajectory` writes it as `expect`)
 * and the replayed one (`--replay`).
 * @param outcome - the run's status, report and error
 * @returns undefined for a pass, else the failure
 * @public
 */
export function judgeRecordedOutcome(outcome: RecordedOutcome): OracleFailure | undefined {
  const report = outcome.report;
  if (report?.status === 'succeeded') return undefined;
  if (report?.status === 'waiting')
    return { code: 'goal_waiting', reason: `the goal report says waiting: ${report.summary}` };
  if (report) return { code: 'goal_failed', reason: `the goal report says ${report.status}: ${report.summary}` };
  if (ENDED.has(outcome.status)) {
    const why = outcome.error ? ` (${outcome.error.code}: ${outcome.error.message})` : '';
    return { code: 'run_failed', reason: `the run ended ${outcome.status} without a goal report${why}` };
  }
  return { code: 'goal_waiting', reason: `the run is ${outcome.status} and has no goal report yet` };
}
