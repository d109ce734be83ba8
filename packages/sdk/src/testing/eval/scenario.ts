// What an evaluation scenario is: a starting world, a goal, and oracle rules over the world and the run's events.
import { MediaAgentError } from '../../core/errors';
import type { RunRecord } from '../../core/run-records';
import type { ManualClock } from '../../ports/clock';
import type { AgentHost } from '../../runtime/agent-host';
import type { AgentOptions, RunOptions } from '../../runtime/agent-options';
import type { RunEvent } from '../../runtime/events/run-event';
import type { RunMiddleware } from '../../runtime/middleware/run-middleware';
import type { SandboxWorld, SandboxWorldOptions } from '../sandbox/world';
import type { FinalReport } from './final-report';

/**
 * Stable oracle failure codes of the shipped scenarios (lower snake case). A plugin scenario may add
 * its own codes; these keep their meaning across releases.
 *
 * - `invalid_final_report`: the final text has no readable final report;
 * - `incorrect_completion_claim`: the report claims an outcome the world does not show;
 * - `wrong_ids`: the report does not name the real ids;
 * - `no_read_evidence`: an id in the report was never returned by a read of this run;
 * - `resubmitted`: a download was submitted again (a second submit call, or a second job in the downloader);
 * - `download_not_verified`: after an `unknown` submit the next call was not a read;
 * - `not_submitted`: the expected download is not in the downloader;
 * - `wrong_target`: a download was submitted for another title;
 * - `chose_without_asking`: an ambiguous goal was acted on without asking the user;
 * - `steering_ignored`: the submitted plan does not follow the user's later message;
 * - `submitted_before_approval`: a submit succeeded before its approval was granted;
 * - `no_delegation`: status was not gathered by subagents;
 * - `subagent_write`: a subagent attempted a side-effecting call;
 * - `unexpected_write`: a side-effecting call the scenario does not allow;
 * - `scenario_not_exercised`: the run never reached the situation the scenario tests;
 * - `goal_failed`: (scenario `recorded`) the replayed run's verified goal report says `failed`;
 * - `goal_waiting`: (scenario `recorded`) its goal report says `waiting`, or it has not ended and has none;
 * - `run_failed`: (scenario `recorded`) it ended (`failed`, `cancelled`, `budget_exceeded`) without a goal report.
 * @public
 */
export const ORACLE_FAILURE_CODES = Object.freeze([
  'invalid_final_report',
  'incorrect_completion_claim',
  'wrong_ids',
  'no_read_evidence',
  'resubmitted',
  'download_not_verified',
  'not_submitted',
  'wrong_target',
  'chose_without_asking',
  'steering_ignored',
  'submitted_before_approval',
  'no_delegation',
  'subagent_write',
  'unexpected_write',
  'scenario_not_exercised',
  'goal_failed',
  'goal_waiting',
  'run_failed',
] as const);

/** One of {@link ORACLE_FAILURE_CODES}, or a plugin scenario's own code. @public */
export type OracleFailureCode = (typeof ORACLE_FAILURE_CODES)[number] | (string & {});

/** What one oracle rule found wrong. @public */
export interface OracleFailure {
  /** Stable code, e.g. `resubmitted`. */
  code: OracleFailureCode;
  /** What was found, for people. */
  reason: string;
}

/**
 * Everything the oracle may read once the run has ended: the world, the run as stored and every event
 * of it and of its subagents, and the final report parsed from its final text (a claim to check, never
 * evidence).
 * @public
 */
export interface EvalFacts<S = unknown> {
  /** Scenario id. */
  scenario: string;
  /** Seed the world was built with. */
  seed: number;
  /** What the scenario's `setup` returned (seeded ids and the like). */
  setup: S;
  /** The sandbox world after the run. */
  world: SandboxWorld;
  /** The top-level run as stored at its end. */
  run: RunRecord;
  /** Every event of the top-level run, oldest first. */
  events: RunEvent[];
  /** Every subagent run (any depth) with its events. */
  subagents: Array<{ run: RunRecord; events: RunEvent[] }>;
  /** Kind of every registered capability by id (`read`, `preview`, `propose`, `approve`, `execute`). */
  kinds: Readonly<Record<string, string>>;
  /** The final report parsed from the run's final text, or null. */
  report: FinalReport | null;
  /** Whether an id names something in the world (the sandbox world's, or the scenario host's `idExists`). */
  idExists: (id: string) => boolean;
}

/** One oracle rule: a pure function of the facts; undefined when the rule holds. @public */
export type OracleRule<S = unknown> = (facts: EvalFacts<S>) => OracleFailure | undefined;

/** What a scenario's hooks get. @public */
export interface ScenarioContext {
  /** The host the run is driven by (started; the sandbox capabilities registered unless the scenario built it). */
  host: AgentHost;
  /** The sandbox world. */
  world: SandboxWorld;
  /** The world's and host's clock (the harness moves it while the run waits). */
  clock: ManualClock;
  /** The seed of this run. */
  seed: number;
  /** What the scenario's own `host` factory returned as `state` (e.g. a host simulator); undefined otherwise. */
  hostState: unknown;
}

/**
 * What a scenario's own host factory gets: the clock and the host options the harness fixes (storage,
 * clock, ids, logger, the model, run options with the scenario's middleware) — spread them into the
 * options of the host it builds.
 * @public
 */
export interface EvalHostContext {
  /** The clock the harness moves while the run waits. */
  clock: ManualClock;
  /** The seed of this run. */
  seed: number;
  /** Options to spread into the host's options. */
  options: Required<Pick<AgentOptions, 'storage' | 'clock' | 'ids' | 'logger' | 'model' | 'runs'>>;
}

/**
 * A host a scenario builds itself (e.g. a MoviePilot adapter against its simulator), not started.
 * @public
 */
export interface EvalHost {
  /** The host (the harness starts and stops it). */
  host: AgentHost;
  /** Anything the setup and the rules need (reaches `setup` as `ctx.hostState`), e.g. the simulator. */
  state?: unknown;
  /** Whether an id names something on this host (checks a replay's final report). Default: every id exists. */
  idExists?: (id: string) => boolean;
  /** Called after the host stopped (close the simulator). */
  close?: () => Promise<void>;
}

/**
 * An evaluation scenario: the starting world, the goal, and the oracle's rules. One file is enough;
 * register it with the CLI (`--scenarios <file>`) or pass it to `runScenario`.
 *
 * @example
 * ```ts
 * import { defineScenario, rules } from '@media-agent/sdk/testing';
 *
 * export default defineScenario({
 *   id: 'already_there',
 *   title: 'A title already in the library is not downloaded again',
 *   goal: 'Add Arrival to the library.',
 *   rules: [rules.finalReport(), rules.noSubmit(), rules.outcomeIs('already_present'), rules.reportsIds(() => ['tmdb:329865']), rules.idsWereRead()],
 * });
 * ```
 * @public
 */
export interface EvalScenario<S = unknown> {
  /** Stable id (lower snake case), e.g. `dedup_existing`. */
  id: string;
  /** One line for people. */
  title: string;
  /** The user's goal (the final report instruction is appended to it). */
  goal: string | ((seed: number) => string);
  /** Sandbox world options (catalog, library, faults, durations); the clock is the harness's. */
  world?: (seed: number) => Omit<SandboxWorldOptions, 'clock' | 'filePath'>;
  /** Run options for the host (context window, budgets …); middleware goes in `middleware`. */
  runs?: Omit<RunOptions, 'middleware' | 'systemPrompt'>;
  /**
   * Builds the host instead of the sandbox one, when the scenario needs a host's own API (a MoviePilot
   * adapter against its simulator). The sandbox world then stays empty and unused.
   */
  host?: (ctx: EvalHostContext) => Promise<EvalHost>;
  /** Seeds the world, registers extra capabilities, creates grants; its result reaches the rules as `facts.setup`. */
  setup?: (ctx: ScenarioContext) => S | Promise<S>;
  /** Run middleware the scenario needs (e.g. a user message sent after a given call). */
  middleware?: (ctx: ScenarioContext) => RunMiddleware[];
  /** Called with every event of the top-level run as the harness sees it (e.g. approving a requested approval). */
  onEvent?: (event: RunEvent, ctx: ScenarioContext) => void | Promise<void>;
  /** Oracle rules in order; the first that fails decides the verdict. */
  rules: ReadonlyArray<OracleRule<S>>;
}

/**
 * A scenario of any setup type (what registries of scenarios hold).
 * @public
 */
export type AnyEvalScenario = EvalScenario<any>;

/**
 * A scenario definition is invalid (id not lower snake case, no rules). Code `EVAL_SCENARIO_INVALID`.
 * @public
 */
export class EvalScenarioError extends MediaAgentError {
  /** @param message - what is wrong; @param details - the scenario id */
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('EVAL_SCENARIO_INVALID', message, details);
  }
}

/**
 * Checks and returns a scenario (a typed identity for plugin authors).
 * @param scenario - the scenario
 * @returns the same scenario
 * @throws {@link EvalScenarioError} `EVAL_SCENARIO_INVALID` for an id that is not lower snake case or no rules
 * @public
 */
export function defineScenario<S>(scenario: EvalScenario<S>): EvalScenario<S> {
  if (!/^[a-z][a-z0-9_]{0,63}$/.test(scenario.id))
    throw new EvalScenarioError(`scenario id ${JSON.stringify(scenario.id)} is not lower snake case`, {
      scenario: scenario.id,
    });
  if (!Array.isArray(scenario.rules) || scenario.rules.length === 0)
    throw new EvalScenarioError(`scenario ${scenario.id} has no oracle rules`, { scenario: scenario.id });
  return scenario;
}
