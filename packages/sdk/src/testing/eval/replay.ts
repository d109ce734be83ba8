// Replay: a trajectory drives the real runtime through the scripted model against a fresh sandbox world.
import { ScriptedProvider } from '../../models/scripted';
import { runScenario, type EvalRunResult, type RunScenarioOptions } from './run-scenario';
import type { AnyEvalScenario } from './scenario';
import { EvalInputError, parseTrajectory, trajectoryScripts, unknownCapabilities, type Trajectory } from './trajectory';

/**
 * Replays a trajectory: the scripted model plays its calls and final reply through the real runtime
 * against the scenario's fresh world, and the scenario's oracle judges the world and the events.
 * @param trajectory - a parsed trajectory, or the text of a trajectory file
 * @param scenarios - scenarios by id
 * @param options - `source` (file name, for messages), `timeoutMs`, `inspect` (called after the run with the
 *   facts and the still-started host, as {@link RunScenarioOptions.inspect}: e.g. `host.replayRun(facts.run.id)`),
 *   `onProvider` (given the scripted provider before the run: its `requests` count the model calls)
 * @returns the run's result (label: the source)
 * @throws {@link EvalInputError} `EVAL_TRAJECTORY_INVALID` (malformed, too large, unknown capabilities,
 *   a final report naming ids that do not exist), `EVAL_SCENARIO_UNKNOWN`
 * @example
 * ```ts
 * const result = await replayTrajectory(readFileSync('eval/trajectories/dedup_existing.pass.json', 'utf8'), STANDARD_SCENARIOS);
 * result.verdict; // 'pass'
 * ```
 * @public
 */
export async function replayTrajectory(
  trajectory: Trajectory | string,
  scenarios: Readonly<Record<string, AnyEvalScenario>>,
  options: {
    source?: string;
    timeoutMs?: number;
    inspect?: RunScenarioOptions['inspect'];
    onProvider?: (provider: ScriptedProvider) => void;
  } = {},
): Promise<EvalRunResult> {
  const source = options.source ?? 'trajectory';
  const t = typeof trajectory === 'string' ? parseTrajectory(trajectory, source) : trajectory;
  const scenario = scenarios[t.scenario];
  if (!scenario)
    throw new EvalInputError(
      'EVAL_SCENARIO_UNKNOWN',
      `${source}: no scenario "${t.scenario}" (known: ${Object.keys(scenarios).join(', ')})`,
      { scenario: t.scenario },
    );
  const provider = new ScriptedProvider({ scripts: trajectoryScripts(t) });
  options.onProvider?.(provider);
  return runScenario(scenario, {
    provider,
    seed: t.seed ?? 0,
    label: source,
    timeoutMs: options.timeoutMs ?? 30_000,
    beforeRun: (known) => {
      const unknown = unknownCapabilities(t, known);
      if (unknown.length > 0)
        throw new EvalInputError(
          'EVAL_TRAJECTORY_INVALID',
          `${source}: calls unknown capabilities: ${unknown.join(', ')}`,
          { source, unknown },
        );
    },
    afterRun: (facts) => {
      const missing = (facts.report?.ids ?? []).filter((id) => !facts.idExists(id));
      if (missing.length > 0)
        throw new EvalInputError(
          'EVAL_TRAJECTORY_INVALID',
          `${source}: the final report claims ids that do not exist: ${missing.join(', ')}`,
          { source, missing },
        );
    },
    ...(options.inspect ? { inspect: options.inspect } : {}),
  });
}
