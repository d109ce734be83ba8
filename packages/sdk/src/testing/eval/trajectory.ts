// A trajectory: the tool calls and the final report of one run, replayed through the scripted model.
import { MediaAgentError } from '../../core/errors';
import type { FakeScript, ScriptStep } from '../../models/scripted';
import {
  RECORDED_SCENARIO_ID,
  recordingProblems,
  TRAJECTORY_RECORDED_MAX_BYTES,
  TRAJECTORY_RECORDED_MAX_CALLS,
  type TrajectoryRecording,
} from './trajectory-recording';

/**
 * At most this many tool calls in a trajectory (subagents included); a recorded trajectory (scenario `recorded`) may
 * hold up to `TRAJECTORY_RECORDED_MAX_CALLS` (512).
 * @public
 */
export const TRAJECTORY_MAX_CALLS = 32;
/**
 * At most this many bytes in a trajectory file (256 KiB); a recorded trajectory may be up to
 * `TRAJECTORY_RECORDED_MAX_BYTES` (4 MiB).
 * @public
 */
export const TRAJECTORY_MAX_BYTES = 256 * 1024;

/** One tool call of a trajectory: a capability (or runtime tool) and its input; strings may hold `{{capability.path}}` templates. @public */
export interface TrajectoryCall {
  /** Capability id or runtime tool name, e.g. `task.inspect`, `delegate`. */
  capability: string;
  /** Input object. */
  input?: Record<string, unknown>;
}

/**
 * One model turn of a trajectory: text and calls. A turn with text and no calls ends the drive there
 * (the run waits, e.g. for an approval, and the next turn plays when it is woken).
 * @public
 */
export interface TrajectoryTurn {
  /** What the model says in the turn. */
  text?: string;
  /** The calls it makes (none: the turn ends the drive and waits). */
  calls: TrajectoryCall[];
}

/** The final reply: a structured report (preferred), or raw text. @public */
export interface TrajectoryEnd {
  /** The final report object, written into the final text as a JSON block. */
  finalReport?: Record<string, unknown>;
  /** Raw final text instead (to test malformed reports). */
  finalText?: string;
}

/** A subagent's part of a trajectory: the delegated goal it answers (a substring) and its turns. @public */
export interface TrajectorySubagent extends TrajectoryEnd {
  /** Text of the delegated goal this part answers (a substring of it). */
  match: string;
  /** Its turns. */
  turns: TrajectoryTurn[];
}

/**
 * A trajectory file (JSON): which scenario and seed, the top-level run's turns and final reply, the
 * subagents' parts, and optionally the verdict it is expected to get. A trajectory exported from a stored run
 * (`npm run eval -- --export-trajectory`) has scenario `recorded` and a `recorded` part: what the run saw, so it
 * replays without the host.
 * @public
 */
export interface Trajectory extends TrajectoryEnd {
  /** Scenario id. */
  scenario: string;
  /** World seed. @defaultValue 0 */
  seed?: number;
  /** Free text for people. */
  description?: string;
  /** Turns of the top-level run. */
  turns: TrajectoryTurn[];
  /** Subagent parts. */
  subagents?: TrajectorySubagent[];
  /** Expected verdict (checked by `--check-expected` and the test suite). */
  expect?: { verdict: 'pass' | 'fail'; code?: string };
  /** What a stored run saw (scenario `recorded` only; required there). */
  recorded?: TrajectoryRecording;
}

/**
 * Bad evaluation input: a trajectory that is not JSON, too large, malformed, calls unknown capabilities,
 * names an unknown scenario or claims ids that do not exist; a live mode without a model; an `--out` folder
 * that cannot be written; a database that is missing or not a media-agent database, a run it does not hold, an
 * export path that cannot be written. Codes `EVAL_TRAJECTORY_INVALID`, `EVAL_SCENARIO_UNKNOWN`,
 * `EVAL_PROVIDER_NOT_CONFIGURED`, `EVAL_ARGS_INVALID`, `EVAL_OUT_UNWRITABLE`, `EVAL_DB_INVALID`,
 * `EVAL_RUN_NOT_FOUND`, `EVAL_EXPORT_UNWRITABLE`.
 * The CLI exits 2 with its message.
 * @public
 */
export class EvalInputError extends MediaAgentError {
  /**
   * @param code - one of the codes above
   * @param message - the reason, one line
   * @param details - facts
   */
  constructor(
    code:
      | 'EVAL_TRAJECTORY_INVALID'
      | 'EVAL_SCENARIO_UNKNOWN'
      | 'EVAL_PROVIDER_NOT_CONFIGURED'
      | 'EVAL_ARGS_INVALID'
      | 'EVAL_OUT_UNWRITABLE'
      | 'EVAL_DB_INVALID'
      | 'EVAL_RUN_NOT_FOUND'
      | 'EVAL_EXPORT_UNWRITABLE',
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, details);
  }
}

const invalid = (source: string, why: string) =>
  new EvalInputError('EVAL_TRAJECTORY_INVALID', `${source}: ${why}`, { source });

/**
 * Parses and checks a trajectory file's text: size, JSON, shape, the call bound (a recorded trajectory: its
 * `recorded` part, the larger bounds).
 * @param text - the file's content
 * @param source - the file name, for messages
 * @returns the trajectory
 * @throws {@link EvalInputError} `EVAL_TRAJECTORY_INVALID` naming what is wrong
 * @public
 */
export function parseTrajectory(text: string, source = 'trajectory'): Trajectory {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > TRAJECTORY_RECORDED_MAX_BYTES)
    throw invalid(source, `is ${bytes} bytes, more than the ${TRAJECTORY_RECORDED_MAX_BYTES} allowed`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw invalid(source, `is not JSON (${(e as Error).message})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid(source, 'is not a JSON object');
  const t = value as Partial<Trajectory>;
  const recorded = t.scenario === RECORDED_SCENARIO_ID;
  const maxBytes = recorded ? TRAJECTORY_RECORDED_MAX_BYTES : TRAJECTORY_MAX_BYTES;
  if (bytes > maxBytes) throw invalid(source, `is ${bytes} bytes, more than the ${maxBytes} allowed`);
  if (typeof t.scenario !== 'string' || !t.scenario) throw invalid(source, '"scenario" must be a scenario id');
  if (recorded !== (t.recorded !== undefined))
    throw invalid(
      source,
      recorded ? 'scenario "recorded" needs a "recorded" part' : '"recorded" is for scenario "recorded" only',
    );
  if (t.seed !== undefined && !(Number.isInteger(t.seed) && t.seed >= 0))
    throw invalid(source, '"seed" must be a non-negative integer');
  checkPart(t, source, 'the run');
  const subagents = t.subagents ?? [];
  if (!Array.isArray(subagents)) throw invalid(source, '"subagents" must be an array');
  subagents.forEach((s, i) => {
    if (!s || typeof s !== 'object' || typeof s.match !== 'string' || !s.match)
      throw invalid(source, `subagent #${i} needs a "match" text`);
    checkPart(s, source, `subagent #${i}`);
  });
  const calls = [t as Pick<Trajectory, 'turns'>, ...subagents].reduce(
    (n, p) => n + p.turns.reduce((m, turn) => m + turn.calls.length, 0),
    0,
  );
  const maxCalls = recorded ? TRAJECTORY_RECORDED_MAX_CALLS : TRAJECTORY_MAX_CALLS;
  if (calls > maxCalls) throw invalid(source, `has ${calls} tool calls, more than the ${maxCalls} allowed`);
  if (recorded) {
    const problem = recordingProblems(t.recorded, trajectoryCalls(t as Trajectory))[0];
    if (problem) throw invalid(source, problem);
  }
  if (t.expect !== undefined && (!t.expect || !['pass', 'fail'].includes(t.expect.verdict)))
    throw invalid(source, '"expect.verdict" must be "pass" or "fail"');
  return t as Trajectory;
}

function checkPart(p: Partial<TrajectorySubagent>, source: string, who: string): void {
  if (!Array.isArray(p.turns)) throw invalid(source, `${who}: "turns" must be an array`);
  p.turns.forEach((turn, i) => {
    if (!turn || typeof turn !== 'object' || !Array.isArray(turn.calls))
      throw invalid(source, `${who}: turn #${i} must have a "calls" array`);
    if (turn.calls.length === 0 && !turn.text)
      throw invalid(source, `${who}: turn #${i} has neither calls nor text (the final reply goes in "finalReport")`);
    if (turn.text !== undefined && typeof turn.text !== 'string') throw invalid(source, `${who}: turn #${i} text`);
    turn.calls.forEach((c, k) => {
      if (!c || typeof c.capability !== 'string' || !c.capability)
        throw invalid(source, `${who}: turn #${i} call #${k} needs a "capability"`);
      if (c.input !== undefined && (typeof c.input !== 'object' || c.input === null || Array.isArray(c.input)))
        throw invalid(source, `${who}: turn #${i} call #${k} input must be an object`);
    });
  });
  if (p.finalReport !== undefined && (typeof p.finalReport !== 'object' || p.finalReport === null))
    throw invalid(source, `${who}: "finalReport" must be an object`);
  if (p.finalText !== undefined && typeof p.finalText !== 'string')
    throw invalid(source, `${who}: "finalText" must be a string`);
}

/**
 * Every call of a trajectory's turns, in order: the top-level run's turns first, then each subagent's (the order of
 * a recorded trajectory's `results`).
 * @param trajectory - the trajectory
 * @returns the calls
 * @public
 */
export function trajectoryCalls(trajectory: Pick<Trajectory, 'turns' | 'subagents'>): TrajectoryCall[] {
  return [trajectory, ...(trajectory.subagents ?? [])].flatMap((p) => p.turns.flatMap((t) => t.calls));
}

/**
 * Every capability a trajectory calls that the host does not offer.
 * @param trajectory - the trajectory
 * @param known - tool names the model may call
 * @returns the unknown names (empty when all are known)
 * @public
 */
export function unknownCapabilities(trajectory: Trajectory, known: ReadonlySet<string>): string[] {
  const names = [trajectory as TrajectoryEnd & Pick<Trajectory, 'turns'>, ...(trajectory.subagents ?? [])].flatMap(
    (p) => p.turns.flatMap((t) => t.calls.map((c) => c.capability)),
  );
  return [...new Set(names.filter((n) => !known.has(n)))];
}

/**
 * The scripted-model scripts that play a trajectory: each subagent part (matched on its delegated goal)
 * first, then the run's part (matched on `match` when given, else on everything).
 * @param trajectory - the trajectory
 * @param match - text selecting the run's part (to serve several scenarios with one provider)
 * @public
 */
export function trajectoryScripts(trajectory: Trajectory, match?: string): FakeScript[] {
  const part = (p: TrajectoryEnd & { turns: TrajectoryTurn[] }, name: string, m?: string): FakeScript => ({
    name,
    ...(m !== undefined ? { match: m } : {}),
    steps: p.turns.map(
      (t): ScriptStep => ({
        ...(t.text !== undefined ? { text: t.text } : {}),
        toolCalls: t.calls.map((c) => ({ capability: c.capability, input: c.input ?? {} })),
      }),
    ),
    finalText: finalTextOf(p),
  });
  return [
    ...(trajectory.subagents ?? []).map((s, i) => part(s, `${trajectory.scenario} subagent #${i}`, s.match)),
    part(trajectory, trajectory.scenario, match),
  ];
}

function finalTextOf(p: TrajectoryEnd): string {
  if (p.finalText !== undefined) return p.finalText;
  if (p.finalReport !== undefined) return `\`\`\`json\n${JSON.stringify(p.finalReport)}\n\`\`\``;
  return 'Done.';
}
