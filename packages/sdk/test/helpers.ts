import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Type from 'typebox';
import { afterAll } from 'vitest';
import { SqliteStorage } from '../src/sqlite';
import {
  ConsoleLogger,
  ManualClock,
  OutcomeUnknownError,
  SequentialIdGenerator,
  createAgentHost,
  defineCapability,
  type AgentHost,
  type StorageAdapter,
} from '../src/index';
import { MemoryStorage } from '../src/storage';

/** The storage implementations the invocation-path tests run against. */
export const STORAGE_KINDS = ['memory', 'sqlite'] as const;
export type StorageKind = (typeof STORAGE_KINDS)[number];

const tempDirs: string[] = [];
const openStorages: StorageAdapter[] = [];
afterAll(async () => {
  for (const s of openStorages.splice(0)) await s.close();
  for (const d of tempDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A new, empty store of the given kind (SQLite: a real file in a temp directory, WAL). */
export function makeStorage(kind: StorageKind = 'memory'): StorageAdapter {
  if (kind === 'memory') return new MemoryStorage();
  const dir = mkdtempSync(join(tmpdir(), 'media-agent-test-'));
  tempDirs.push(dir);
  const storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
  openStorages.push(storage);
  return storage;
}

/** A host with a manual clock and sequential ids on a fresh store, plus a record of handler calls. */
export async function makeHost(options: { kind?: StorageKind; storage?: StorageAdapter; maxInputBytes?: number } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const storage = options.storage ?? makeStorage(options.kind);
  const host = createAgentHost({
    storage,
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    maxInputBytes: options.maxInputBytes,
  });
  await host.start();
  const world = registerWorld(host);
  return { host, clock, storage, ...world };
}

/** A tiny media world: a downloader that records submitted jobs, and capabilities over it. */
export function registerWorld(host: AgentHost) {
  const calls: Record<string, number> = {};
  const jobs: Array<{ planId: string; key: string | undefined }> = [];
  const faults = { submitUnknown: false, submitFail: false };
  const count = (id: string) => (calls[id] = (calls[id] ?? 0) + 1);

  const lookup = defineCapability({
    id: 'inventory.query',
    version: 1,
    title: 'Query the library inventory',
    description: 'Lists what is in the media library.',
    kind: 'read',
    replay: 'safe',
    tags: ['library', 'inventory'],
    aliases: ['库存', '查库存'],
    input: Type.Object({ query: Type.String({ maxLength: 200 }) }),
    output: Type.Object({ items: Type.Array(Type.Object({ title: Type.String() })) }),
    handler: async (input) => {
      count('inventory.query');
      return { items: input.query ? [{ title: input.query }] : [] };
    },
  });

  const downloadPlan = defineCapability({
    id: 'download.plan',
    version: 1,
    title: 'Plan a download',
    description: 'Freezes a download plan for a release.',
    kind: 'propose',
    replay: 'reconcile',
    policy: 'acquisition',
    input: Type.Object({
      releaseId: Type.String(),
      mediaEntityId: Type.String(),
      mediaKind: Type.String(),
      bytes: Type.Integer({ minimum: 0 }),
    }),
    output: Type.Object({ planId: Type.String(), payloadHash: Type.String() }),
    target: (input) => ({ mediaEntityId: input.mediaEntityId, mediaKind: input.mediaKind, bytes: 0 }),
    handler: async (input, ctx) => {
      count('download.plan');
      const plan = await host.plans.create({
        type: 'download',
        payload: { releaseId: input.releaseId },
        actor: ctx.actor,
        mediaEntityId: input.mediaEntityId,
        mediaKind: input.mediaKind,
        bytes: input.bytes,
      });
      return { planId: plan.id, payloadHash: plan.payloadHash };
    },
  });

  const downloadSubmit = defineCapability({
    id: 'download.submit',
    version: 1,
    title: 'Submit a planned download',
    description: 'Sends a planned release to the downloader.',
    kind: 'execute',
    replay: 'never',
    policy: 'acquisition',
    tags: ['download'],
    input: Type.Object({
      planId: Type.String(),
      note: Type.Optional(Type.String()),
      apiToken: Type.Optional(Type.String()),
      password: Type.Optional(Type.String()),
    }),
    output: Type.Object({ jobId: Type.String() }),
    redact: ['note'],
    target: (input) => ({ planType: 'download', planId: input.planId }),
    handler: async (input, ctx) => {
      count('download.submit');
      if (faults.submitFail) throw new Error('downloader rejected the torrent');
      jobs.push({ planId: input.planId, key: ctx.idempotencyKey });
      if (faults.submitUnknown) throw new OutcomeUnknownError('connection reset after the request was sent');
      return { jobId: `job-${jobs.length}` };
    },
  });

  const organize = defineCapability({
    id: 'organize.execute',
    version: 1,
    title: 'Organize files into the library',
    description: 'Moves downloaded files into the library layout.',
    kind: 'execute',
    replay: 'reconcile',
    tags: ['organize', 'library'],
    aliases: ['整理', '入库'],
    input: Type.Object({ path: Type.String() }),
    output: Type.Object({ organized: Type.Boolean() }),
    handler: async () => {
      count('organize.execute');
      return { organized: true };
    },
  });

  for (const c of [lookup, downloadPlan, downloadSubmit, organize]) host.capabilities.register(c);
  return { calls, jobs, faults, capabilities: { lookup, downloadPlan, downloadSubmit, organize } };
}

/** Creates a download plan as a user and returns it. */
export async function makePlan(
  host: AgentHost,
  overrides: { bytes?: number; mediaEntityId?: string; mediaKind?: string } = {},
) {
  return host.plans.create({
    type: 'download',
    payload: { releaseId: 'rel-1' },
    actor: 'user:admin',
    mediaEntityId: overrides.mediaEntityId ?? 'movie-dune-2',
    mediaKind: overrides.mediaKind ?? 'movie',
    bytes: overrides.bytes ?? 1000,
  });
}

/** Asks for and grants an approval of `planId` as the console administrator. */
export async function approvePlan(host: AgentHost, planId: string, requestedBy = 'agent:run-1') {
  const plan = await host.plans.get(planId);
  const approval = await host.approvals.request({ planType: plan.type, planId, actor: requestedBy });
  return host.approvals.decide(approval.id, { status: 'approved', actor: 'user:admin', payloadHash: plan.payloadHash });
}

/**
 * `shelf.read`: a read capability that lists 12 long film titles of one shelf, `Shelf <n> title <k><separator>a
 * film with a fairly long descriptive name` (context-filling output for compaction tests).
 */
export function shelfReadCapability(separator = ' — ') {
  return defineCapability({
    id: 'shelf.read',
    version: 1,
    title: 'Read a shelf',
    description: 'Lists one shelf.',
    kind: 'read',
    replay: 'safe',
    input: Type.Object({ shelf: Type.Integer() }),
    output: Type.Object({ titles: Type.Array(Type.String()) }),
    handler: async ({ shelf }) => ({
      titles: Array.from(
        { length: 12 },
        (_, k) => `Shelf ${shelf} title ${k}${separator}a film with a fairly long descriptive name`,
      ),
    }),
  });
}
