// A stored run as a trajectory file and back: the scripted turns, the final replies and the subagents in the
// trajectory's own fields, everything else the run saw in its `recorded` part. Pure conversions, no I/O.
import type { JsonValue } from '../../core/records';
import type { RunMode, RunOrigin, RunStatus } from '../../core/run-records';
import type { GoalFactsSnapshot } from '../../runtime/goal-facts';
import type { PriorEffect } from '../../capabilities/invocation';
import type { RecordedCall, RecordedCapability, RecordedRun, RecordedTurn } from '../../runtime/replay/recorded-run';
import type { RecordedAuthorization } from './recorded-authorization';
import { judgeRecordedOutcome } from './recorded-oracle';
import { trajectoryCalls, type Trajectory, type TrajectoryTurn } from './trajectory';
import {
  RECORDED_SCENARIO_ID,
  type TrajectoryRecordedCapability,
  type TrajectoryRecordedResult,
} from './trajectory-recording';

/**
 * The verdict the recorded oracle gives a run (`expect` of an exported trajectory): `pass`, or `fail` with
 * `goal_failed`, `goal_waiting` or `run_failed`.
 * @param run - the run's status, goal report and error (a `RecordedRun` has them)
 * @returns the verdict and code
 * @public
 */
export function recordedExpectation(
  run: Pick<RecordedRun, 'status' | 'report' | 'error'>,
): NonNullable<Trajectory['expect']> {
  const failure = judgeRecordedOutcome(run);
  return failure ? { verdict: 'fail', code: failure.code } : { verdict: 'pass' };
}

const turnOf = (t: RecordedTurn): TrajectoryTurn => ({
  ...(t.text !== undefined ? { text: t.text } : {}),
  calls: t.calls.map((c) => ({ capability: c.capability, input: c.input as Record<string, unknown> })),
});

/** The identifiers of a call in the original run, when it had them. */
const IDS = ['callId', 'idempotencyKey', 'invocationId'] as const;

const idsOf = (c: object): Partial<Record<(typeof IDS)[number], string>> =>
  Object.fromEntries(
    IDS.filter((k) => typeof (c as Record<string, unknown>)[k] === 'string').map((k) => [
      k,
      (c as Record<string, string>)[k],
    ]),
  );

const resultOf = (c: RecordedCall): TrajectoryRecordedResult => ({
  capability: c.capability,
  input: c.input,
  status: c.status,
  ...(c.output !== undefined ? { output: c.output } : {}),
  ...(c.error ? { error: { code: c.error.code, message: c.error.message } } : {}),
  ...idsOf(c),
});

/**
 * A stored run as a trajectory (scenario `recorded`): its model turns, final reply and subagents as the scripted
 * model plays them, and a `recorded` part with what it saw (capabilities, results, plans, facts, steering,
 * approvals, the original run). `expect` is the verdict the recorded oracle gives the stored run.
 * @param recorded - the run, as `readRecordedRun` reads it
 * @param options - `description`: free text for people (default: the run's id and goal); `authorization`: the
 *   store's grants, policy revisions and automation settings (`readRecordedAuthorization`)
 * @returns the trajectory (not yet checked against the bounds: `parseTrajectory` of its JSON does that)
 * @example
 * ```ts
 * const trajectory = trajectoryFromRecordedRun(await readRecordedRun(storage, runId, { capabilities }));
 * writeFileSync('run.json', `${JSON.stringify(trajectory, null, 2)}\n`);
 * ```
 * @public
 */
export function trajectoryFromRecordedRun(
  recorded: RecordedRun,
  options: { description?: string; authorization?: RecordedAuthorization } = {},
): Trajectory {
  const calls = [recorded.turns, ...recorded.subagents.map((s) => s.turns)].flatMap((turns) =>
    turns.flatMap((t) => t.calls),
  );
  return {
    scenario: RECORDED_SCENARIO_ID,
    description: options.description ?? `run ${recorded.runId}: ${firstLine(recorded.goal)}`,
    expect: recordedExpectation(recorded),
    turns: recorded.turns.map(turnOf),
    ...(recorded.finalText !== null ? { finalText: recorded.finalText } : {}),
    ...(recorded.subagents.length > 0
      ? {
          subagents: recorded.subagents.map((s) => ({
            match: s.goal,
            turns: s.turns.map(turnOf),
            ...(s.finalText !== null ? { finalText: s.finalText } : {}),
          })),
        }
      : {}),
    recorded: {
      run: {
        id: recorded.runId,
        goal: recorded.goal,
        mode: recorded.mode,
        origin: recorded.origin,
        startedBy: recorded.startedBy,
        createdAt: recorded.createdAt,
        status: recorded.status,
        error: recorded.error,
        report: recorded.report,
        capabilityAllowlist: recorded.capabilityAllowlist,
        budgets: recorded.budgets,
        sessionId: recorded.sessionId,
        ...(recorded.step !== undefined ? { step: recorded.step } : {}),
        ...(recorded.forkLineage && recorded.forkLineage.length > 0
          ? { forkLineage: recorded.forkLineage.map((e) => ({ ...e })) }
          : {}),
      },
      capabilities: recorded.capabilities.map((c) => toJson(c) as unknown as TrajectoryRecordedCapability),
      results: calls.map(resultOf),
      plans: recorded.plans,
      facts: recorded.facts as unknown as JsonValue | null,
      steering: recorded.steering.map((s) => ({ beforeTurn: s.beforeTurn, text: s.text, actor: s.actor })),
      approvals: recorded.approvals.map((a) => ({ ...a })),
      subagents: recorded.subagents.map((s) => ({ runId: s.runId })),
      ...(options.authorization ? { authorization: options.authorization } : {}),
    },
  };
}

/**
 * The run a recorded trajectory describes, as a replay plays it: the inverse of {@link trajectoryFromRecordedRun}
 * (each call of the turns gets the result at its position in `recorded.results`).
 * @param trajectory - a parsed trajectory of scenario `recorded` (`parseTrajectory` checked its `recorded` part)
 * @returns the recorded run
 * @public
 */
export function recordedRunFromTrajectory(trajectory: Trajectory): RecordedRun {
  const r = trajectory.recorded!;
  const results = r.results;
  let next = 0;
  const turnsOf = (turns: TrajectoryTurn[]): RecordedTurn[] =>
    turns.map((t) => ({
      ...(t.text !== undefined ? { text: t.text } : {}),
      calls: t.calls.map((c) => callOf(c.capability, (c.input ?? {}) as JsonValue, results[next++]!)),
    }));
  const turns = turnsOf(trajectory.turns);
  const subagents = (trajectory.subagents ?? []).map((s, i) => ({
    goal: s.match,
    turns: turnsOf(s.turns),
    finalText: s.finalText ?? null,
    runId: r.subagents?.[i]?.runId ?? `${r.run.id}-subagent-${i + 1}`,
  }));
  if (next !== trajectoryCalls(trajectory).length) throw new Error('recorded results out of step with the calls');
  return {
    runId: r.run.id,
    goal: r.run.goal,
    mode: r.run.mode as RunMode,
    origin: r.run.origin as RunOrigin,
    startedBy: r.run.startedBy,
    createdAt: r.run.createdAt,
    turns,
    finalText: trajectory.finalText ?? null,
    steering: r.steering.map((s) => ({ beforeTurn: s.beforeTurn, text: s.text, actor: s.actor || r.run.startedBy })),
    approvals: r.approvals.map((a) => ({ ...a })),
    subagents,
    capabilities: r.capabilities.map((c) => ({ registered: true, ...c }) as unknown as RecordedCapability),
    plans: r.plans,
    facts: r.facts as unknown as GoalFactsSnapshot | null,
    report: r.run.report,
    status: r.run.status as RunStatus,
    error: r.run.error,
    capabilityAllowlist: r.run.capabilityAllowlist ?? null,
    budgets: r.run.budgets ?? {},
    sessionId: r.run.sessionId ?? null,
    ...(r.run.step !== undefined ? { step: r.run.step } : {}),
    ...(r.run.forkLineage ? { forkLineage: r.run.forkLineage as unknown as PriorEffect[] } : {}),
  };
}

function callOf(capability: string, input: JsonValue, result: TrajectoryRecordedResult): RecordedCall {
  return {
    capability,
    input,
    status: result.status,
    ...(result.output !== undefined ? { output: result.output } : {}),
    ...(result.error ? { error: result.error } : {}),
    ...idsOf(result),
  };
}

function toJson(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
