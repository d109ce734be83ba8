// Replay: a trajectory drives the real runtime through the scripted model against a fresh sandbox world.
import { ScriptedProvider } from '../../models/scripted';
import type { SandboxWorld } from '../sandbox/world';
import { runScenario, type EvalRunResult } from './run-scenario';
import type { AnyEvalScenario } from './scenario';
import { EvalInputError, parseTrajectory, trajectoryScripts, unknownCapabilities, type Trajectory } from './trajectory';

/**
 * Whether an id names something in the world: a catalog title (`tmdb:…`, `douban:…`, `imdb:…`), a
 * release, a downloader job, an organize record or a plan. Pure over the world's state.
 * @param world - the sandbox world
 * @param id - the id
 * @public
 */
export function idExists(world: SandboxWorld, id: string): boolean {
  return (
    world.resolveTitle(id) !== undefined ||
    world.releases().some((r) => r.releaseId === id) ||
    world.downloads().some((d) => d.id === id || d.planId === id) ||
    world.organizes().some((o) => o.id === id) ||
    world.plans().some((p) => p.id === id)
  );
}

/**
 * Replays a trajectory: the scripted model plays its calls and final reply through the real runtime
 * against the scenario's fresh world, and the scenario's oracle judges the world and the events.
 * @param trajectory - a parsed trajectory, or the text of a trajectory file
 * @param scenarios - scenarios by id
 * @param options - `source` (file name, for messages), `timeoutMs`
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
  options: { source?: string; timeoutMs?: number } = {},
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
  return runScenario(scenario, {
    provider: new ScriptedProvider({ scripts: trajectoryScripts(t) }),
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
      const missing = (facts.report?.ids ?? []).filter((id) => !idExists(facts.world, id));
      if (missing.length > 0)
        throw new EvalInputError(
          'EVAL_TRAJECTORY_INVALID',
          `${source}: the final report claims ids that do not exist: ${missing.join(', ')}`,
          { source, missing },
        );
    },
  });
}
