import { ConsoleLogger, ManualClock, SequentialIdGenerator } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import { addToLibraryScript, ScriptedProvider } from '@media-agent/sdk/testing';
import { MoviePilotV2Simulator, type V2SimulatorOptions } from '@media-agent/host-adapter-v2/testing';
import { createV2AgentHost, type V2AgentHost, type V2AgentHostOptions } from '../src/index';

export const started: Array<{ close(): Promise<void> } | MoviePilotV2Simulator> = [];

export async function cleanup(): Promise<void> {
  for (const x of started.splice(0).reverse()) await x.close();
}

/** A simulator and an adapter host on one manual clock, scripted model adding `title`. */
export async function v2Setup(
  options: { sim?: V2SimulatorOptions; host?: Partial<V2AgentHostOptions>; title?: string } = {},
) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const sim = new MoviePilotV2Simulator({ clock, ...options.sim });
  await sim.start();
  started.push(sim);
  const adapter: V2AgentHost = createV2AgentHost({
    url: sim.url,
    auth: { apiKey: sim.apiKey },
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

export { waitForRunStatus as waitForStatus } from '@media-agent/sdk/testing';
