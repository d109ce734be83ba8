// Scenario `recorded`: a trajectory exported from a stored run replays from the file alone — the SDK's replay drive
// with the recorded capabilities answering the recorded results, the recorded facts, steering and approvals — and
// the recorded oracle judges the replayed run's goal report.
import { replayRecordedRun } from '../../composition/replay-recorded-run';
import { parseFinalReport } from './final-report';
import { buildEvalRuntime } from './eval-runtime';
import { recordedAuthorizationStore } from './recorded-authorization';
import { judgeRecordedOutcome } from './recorded-oracle';
import { recordedDefinitions } from './recorded-registry';
import { recordedRunFromTrajectory } from './recorded-trajectory';
import type { EvalRunResult } from './run-scenario';
import type { AnyEvalScenario } from './scenario';
import { RECORDED_SCENARIO_ID } from './trajectory-recording';
import { EvalInputError, type Trajectory } from './trajectory';

/** Options of {@link replayRecordedTrajectory}. @public */
export interface ReplayRecordedTrajectoryOptions {
  /** The file name, for messages and the result's label. @defaultValue `trajectory` */
  source?: string;
  /** Real-time limit of the replay in ms. @defaultValue 30 000 */
  timeoutMs?: number;
  /**
   * Scenarios of `--scenarios` modules: the first one's host gives the current definitions (else the sandbox's
   * standard capabilities).
   */
  scenarios?: readonly AnyEvalScenario[];
}

/**
 * Replays a recorded trajectory (scenario `recorded`) without the host that made it: the current definitions of the
 * capabilities it called (the SDK's standard capabilities over the sandbox world; a recorded descriptor stands in for
 * one they lack), each answering the recorded results in order; the goal facts answering the recorded facts; the
 * recorded plans, grants and policy revisions put back; steering sent before the turn it preceded; approvals decided
 * as recorded. The recorded oracle judges the replayed run: `pass` when its goal report says `succeeded`, else
 * `fail` with `goal_failed`, `goal_waiting` or `run_failed`. No model is called and no real handler runs.
 * @param trajectory - a parsed trajectory of scenario `recorded`
 * @param options - source, time limit, scenarios
 * @returns the result (scenario `recorded`, seed 0, no events: the replay's store is gone)
 * @throws {@link EvalInputError} `EVAL_TRAJECTORY_INVALID` when the trajectory has no `recorded` part
 * @example
 * ```ts
 * const r = await replayRecordedTrajectory(parseTrajectory(readFileSync('run_7.json', 'utf8')));
 * r.verdict; // 'fail'
 * r.code; // 'goal_failed'
 * ```
 * @public
 */
export async function replayRecordedTrajectory(
  trajectory: Trajectory,
  options: ReplayRecordedTrajectoryOptions = {},
): Promise<EvalRunResult> {
  const source = options.source ?? 'trajectory';
  if (trajectory.scenario !== RECORDED_SCENARIO_ID || !trajectory.recorded)
    throw new EvalInputError('EVAL_TRAJECTORY_INVALID', `${source}: scenario "recorded" needs a "recorded" part`, {
      source,
    });
  const recorded = recordedRunFromTrajectory(trajectory);
  const runtime = await buildEvalRuntime(options.scenarios ?? []);
  const started = Date.now();
  try {
    const authorization = trajectory.recorded.authorization
      ? await recordedAuthorizationStore(trajectory.recorded.authorization)
      : undefined;
    const replay = await replayRecordedRun(recorded, {
      capabilities: recordedDefinitions(runtime.capabilities, trajectory.recorded.capabilities),
      ...(authorization ? { authorization } : {}),
      settings: runtime.settings,
      identity: runtime.identity,
      timeoutMs: options.timeoutMs ?? 30_000,
    });
    await authorization?.close();
    const run = replay.replayed;
    const failure = judgeRecordedOutcome({ status: run.status, report: replay.report, error: run.error });
    const notes = [
      ...(replay.missing.length > 0 ? [`capabilities missing: ${replay.missing.join(', ')}`] : []),
      ...(replay.unanswered > 0 ? [`${replay.unanswered} call(s) found no recorded result`] : []),
      ...(replay.stopped ? [`the replay was stopped (${replay.stopped})`] : []),
    ];
    return {
      scenario: RECORDED_SCENARIO_ID,
      seed: 0,
      label: source,
      verdict: failure ? 'fail' : 'pass',
      code: failure?.code ?? null,
      reason: failure ? [failure.reason, ...notes].join('; ') : null,
      runId: run.runId,
      runStatus: run.status,
      runError: run.error ? `${run.error.code}: ${run.error.message}` : null,
      toolCalls: replay.calls.length,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      durationMs: Date.now() - started,
      finalReport: parseFinalReport(run.finalText) as EvalRunResult['finalReport'],
      events: [],
    };
  } finally {
    await runtime.close();
  }
}
