// Drives one scenario through the real runtime: fresh world and host, the run, the person's part
// (approvals, steering), then the oracle over the world and the events.
import { createAgentHost } from '../../composition/container';
import { MediaAgentError } from '../../core/errors';
import type { JsonValue } from '../../core/records';
import type { RunRecord } from '../../core/run-records';
import type { ModelProvider } from '../../models/types';
import type { StorageAdapter } from '../../ports/storage-adapter';
import { ManualClock } from '../../ports/clock';
import { SequentialIdGenerator } from '../../ports/id-generator';
import { ConsoleLogger } from '../../ports/logger';
import type { AgentHost } from '../../runtime/agent-host';
import type { RunEvent } from '../../runtime/events/run-event';
import { MemoryStorage } from '../../storage/memory/memory-storage';
import { registerSandboxCapabilities } from '../sandbox/capabilities';
import { SandboxWorld } from '../sandbox/world';
import { listRunEvents } from '../run-helpers';
import { FINAL_REPORT_INSTRUCTION, parseFinalReport } from './final-report';
import type { EvalFacts, EvalScenario, OracleFailureCode, ScenarioContext } from './scenario';

/** The runtime's own tools a model may call besides the registered capabilities. @public */
export const RUNTIME_TOOL_NAMES: readonly string[] = Object.freeze([
  'update_plan',
  'search_tools',
  'read_tool_result',
  'delegate',
]);

/** Verdict of one evaluated run: the oracle passed it, failed it with a code, or threw (`oracle_error`, never a pass). @public */
export type EvalVerdict = 'pass' | 'fail' | 'oracle_error';

/** One evaluated run: verdict, usage and every event kept, so a failure can be read step by step. @public */
export interface EvalRunResult {
  /** Scenario id. */
  scenario: string;
  /** Seed of the world. */
  seed: number;
  /** Label of the agent (model, prompt or trajectory file). */
  label: string;
  /** Verdict. */
  verdict: EvalVerdict;
  /** Failure code (`fail`), or `oracle_error`; null for a pass. */
  code: OracleFailureCode | null;
  /** Why, for people; null for a pass. */
  reason: string | null;
  /** The top-level run's id and end status. */
  runId: string;
  /** The run's status at the end (`succeeded`, `failed`, `cancelled` …). */
  runStatus: string;
  /** Why the run itself failed (`CODE: message`, e.g. a provider's `PROVIDER_AUTH`), or null. Not the verdict. */
  runError: string | null;
  /** Tool calls made (the run's usage, subagents included). */
  toolCalls: number;
  /** Model input tokens. */
  inputTokens: number;
  /** Model output tokens. */
  outputTokens: number;
  /** Model cost in USD (from the host's price table; 0 for the scripted model). */
  costUsd: number;
  /** Wall-clock time of the run in ms. */
  durationMs: number;
  /** The final report as parsed, or null. */
  finalReport: JsonValue | null;
  /** Every event of the run, then of each subagent, in order. */
  events: RunEvent[];
}

/** Options of {@link runScenario}. @public */
export interface RunScenarioOptions {
  /** The model: a real provider (live) or a `ScriptedProvider` (replay). */
  provider: ModelProvider;
  /** Model id sent to the provider (default: the host's default). */
  model?: string;
  /** System prompt replacing the runtime's (to compare prompts). */
  systemPrompt?: string;
  /**
   * Seed of the world.
   * @defaultValue 0
   */
  seed?: number;
  /** Label for the report. @defaultValue the provider id */
  label?: string;
  /**
   * Real-time limit for the run in ms; the run is aborted after it.
   * @defaultValue 60 000
   */
  timeoutMs?: number;
  /**
   * The host's storage (e.g. a `SqliteStorage` on a file, to keep the run for `--export-trajectory`); the host
   * migrates it on start and closes it on stop.
   * @defaultValue a new `MemoryStorage`
   */
  storage?: StorageAdapter;
  /** Called once the host is set up, with every tool name the model may call (a replay checks its calls here). */
  beforeRun?: (toolNames: ReadonlySet<string>) => void;
  /** Called after the run, before the oracle (a replay checks the ids its report claims here). */
  afterRun?: (facts: EvalFacts<unknown>) => void;
  /** Called after `afterRun` and awaited, with the host still started (read its audit trail, grants …). */
  inspect?: (facts: EvalFacts<unknown>, host: AgentHost) => Promise<void> | void;
}

const TERMINAL = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'];

/**
 * Runs one scenario against a fresh sandbox world and a fresh host (memory storage, manual clock,
 * sequential ids), then judges it with the scenario's oracle rules. A rule that throws gives
 * `oracle_error`, never a pass.
 *
 * @param scenario - the scenario
 * @param options - provider, model, seed, label, limits
 * @returns the verdict with usage and every event
 * @throws whatever `beforeRun` / `afterRun` throw (a replay's `EVAL_TRAJECTORY_INVALID`)
 *
 * @example
 * ```ts
 * const result = await runScenario(dedupExisting, { provider: new ScriptedProvider({ scripts }), seed: 0 });
 * console.log(result.verdict, result.code);
 * ```
 * @public
 */
export async function runScenario<S>(scenario: EvalScenario<S>, options: RunScenarioOptions): Promise<EvalRunResult> {
  const seed = options.seed ?? 0;
  const clock = new ManualClock(Date.UTC(2026, 0, 5, 12));
  const world = new SandboxWorld({
    durations: { queuedMs: 1_000, downloadMs: 4_000, importMs: 1_000 },
    ...scenario.world?.(seed),
    clock,
  });
  const ctx = { world, clock, seed, hostState: undefined } as ScenarioContext;
  const hostOptions = {
    storage: options.storage ?? new MemoryStorage(),
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider: options.provider, ...(options.model ? { model: options.model } : {}) },
    runs: {
      pollMs: 5,
      goalPollSec: 1,
      ...scenario.runs,
      ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
      middleware: scenario.middleware ? scenario.middleware(ctx) : [],
    },
  };
  const own = scenario.host ? await scenario.host({ clock, seed, options: hostOptions }) : undefined;
  const host = own?.host ?? createAgentHost({ ...hostOptions, goalFacts: world });
  ctx.host = host;
  ctx.hostState = own?.state;
  if (!own) registerSandboxCapabilities(host, world);
  const idExists = own ? (own.idExists ?? (() => true)) : (id: string) => idInWorld(world, id);
  const started = Date.now();
  try {
    await host.start();
    const setup = (await scenario.setup?.(ctx)) as S;
    const kinds = Object.fromEntries(host.capabilities.list().map((d) => [d.id, d.kind]));
    options.beforeRun?.(new Set([...Object.keys(kinds), ...RUNTIME_TOOL_NAMES]));
    const goal = typeof scenario.goal === 'function' ? scenario.goal(seed) : scenario.goal;
    const run = await host.startRun({ goal: `${goal}\n\n${FINAL_REPORT_INSTRUCTION}`, actor: 'user:admin' });
    const ended = await drive(host, run.id, ctx, scenario, options.timeoutMs ?? 60_000);
    const events = await listRunEvents(host, run.id);
    const subagents = await subagentsOf(host, run.id);
    const facts: EvalFacts<S> = {
      scenario: scenario.id,
      seed,
      setup,
      world,
      run: ended,
      events,
      subagents,
      kinds,
      report: parseFinalReport(ended.finalText),
      idExists,
    };
    options.afterRun?.(facts as EvalFacts<unknown>);
    await options.inspect?.(facts as EvalFacts<unknown>, host);
    let verdict: EvalVerdict = 'pass';
    let code: string | null = null;
    let reason: string | null = null;
    try {
      for (const rule of scenario.rules) {
        const failure = rule(facts);
        if (failure) {
          verdict = 'fail';
          code = failure.code;
          reason = failure.reason;
          break;
        }
      }
    } catch (error) {
      verdict = 'oracle_error';
      code = 'oracle_error';
      reason = `the oracle threw: ${(error as Error)?.message ?? String(error)}`;
    }
    return {
      scenario: scenario.id,
      seed,
      label: options.label ?? options.provider.id,
      verdict,
      code,
      reason,
      runId: run.id,
      runStatus: ended.status,
      runError: ended.error ? `${ended.error.code}: ${ended.error.message}` : null,
      toolCalls: ended.usage.toolCalls,
      inputTokens: ended.usage.inputTokens,
      outputTokens: ended.usage.outputTokens,
      costUsd: ended.usage.costUsd,
      durationMs: Date.now() - started,
      finalReport: facts.report as unknown as JsonValue | null,
      events: [...events, ...subagents.flatMap((s) => s.events)],
    };
  } finally {
    await host.stop().catch(() => undefined);
    await own?.close?.();
  }
}

/**
 * Whether an id names something in the sandbox world: a catalog title (`tmdb:…`, `douban:…`, `imdb:…`),
 * a release, a downloader job, an organize record or a plan.
 */
function idInWorld(world: SandboxWorld, id: string): boolean {
  return (
    world.resolveTitle(id) !== undefined ||
    world.releases().some((r) => r.releaseId === id) ||
    world.downloads().some((d) => d.id === id || d.planId === id) ||
    world.organizes().some((o) => o.id === id) ||
    world.plans().some((p) => p.id === id)
  );
}

/**
 * Drives the run to its end as the person would: hands every new event to the scenario (approvals,
 * answers), moves the clock a second per poll while the run waits so downloads progress, and ends a run
 * that waits for a person nobody answers (a question to the user) by aborting it.
 */
async function drive<S>(
  host: ScenarioContext['host'],
  runId: string,
  ctx: ScenarioContext,
  scenario: EvalScenario<S>,
  timeoutMs: number,
): Promise<RunRecord> {
  const deadline = Date.now() + timeoutMs;
  let afterSeq = 0;
  let idle = 0;
  for (;;) {
    const { run, events } = await host.getRun(runId, { afterSeq, limit: 1000 });
    for (const e of events) {
      afterSeq = e.seq;
      await scenario.onEvent?.(e, ctx);
    }
    if (TERMINAL.includes(run.status)) return run;
    // Waiting, not for downloads, with nothing new: the run waits for a person the scenario does not play.
    idle = run.status === 'waiting' && run.step !== 'goal_settled' && events.length === 0 ? idle + 1 : 0;
    if (Date.now() > deadline + 10_000)
      throw new MediaAgentError('RUN_WAIT_TIMEOUT', `run ${runId} did not end after it was aborted`, { runId });
    if (idle > 20 || Date.now() > deadline) {
      await host.abort(runId, idle > 20 ? 'evaluation: nobody answers the question' : 'evaluation: time limit');
      idle = -1_000_000;
    }
    // World time moves only while the run waits (for downloads to settle), so a slow model spends none of its duration budget.
    if (run.status === 'waiting') ctx.clock.advance(1_000);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function subagentsOf(
  host: ScenarioContext['host'],
  runId: string,
): Promise<Array<{ run: RunRecord; events: RunEvent[] }>> {
  const all = await host.listRuns({ limit: 1000 });
  const out: Array<{ run: RunRecord; events: RunEvent[] }> = [];
  const parents = [runId];
  for (let i = 0; i < parents.length; i++) {
    for (const child of all.filter((r) => r.parentRunId === parents[i]).sort((a, b) => a.createdAt - b.createdAt)) {
      parents.push(child.id);
      out.push({ run: child, events: await listRunEvents(host, child.id) });
    }
  }
  return out;
}
