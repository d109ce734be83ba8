import { rmSync } from 'node:fs';
import Type from 'typebox';
import { afterEach } from 'vitest';
import {
  ConsoleLogger,
  ManualClock,
  SequentialIdGenerator,
  createAgentHost,
  defineCapability,
  type GoalFacts,
  type GoalFactsSnapshot,
  type RunOptions,
  type IdGenerator,
  type IdentityResolver,
  type StorageAdapter,
  type AgentHost,
} from '../../src/index';
import type { TracingOptions } from '../../src/loop';
import { MemoryStorage } from '../../src/storage';
import { ScriptedProvider, type FakeScript } from '../../src/testing';

/**
 * What a test file opens and must close after each test, registered with `afterEach`: hosts (stopped), servers
 * (closed), temporary directories (removed), in that order.
 */
export function closedAfterEach<S extends { close(): unknown }>(): {
  hosts: AgentHost[];
  servers: S[];
  dirs: string[];
} {
  const opened = { hosts: [] as AgentHost[], servers: [] as S[], dirs: [] as string[] };
  afterEach(async () => {
    for (const h of opened.hosts.splice(0)) await h.stop().catch(() => undefined);
    await Promise.all(opened.servers.splice(0).map((s) => s.close()));
    for (const d of opened.dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return opened;
}

/** A tiny world for run tests: a library, a downloader whose jobs import after `importAfterMs`. */
export function makeWorld(clock: ManualClock) {
  const library = new Set<string>(['Arrival']);
  const jobs: Array<{ id: string; title: string; runId: string | undefined; at: number; key: string | undefined }> = [];
  const touched = new Map<string, Set<string>>();
  const state = { importAfterMs: 60_000, failDownloads: false, blockSubmit: undefined as undefined | Promise<void> };
  const touch = (runId: string | undefined, title: string) => {
    if (!runId) return;
    if (!touched.has(runId)) touched.set(runId, new Set());
    touched.get(runId)!.add(title);
  };
  const statusOf = (job: (typeof jobs)[number]) =>
    state.failDownloads ? 'failed' : clock.now() - job.at >= state.importAfterMs ? 'imported' : 'downloading';
  const facts: GoalFacts = {
    forRun: async (runId): Promise<GoalFactsSnapshot> => {
      const mine = jobs.filter((j) => j.runId === runId);
      return {
        plans: [],
        downloads: mine.map((j) => ({
          id: j.id,
          mediaEntityId: `title:${j.title}`,
          title: j.title,
          status: statusOf(j) as 'imported',
        })),
        organizes: mine
          .filter((j) => statusOf(j) === 'imported')
          .map((j) => ({
            id: `org-${j.id}`,
            downloadId: j.id,
            mediaEntityId: `title:${j.title}`,
            status: 'succeeded' as const,
            libraryPath: `/library/${j.title}`,
          })),
        library: [...(touched.get(runId) ?? [])].map((t) => ({
          mediaEntityId: `title:${t}`,
          title: t,
          present: library.has(t) || mine.some((j) => j.title === t && statusOf(j) === 'imported'),
        })),
      };
    },
  };
  const capabilities = [
    defineCapability({
      id: 'inventory.query',
      version: 1,
      title: 'Query the library',
      description: 'Is a title in the library?',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({ title: Type.String() }),
      output: Type.Object({ present: Type.Boolean() }),
      handler: async (input, ctx) => {
        touch(ctx.runId, input.title);
        return { present: library.has(input.title) };
      },
    }),
    defineCapability({
      id: 'download.submit',
      version: 1,
      title: 'Download a title',
      description: 'Adds a download job.',
      kind: 'execute',
      replay: 'never',
      input: Type.Object({ title: Type.String() }),
      output: Type.Object({ jobId: Type.String() }),
      handler: async (input, ctx) => {
        touch(ctx.runId, input.title);
        if (state.blockSubmit)
          await Promise.race([
            state.blockSubmit,
            new Promise((_, reject) =>
              ctx.signal.addEventListener('abort', () => reject(new Error('aborted by the run'))),
            ),
          ]);
        const job = {
          id: `job-${jobs.length + 1}`,
          title: input.title,
          runId: ctx.runId,
          at: clock.now(),
          key: ctx.idempotencyKey,
        };
        jobs.push(job);
        return { jobId: job.id };
      },
    }),
  ];
  return { library, jobs, facts, capabilities, state };
}

/** A started host with the scripted provider, manual clock, sequential ids and the tiny world. */
export async function startHost(
  scripts: FakeScript | FakeScript[],
  options: {
    storage?: StorageAdapter;
    runs?: RunOptions;
    workers?: boolean;
    ids?: IdGenerator;
    identity?: IdentityResolver;
    tracing?: TracingOptions;
  } = {},
) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const world = makeWorld(clock);
  const provider = new ScriptedProvider({ scripts });
  const host = createAgentHost({
    storage: options.storage ?? new MemoryStorage(),
    clock,
    ids: options.ids ?? new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider, model: 'scripted' },
    goalFacts: world.facts,
    ...(options.identity ? { identity: options.identity } : {}),
    ...(options.tracing ? { tracing: options.tracing } : {}),
    runs: { pollMs: 5, leaseMs: 60_000, goalPollSec: 60, refusedTurnPauseMs: 1, ...(options.runs ?? {}) },
  });
  for (const c of world.capabilities) host.capabilities.register(c);
  await host.start({ workers: options.workers ?? true });
  return { host, clock, world, provider };
}

/** Shared with hosts and adapters: `@media-agent/sdk/testing`. */
export { waitForRunStatus as waitForStatus, listRunEvents as runEvents } from '../../src/testing';

/** `download.restart` (execute, never replayed) without its handler: each test brings its own. */
export const downloadRestart = {
  id: 'download.restart',
  version: 1,
  title: 'Restart a download',
  description: 'Restarts a download in the downloader.',
  kind: 'execute',
  replay: 'never',
  input: Type.Object({ downloadId: Type.String() }),
  output: Type.Object({ restarted: Type.Boolean() }),
} as const;
