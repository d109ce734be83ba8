// Helpers for the untrusted-text / intents trial: a real host on a real SQLite file, the sandbox world and the
// scripted model, through the public API only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsoleLogger, ManualClock, createAgentHost, type AgentHost, type IdentityResolver } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import {
  type FakeScript,
  ScriptedProvider,
  SandboxWorld,
  listRunEvents,
  registerSandboxCapabilities,
  waitForRunStatus,
  type SandboxWorldOptions,
} from '../../src/testing';

export const DUNE_2 = { mediaSource: 'tmdb', mediaId: '693134', kind: 'movie' } as const;
export const REMUX = 'rel-693134-1';
export const identity: IdentityResolver = { roleOf: (actor) => (actor === 'user:admin' ? 'admin' : 'user') };

export type UHost = Awaited<ReturnType<typeof makeHost>>;

export async function makeHost(
  options: {
    scripts?: FakeScript[];
    world?: Omit<SandboxWorldOptions, 'clock'>;
    workers?: boolean;
    extra?: Record<string, unknown>;
    dir?: string;
    clock?: ManualClock;
  } = {},
) {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'untrusted-trial-'));
  const path = join(dir, 'agent.sqlite');
  const clock = options.clock ?? new ManualClock(Date.UTC(2026, 10, 30, 12));
  const provider = new ScriptedProvider({ scripts: options.scripts ?? [] });
  const world = new SandboxWorld({ autoImport: true, ...options.world, clock });
  const host: AgentHost = createAgentHost({
    storage: new SqliteStorage({ path }),
    clock,
    identity,
    logger: new ConsoleLogger('silent'),
    model: { provider, model: 'scripted' },
    runs: { pollMs: 20, goalPollSec: 1 },
    goalFacts: world,
    ...(options.extra ?? {}),
  } as never);
  registerSandboxCapabilities(host, world);
  await host.start({ workers: options.workers ?? true });
  for (const action of ['download.plan', 'download.submit', 'organize.plan', 'organize.execute'])
    await host.grants.create({ action, actor: 'user:admin' });
  const cleanup = async (removeDir = true) => {
    await host.stop().catch(() => {});
    if (removeDir) rmSync(dir, { recursive: true, force: true });
  };
  return { host, clock, world, provider, path, dir, cleanup };
}

/** Starts a run and waits until it stops moving (waiting or ended). */
export async function runToRest(h: UHost, goal: string, actor = 'user:admin') {
  const run = await h.host.startRun({ goal, actor });
  await waitForRunStatus(h.host, run.id, ['waiting', 'succeeded', 'failed', 'cancelled', 'budget_exceeded'], {
    clock: h.clock,
    tickMs: 1000,
  });
  const events = await listRunEvents(h.host, run.id);
  const got = await h.host.getRun(run.id);
  return { runId: run.id, run: got.run, events };
}

/** The tool_call events that ended (status and error) for a capability. */
export function toolResults(events: Awaited<ReturnType<typeof listRunEvents>>, capability: string) {
  return events
    .filter((e) => e.type === 'tool_call')
    .map((e) => e.data as Record<string, unknown>)
    .filter((d) => d.capabilityId === capability || d.name === capability || d.capability === capability);
}

/** Every text the model was sent (tool results included), joined. */
export function sentToModel(provider: ScriptedProvider): string {
  return provider.requests.map((r) => JSON.stringify(r.messages)).join('\n');
}
