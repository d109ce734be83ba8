import { ConsoleLogger, ManualClock, SequentialIdGenerator } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import { addToLibraryScript, ScriptedProvider } from '@media-agent/sdk/testing';
import { createV3AgentHost, type V3AgentHostOptions } from '@media-agent/host-adapter-v3';
import {
  MoviePilotV3Simulator,
  organizeCompletedDownloadScript,
  type SimOptions,
} from '@media-agent/host-adapter-v3/testing';

export const cleanups: Array<() => Promise<void>> = [];
export async function runCleanups(): Promise<void> {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
}

/** A started simulator and a V3 host on it (memory storage, manual clock shared by both, scripted model). */
export async function v3Setup(options: { sim?: SimOptions; host?: Partial<V3AgentHostOptions> } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const sim = new MoviePilotV3Simulator({ clock, ...options.sim });
  await sim.start();
  cleanups.push(() => sim.close());
  const provider = new ScriptedProvider({
    scripts: [organizeCompletedDownloadScript(), addToLibraryScript('Dune: Part Two')],
  });
  const v3 = createV3AgentHost({
    url: sim.url,
    auth: { apiKey: sim.apiKey },
    storage: new MemoryStorage(),
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider },
    runs: { pollMs: 5, goalPollSec: 1 },
    ...options.host,
  });
  cleanups.push(() => v3.close());
  await v3.host.start();
  return { clock, sim, ...v3 };
}

export { waitForRunStatus as waitForStatus } from '@media-agent/sdk/testing';

export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}

export { listRunEvents as runEvents } from '@media-agent/sdk/testing';
