// Helpers for the approvals trial tests: a real host on a real SQLite file with the sandbox world registered.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ConsoleLogger, ManualClock, createAgentHost, type AgentHost, type IdentityResolver } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { SandboxWorld, registerSandboxCapabilities, type SandboxWorldOptions } from '../../src/testing';
import type { StandardOutput } from '../../src/media';

export const DUNE_2 = { mediaSource: 'tmdb', mediaId: '693134' } as const;
export const SHOGUN = { mediaSource: 'tmdb', mediaId: '126308' } as const;
export const REMUX = 'rel-693134-1';
export const BLURAY_1080 = 'rel-693134-3';
export const admin = { actor: 'user:admin' } as const;

/** user:admin is an administrator; every other person an ordinary user. */
export const identity: IdentityResolver = { roleOf: (actor) => (actor === 'user:admin' ? 'admin' : 'user') };

export type TrialHost = Awaited<ReturnType<typeof makeTrialHost>>;

export async function makeTrialHost(
  options: {
    extra?: Parameters<typeof createAgentHost>[0];
    world?: Omit<SandboxWorldOptions, 'clock'>;
    workers?: boolean;
  } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'approvals-trial-'));
  const path = join(dir, 'agent.sqlite');
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const host: AgentHost = createAgentHost({
    storage: new SqliteStorage({ path }),
    clock,
    identity,
    logger: new ConsoleLogger('silent'),
    ...options.extra,
  });
  await host.start({ workers: options.workers ?? false });
  const world = new SandboxWorld({ autoImport: false, ...options.world, clock });
  registerSandboxCapabilities(host, world);
  const db = () => new Database(path, { readonly: true });
  const count = (table: string) => {
    const d = db();
    try {
      return (d.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    } finally {
      d.close();
    }
  };
  const cleanup = async () => {
    await host.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  };
  return { host, clock, world, path, count, cleanup };
}

/** The world's observable state, for before/after comparisons. */
export function snapshot(world: SandboxWorld) {
  return JSON.stringify({
    files: world.files(),
    downloads: world.downloads(),
    volumes: world.volumes(),
    quarantine: world.quarantine(),
  });
}

export async function downloadPlan(h: TrialHost, input: Record<string, unknown>) {
  const r = await h.host.invoke('download.plan', input, admin);
  if (r.status !== 'succeeded') throw new Error(JSON.stringify(r));
  return (r.output as StandardOutput<'download.plan'>).plan;
}

export async function completedDownload(h: TrialHost, releaseId = REMUX) {
  const p = await downloadPlan(h, { ...DUNE_2, kind: 'movie', releaseId });
  const r = await h.host.invoke('download.submit', { planId: p.id }, admin);
  if (r.status !== 'pending') throw new Error(JSON.stringify(r));
  h.clock.advance(h.world.durations.queuedMs + h.world.durations.downloadMs);
  return (r.output as StandardOutput<'download.submit'>).download;
}
