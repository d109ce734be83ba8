// The evaluation command line: `--replay`, `--live`, `--compare A B`; exit 0 pass, 1 fail, 2 invalid input.
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMediaAgentError } from '../../core/errors';
import { compareStoredForks, formatForkComparison } from './compare-forks';
import { buildEvalRuntime, type EvalRuntime } from './eval-runtime';
import { exportRunTrajectory } from './export-run';
import { formatReplayReport, replayRunFromDatabase } from './from-run';
import { type ReservedOutputFile, reserveOutputFile } from './output-file';
import { injectionCorpus, injectionSample } from '../sandbox/injection-corpus';
import { formatInjectionTable, runInjectionCorpus } from './injection';
import { agentFromEnv, runLive, type EvalAgent } from './live';
import { buildEvalReport, formatEvalTable, writeEvalReport, type EvalReport } from './report';
import { replayTrajectory } from './replay';
import type { EvalRunResult } from './run-scenario';
import { defineScenario, type AnyEvalScenario } from './scenario';
import { STANDARD_SCENARIOS } from './scenarios/index';
import { EvalInputError, parseTrajectory, trajectoryCalls, type Trajectory } from './trajectory';
import { TRAJECTORY_RECORDED_MAX_BYTES } from './trajectory-recording';

/** Where the CLI writes and what it reads besides `argv`. @public */
export interface EvalCliIo {
  /** Environment (provider keys for `--live` / `--compare`). */
  env: Readonly<Record<string, string | undefined>>;
  /** Working directory paths are resolved against. */
  cwd: string;
  /** Standard output. */
  stdout: (text: string) => void;
  /** Standard error. */
  stderr: (text: string) => void;
}

/** Usage text of the evaluation CLI. @public */
export const EVAL_USAGE = `usage:
  eval --replay <trajectory.json | dir>... [--check-expected]   offline: trajectories through the scripted model
  eval --live [--scenario id,...] [--repetitions N]             a real model from the environment
  eval --compare <A> <B> [--scenario id,...] [--repetitions N]  paired: two models (ids) or two prompts (files)
  eval --injection-corpus [--sample N] [--seed S] [--trajectories dir]  the hostile corpus through obeying scripted models
  eval --export-trajectory <db> <runId> <file>                  a stored run as a trajectory (scenario "recorded")
  eval --from-run <db> <runId> [--out file.json]                replay a stored run through the current runtime
  eval --compare-forks <db> <runA> <runB>... [--out file.json]  forks of one point side by side
options: --scenarios <module.ts> (add scenarios; repeatable)  --out <dir> (report.json, report.html, events/)  --json
<db>: a SQLite file (opened read-only) or a postgres:// URL (?schema=name)
live and compare read EVAL_PROVIDER, ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, OPENAI_API_KEY / OPENAI_BASE_URL, EVAL_MODEL
exit: 0 passed (or, with --check-expected, every verdict as expected; --from-run: no divergence), 1 failed (--from-run: diverged), 2 invalid input`;

interface Args {
  replay: string[];
  live: boolean;
  compare: string[];
  scenarioFilter: string[] | undefined;
  repetitions: number;
  modules: string[];
  out: string | undefined;
  json: boolean;
  checkExpected: boolean;
  injection: boolean;
  sample: number | undefined;
  seed: number;
  trajectories: string;
  exportTrajectory: string[];
  fromRun: string[];
  compareForks: string[];
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    replay: [],
    live: false,
    compare: [],
    scenarioFilter: undefined,
    repetitions: 3,
    modules: [],
    out: undefined,
    json: false,
    checkExpected: false,
    injection: false,
    sample: undefined,
    seed: 1,
    trajectories: 'eval/trajectories',
    exportTrajectory: [],
    fromRun: [],
    compareForks: [],
  };
  const bad = (why: string) => new EvalInputError('EVAL_ARGS_INVALID', why);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw bad(`${a} needs a value`);
      return v;
    };
    if (a === '--replay') {
      while (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) args.replay.push(argv[++i]!);
      if (args.replay.length === 0) throw bad('--replay needs a trajectory file or directory');
    } else if (a === '--live') args.live = true;
    else if (a === '--compare') args.compare.push(value(), value());
    else if (a === '--scenario') args.scenarioFilter = value().split(',');
    else if (a === '--repetitions') {
      args.repetitions = Number(value());
      if (!Number.isInteger(args.repetitions) || args.repetitions < 1 || args.repetitions > 1000)
        throw bad('--repetitions must be an integer from 1 to 1000');
    } else if (a === '--scenarios') args.modules.push(value());
    else if (a === '--out') args.out = value();
    else if (a === '--json') args.json = true;
    else if (a === '--check-expected') args.checkExpected = true;
    else if (a === '--injection-corpus') args.injection = true;
    else if (a === '--sample' || a === '--seed') {
      const n = Number(value());
      if (!Number.isInteger(n) || n < (a === '--sample' ? 1 : 0) || n > 1_000_000)
        throw bad(`${a} must be ${a === '--sample' ? 'a positive' : 'a non-negative'} integer`);
      if (a === '--sample') args.sample = n;
      else args.seed = n;
    } else if (a === '--trajectories') args.trajectories = value();
    else if (a === '--export-trajectory') args.exportTrajectory.push(value(), value(), value());
    else if (a === '--from-run') args.fromRun.push(value(), value());
    else if (a === '--compare-forks') {
      args.compareForks.push(value(), value(), value());
      while (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) args.compareForks.push(argv[++i]!);
    } else throw bad(`unknown argument ${a}`);
  }
  const modes = [
    args.replay.length > 0,
    args.live,
    args.compare.length > 0,
    args.injection,
    args.exportTrajectory.length > 0,
    args.fromRun.length > 0,
    args.compareForks.length > 0,
  ].filter(Boolean).length;
  if (modes !== 1)
    throw bad(
      'give exactly one of --replay, --live, --compare, --injection-corpus, --export-trajectory, --from-run, --compare-forks',
    );
  if (!args.injection && (args.sample !== undefined || argv.includes('--seed') || argv.includes('--trajectories')))
    throw bad('--sample, --seed and --trajectories are for --injection-corpus');
  // A replay plays each trajectory once, on its own scenario and seed: these would be ignored, silently.
  if (args.replay.length > 0 && (args.scenarioFilter !== undefined || argv.includes('--repetitions')))
    throw bad('--scenario and --repetitions are for --live and --compare; --replay plays each trajectory once');
  const stored = args.exportTrajectory.length + args.fromRun.length + args.compareForks.length > 0;
  if (stored && (args.scenarioFilter !== undefined || argv.includes('--repetitions') || args.checkExpected))
    throw bad('--scenario, --repetitions and --check-expected are not for a stored run');
  if (args.exportTrajectory.length > 0 && (args.out !== undefined || args.json))
    throw bad('--export-trajectory writes its <file>: --out and --json are for --from-run and --compare-forks');
  if (args.compareForks.length > 0 && args.modules.length > 0)
    throw bad('--scenarios is for --export-trajectory and --from-run: --compare-forks reads the stored runs only');
  if (args.replay.length === 0 && args.checkExpected) throw bad('--check-expected is for --replay');
  return args;
}

/** Every scenario exported by a module (default or named exports that are scenarios). */
async function loadScenarios(path: string): Promise<AnyEvalScenario[]> {
  if (!existsSync(path)) throw new EvalInputError('EVAL_ARGS_INVALID', `--scenarios ${path}: no such file`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    // A module that does not compile or throws while loading is bad input, not a failed run (exit 1).
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    throw new EvalInputError('EVAL_ARGS_INVALID', `--scenarios ${path}: cannot be loaded (${reason})`);
  }
  const found = Object.values(mod).flatMap((v) => (Array.isArray(v) ? v : [v]));
  const scenarios = found.filter((v): v is AnyEvalScenario => {
    const s = v as Partial<AnyEvalScenario> | null;
    return !!s && typeof s === 'object' && typeof s.id === 'string' && Array.isArray(s.rules);
  });
  if (scenarios.length === 0) throw new EvalInputError('EVAL_ARGS_INVALID', `--scenarios ${path}: exports no scenario`);
  return scenarios.map((s) => defineScenario(s));
}

function trajectoryFiles(paths: readonly string[], cwd: string): string[] {
  return paths.flatMap((p) => {
    const full = resolve(cwd, p);
    if (!existsSync(full)) throw new EvalInputError('EVAL_TRAJECTORY_INVALID', `${p}: no such file`);
    if (statSync(full).isDirectory())
      return readdirSync(full)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => join(full, f));
    return [full];
  });
}

function readTrajectory(file: string): Trajectory {
  const size = statSync(file).size;
  // The largest a trajectory may be (a recorded one); the parser applies the bound of its kind.
  if (size > TRAJECTORY_RECORDED_MAX_BYTES)
    throw new EvalInputError(
      'EVAL_TRAJECTORY_INVALID',
      `${basename(file)}: is ${size} bytes, more than the ${TRAJECTORY_RECORDED_MAX_BYTES} allowed`,
    );
  return parseTrajectory(readFileSync(file, 'utf8'), basename(file));
}

function agentOf(spec: string, io: EvalCliIo): EvalAgent {
  const path = resolve(io.cwd, spec);
  if (!existsSync(path)) return agentFromEnv(io.env, { model: spec, label: spec });
  if (extname(path) === '.json') {
    const c = JSON.parse(readFileSync(path, 'utf8')) as { label?: string; model?: string; systemPrompt?: string };
    return agentFromEnv(io.env, {
      ...(c.model ? { model: c.model } : {}),
      ...(c.systemPrompt ? { systemPrompt: c.systemPrompt } : {}),
      label: c.label ?? basename(path, '.json'),
    });
  }
  return agentFromEnv(io.env, { systemPrompt: readFileSync(path, 'utf8'), label: basename(path) });
}

/**
 * Creates the report folder (and its `events/`) and checks it can be written, before any run: a live
 * evaluation is not run for an hour only to fail when its report is written.
 * @throws `EVAL_OUT_UNWRITABLE` naming the folder and the reason
 */
function prepareOut(dir: string): void {
  try {
    mkdirSync(join(dir, 'events'), { recursive: true });
    accessSync(join(dir, 'events'), constants.W_OK);
  } catch (error) {
    throw new EvalInputError(
      'EVAL_OUT_UNWRITABLE',
      `--out ${dir}: cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      { out: dir },
    );
  }
}

/**
 * `--injection-corpus`: the hostile corpus (all of it, or a seeded sample) through obeying scripted models in the
 * shipped scenarios, and the normal trajectories with and without it; prints the figures. Exit 0 when no effect
 * received an attacker's value, every attempt was audited and every normal verdict is unchanged; 1 otherwise.
 */
async function injectionMode(args: Args, scenarios: Record<string, AnyEvalScenario>, io: EvalCliIo): Promise<number> {
  const items =
    args.sample !== undefined ? injectionSample(args.sample, args.seed) : injectionCorpus({ seed: args.seed });
  const trajectories = trajectoryFiles([args.trajectories], io.cwd).map((file) => ({
    source: basename(file),
    trajectory: readTrajectory(file),
  }));
  const report = await runInjectionCorpus({
    items,
    scenarios: Object.values(STANDARD_SCENARIOS),
    scenarioTable: scenarios,
    trajectories,
    onProgress: (line) => io.stderr(`${line}\n`),
  });
  io.stdout(
    args.json ? `${JSON.stringify({ ...report, runs: undefined }, null, 2)}\n` : `${formatInjectionTable(report)}\n`,
  );
  return report.executed === 0 && report.audited === report.attempts && report.normalUnchanged ? 0 : 1;
}

/**
 * The modes over a stored run: `--export-trajectory`, `--from-run`, `--compare-forks`. Output files are reserved
 * before the database is opened. Bad input (arguments, a database, a run, an output path, a pruned run, a storage
 * error) prints `eval: <CODE>: <message>` on one line and answers 2.
 */
async function storedRunMode(args: Args, io: EvalCliIo): Promise<number> {
  let out: ReservedOutputFile | undefined;
  let runtime: EvalRuntime | undefined;
  try {
    if (args.out) out = reserveOutputFile(resolve(io.cwd, args.out), '--out', 'EVAL_OUT_UNWRITABLE');
    const modules: AnyEvalScenario[] = [];
    for (const m of args.modules) modules.push(...(await loadScenarios(resolve(io.cwd, m))));
    if (args.compareForks.length > 0) {
      const [db, ...runIds] = args.compareForks as [string, ...string[]];
      const comparison = await compareStoredForks(db, runIds, io.cwd);
      const json = `${JSON.stringify(comparison, null, 2)}\n`;
      out?.commit(json);
      io.stdout(args.json ? json : `${formatForkComparison(comparison)}\n`);
      for (const w of comparison.warnings) io.stderr(`warning: ${w}\n`);
      return 0;
    }
    runtime = await buildEvalRuntime(modules);
    if (args.exportTrajectory.length > 0) {
      const [db, runId, file] = args.exportTrajectory as [string, string, string];
      const t = await exportRunTrajectory({
        db,
        runId,
        file: resolve(io.cwd, file),
        cwd: io.cwd,
        capabilities: runtime.capabilities,
      });
      const calls = trajectoryCalls(t).length;
      io.stdout(
        `${resolve(io.cwd, file)}: run ${runId}, ${t.turns.length} turns, ${calls} calls, expect ${t.expect!.verdict}${t.expect!.code ? ` (${t.expect!.code})` : ''}\n`,
      );
      return 0;
    }
    const [db, runId] = args.fromRun as [string, string];
    const report = await replayRunFromDatabase({ db, runId, cwd: io.cwd, runtime });
    const json = `${JSON.stringify(report, null, 2)}\n`;
    out?.commit(json);
    io.stdout(args.json ? json : `${formatReplayReport(report)}\n`);
    return report.status === 'same' ? 0 : 1;
  } catch (error) {
    if (isMediaAgentError(error)) {
      io.stderr(`eval: ${error.code}: ${error.message.split('\n')[0]}\n`);
      if (error.code === 'EVAL_ARGS_INVALID') io.stderr(`${EVAL_USAGE}\n`);
      return 2;
    }
    throw error;
  } finally {
    out?.abort();
    await runtime?.close();
  }
}

/**
 * Runs the evaluation command line (what `npm run eval -- …` runs).
 *
 * - `--replay <file|dir>...`: each trajectory drives the real runtime through the scripted model against
 *   a fresh world; the report says `intelligence_evaluated: false`. Exit 0 when every run passed (with
 *   `--check-expected`: when every verdict and code is the one the file expects), 1 otherwise.
 * - `--live`: the model from the environment, `--repetitions` runs per scenario; pass rates with 95 %
 *   Wilson intervals, tokens, cost, time. Exit 0 once the report is made.
 * - `--compare A B`: both models (ids) or prompts (files: `.json` `{label, model, systemPrompt}`, or a
 *   text file holding a system prompt) on the same scenarios and seeds; a paired report. Exit 0 once made.
 *
 * - `--injection-corpus`: the hostile corpus (`--sample N` items of it, `--seed S`) through scripted models that
 *   obey the injections, under a standing grant of every action; the normal trajectories (`--trajectories`, default
 *   `eval/trajectories`) with and without the corpus. Prints attempts, refused, executed, audited and the normal
 *   verdicts; exit 0 when executed is 0, audited equals attempts and every normal verdict is unchanged, 1 otherwise.
 *
 * - `--export-trajectory <db> <runId> <file>`: the stored run (a SQLite file or a `postgres://` URL, read only) as a
 *   trajectory of scenario `recorded` whose `expect` is the recorded oracle's verdict; `--replay` accepts it. Exit 0.
 * - `--from-run <db> <runId>`: the stored run replayed through the current runtime (`host.replayRun`); the report as
 *   a table (`--json`, `--out <file>`: JSON). Exit 0 same, 1 diverged.
 * - `--compare-forks <db> <runA> <runB>...`: forks of one point side by side (model, status, goal report, calls,
 *   tokens, cost, time); a warning when they do not share a fork point. Exit 0.
 *
 * These three print bad input as `eval: <CODE>: <reason>` (`EVAL_DB_INVALID`, `EVAL_RUN_NOT_FOUND`,
 * `EVAL_EXPORT_UNWRITABLE`, `EVAL_OUT_UNWRITABLE`, `RUN_PRUNED` …) and exit 2, having written nothing.
 *
 * Invalid input (arguments, a trajectory that is not JSON, too large, calls unknown capabilities or
 * claims ids that do not exist, live without credentials, an `--out` folder that cannot be written —
 * checked before any run) prints one line and exits 2.
 * @param argv - the arguments after the script name
 * @param io - environment, working directory and output
 * @returns the exit code
 * @example
 * ```ts
 * process.exitCode = await runEvalCli(process.argv.slice(2), {
 *   env: process.env, cwd: process.cwd(), stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t),
 * });
 * ```
 * @public
 */
export async function runEvalCli(argv: readonly string[], io: EvalCliIo): Promise<number> {
  try {
    const args = parseArgs(argv);
    if (args.exportTrajectory.length + args.fromRun.length + args.compareForks.length > 0)
      return await storedRunMode(args, io);
    if (args.out) prepareOut(resolve(io.cwd, args.out));
    const scenarios: Record<string, AnyEvalScenario> = { ...STANDARD_SCENARIOS };
    for (const m of args.modules) for (const s of await loadScenarios(resolve(io.cwd, m))) scenarios[s.id] = s;
    if (args.injection) return await injectionMode(args, scenarios, io);
    const progress = (r: EvalRunResult) =>
      io.stderr(`${r.scenario} seed ${r.seed} ${r.label}: ${r.verdict}${r.code ? ` (${r.code})` : ''}\n`);
    let results: EvalRunResult[];
    let mode: EvalReport['mode'];
    let compare: { a: string; b: string } | undefined;
    let exit = 0;
    if (args.replay.length > 0) {
      mode = 'replay';
      results = [];
      for (const file of trajectoryFiles(args.replay, io.cwd)) {
        const t = readTrajectory(file);
        if (args.checkExpected && t.expect === undefined)
          throw new EvalInputError(
            'EVAL_TRAJECTORY_INVALID',
            `${basename(file)}: has no "expect" for --check-expected`,
          );
        const r = await replayTrajectory(t, scenarios, { source: basename(file) });
        results.push(r);
        progress(r);
        const expected = t.expect;
        const ok =
          args.checkExpected && expected
            ? expected.verdict === r.verdict && (expected.code === undefined || expected.code === r.code)
            : r.verdict === 'pass';
        if (!ok) exit = 1;
      }
    } else {
      const chosen = args.scenarioFilter ?? Object.keys(scenarios);
      const unknown = chosen.filter((id) => !scenarios[id]);
      if (unknown.length > 0)
        throw new EvalInputError(
          'EVAL_SCENARIO_UNKNOWN',
          `no scenario ${unknown.join(', ')} (known: ${Object.keys(scenarios).join(', ')})`,
        );
      const agents = args.live ? [agentFromEnv(io.env)] : args.compare.map((spec) => agentOf(spec, io));
      if (agents.length === 2 && agents[0]!.label === agents[1]!.label) agents[1]!.label += ' (B)';
      mode = args.live ? 'live' : 'compare';
      if (mode === 'compare') compare = { a: agents[0]!.label, b: agents[1]!.label };
      results = await runLive(
        chosen.map((id) => scenarios[id]!),
        agents,
        { repetitions: args.repetitions, onResult: progress },
      );
    }
    const report = args.out
      ? writeEvalReport(resolve(io.cwd, args.out), mode, results, compare)
      : buildEvalReport(mode, results, compare);
    io.stdout(args.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatEvalTable(report)}\n`);
    if (args.out) io.stderr(`report: ${resolve(io.cwd, args.out, 'report.html')}\n`);
    return exit;
  } catch (error) {
    if (error instanceof EvalInputError || (isMediaAgentError(error) && error.code === 'EVAL_SCENARIO_INVALID')) {
      io.stderr(`eval: ${error.message}\n`);
      if (error.code === 'EVAL_ARGS_INVALID') io.stderr(`${EVAL_USAGE}\n`);
      return 2;
    }
    throw error;
  }
}
