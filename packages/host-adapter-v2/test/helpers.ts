import { ConsoleLogger, ManualClock, MemoryStorage, SequentialIdGenerator, type AgentHost, type RunStatus } from '@media-agent/sdk';
import { addToLibraryScript, ScriptedProvider } from '@media-agent/sdk/testing';
import { MoviePilotV2Simulator, type V2SimulatorOptions } from '@media-agent/host-adapter-v2/testing';
import { createV2AgentHost, type V2AgentHost, type V2AgentHostOptions } from '../src/index';

export const started: Array<{ close(): Promise<void> } | MoviePilotV2Simulator> = [];

export async function cleanup(): Promise<void> {
  for (const x of started.splice(0).reverse()) await (x instanceof MoviePilotV2Simulator ? x.stop() : x.close());
}

/** A simulator and an adapter host on one manual clock, scripted model adding `title`. */
export async function v2Setup(options: { sim?: V2SimulatorOptions; host?: Partial<V2AgentHostOptions>; title?: string } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const sim = new MoviePilotV2Simulator({ clock, ...options.sim });
  await sim.start();
  started.push(sim);
  const adapter: V2AgentHost = await createV2AgentHost({
    url: sim.url,
    credentials: { apiKey: sim.apiToken },
    storage: new MemoryStorage(),
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: addToLibraryScript(options.title ?? 'Dune: Part Two') }) },
    runs: { pollMs: 5, goalPollSec: 1 },
    ...options.host,
  });
  started.push(adapter);
  await adapter.host.start();
  return { clock, sim, adapter, host: adapter.host };
}

/** Waits until the run reaches one of `statuses`, advancing the manual clock by `tickMs` between polls. */
export async function waitForStatus(host: AgentHost, runId: string, statuses: RunStatus[], opts: { clock?: ManualClock; tickMs?: number; timeoutMs?: number } = {}) {
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  for (;;) {
    const run = (await host.getRun(runId)).run;
    if (statuses.includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} is ${run.status}, expected ${statuses.join('|')}`);
    if (opts.clock && opts.tickMs) opts.clock.advance(opts.tickMs);
    await new Promise((r) => setTimeout(r, 10));
  }
}
