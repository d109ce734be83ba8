// A sandbox host that records a shipped trajectory's run in a store the test chooses (memory or a SQLite file):
// the scenario's world, setup, middleware and person (approvals) as the eval harness plays them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConsoleLogger, createAgentHost, ManualClock, SequentialIdGenerator, type AgentHost } from '../../src';
import type { StorageAdapter } from '../../src/storage';
import {
  FINAL_REPORT_INSTRUCTION,
  parseTrajectory,
  registerSandboxCapabilities,
  SandboxWorld,
  ScriptedProvider,
  STANDARD_SCENARIOS,
  trajectoryScripts,
  type AnyEvalScenario,
  type ScenarioContext,
} from '../../src/testing';
import type { RunRecord } from '../../src/core/run-records';

export const TRAJECTORIES = fileURLToPath(new URL('../../../../eval/trajectories/', import.meta.url));

const TERMINAL = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'];

/** The host, its world and store, and the recorded run. */
export interface RecordedHost {
  host: AgentHost;
  world: SandboxWorld;
  storage: StorageAdapter;
  clock: ManualClock;
  provider: ScriptedProvider;
  run: RecordedRunRecord;
}
type RecordedRunRecord = RunRecord;

/** Builds a started sandbox host on `storage` with the scenario of `file` (model: `provider`). */
export async function sandboxHost(
  file: string,
  storage: StorageAdapter,
  provider: ScriptedProvider,
  options: { capabilities?: (host: AgentHost, world: SandboxWorld) => void } = {},
): Promise<{
  host: AgentHost;
  world: SandboxWorld;
  clock: ManualClock;
  scenario: AnyEvalScenario;
  ctx: ScenarioContext;
}> {
  const t = parseTrajectory(readFileSync(`${TRAJECTORIES}${file}`, 'utf8'), file);
  const scenario = STANDARD_SCENARIOS[t.scenario]!;
  const clock = new ManualClock(Date.UTC(2026, 0, 5, 12));
  const world = new SandboxWorld({
    durations: { queuedMs: 1_000, downloadMs: 4_000, importMs: 1_000 },
    ...scenario.world?.(t.seed ?? 0),
    clock,
  });
  const ctx = { world, clock, seed: t.seed ?? 0, hostState: undefined } as ScenarioContext;
  const host = createAgentHost({
    storage,
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    goalFacts: world,
    model: { provider },
    runs: {
      pollMs: 5,
      goalPollSec: 1,
      ...scenario.runs,
      middleware: scenario.middleware ? scenario.middleware(ctx) : [],
    },
  });
  ctx.host = host;
  (options.capabilities ?? registerSandboxCapabilities)(host, world);
  await host.start();
  return { host, world, clock, scenario, ctx };
}

/** Records the run of trajectory `file` in `storage` and returns the host (started) with the ended run. */
export async function recordTrajectory(file: string, storage: StorageAdapter): Promise<RecordedHost> {
  const t = parseTrajectory(readFileSync(`${TRAJECTORIES}${file}`, 'utf8'), file);
  const provider = new ScriptedProvider({ scripts: trajectoryScripts(t) });
  const { host, world, clock, scenario, ctx } = await sandboxHost(file, storage, provider);
  await scenario.setup?.(ctx);
  const goal = typeof scenario.goal === 'function' ? scenario.goal(t.seed ?? 0) : scenario.goal;
  const started = await host.startRun({ goal: `${goal}\n\n${FINAL_REPORT_INSTRUCTION}`, actor: 'user:admin' });
  let afterSeq = 0;
  let idle = 0;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { run, events } = await host.getRun(started.id, { afterSeq, limit: 1000 });
    for (const e of events) {
      afterSeq = e.seq;
      await scenario.onEvent?.(e, ctx);
    }
    if (TERMINAL.includes(run.status)) return { host, world, storage, clock, provider, run };
    if (Date.now() > deadline) throw new Error(`${file}: the run did not end`);
    // As the eval harness: a run waiting for a person nobody plays (a question) is aborted.
    idle = run.status === 'waiting' && run.step !== 'goal_settled' && events.length === 0 ? idle + 1 : 0;
    if (idle > 20) {
      await host.abort(started.id, 'evaluation: nobody answers the question');
      idle = -1_000_000;
    }
    if (run.status === 'waiting') clock.advance(1_000);
    await new Promise((r) => setTimeout(r, 5));
  }
}
