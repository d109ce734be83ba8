// A host for the schedule tests: a manual clock, sequential ids, alice and bob as ordinary users, `user:admin` as the
// administrator, and three capabilities (a read, an admin-only read, an execute).
import Type from 'typebox';
import {
  ConsoleLogger,
  ManualClock,
  SequentialIdGenerator,
  createAgentHost,
  defineCapability,
  type AgentHost,
  type StorageAdapter,
} from '../../src/index';
import { MemoryStorage } from '../../src/storage';

export const ALICE = 'user:alice';
export const BOB = 'user:bob';
export const ADMIN = 'user:admin';
/** 2026-11-30 12:00 UTC. */
export const T0 = Date.UTC(2026, 10, 30, 12);

export interface ScheduleHost {
  host: AgentHost;
  clock: ManualClock;
  storage: StorageAdapter;
  /** The `schedule.changed` audit rows, oldest first. */
  auditRows: () => ReturnType<AgentHost['audit']>;
}

export async function makeScheduleHost(
  options: { storage?: StorageAdapter; start?: number; minIntervalMs?: number; idTag?: string } = {},
): Promise<ScheduleHost> {
  const clock = new ManualClock(options.start ?? T0);
  const storage = options.storage ?? new MemoryStorage();
  const sequential = new SequentialIdGenerator();
  // Hosts sharing a store need ids of their own (`sch_b1`, `aud_b1`): a tag after the prefix.
  const tag = options.idTag;
  const ids =
    tag === undefined ? sequential : { next: (prefix: string) => sequential.next(prefix).replace('_', `_${tag}`) };
  const host = createAgentHost({
    storage,
    clock,
    ids,
    logger: new ConsoleLogger('silent'),
    identity: { roleOf: (actor) => (actor === ADMIN ? 'admin' : 'user') },
    ...(options.minIntervalMs !== undefined ? { schedules: { minIntervalMs: options.minIntervalMs } } : {}),
  });
  registerScheduleCapabilities(host);
  await host.start({ workers: false });
  return {
    host,
    clock,
    storage,
    auditRows: () => host.audit({ action: 'schedule.changed', limit: 1000 }),
  };
}

/** The three capabilities schedule tests use: `inventory.query` (read), `system.inspect` (admin-only read), `download.submit` (execute). */
export function registerScheduleCapabilities(host: AgentHost): void {
  host.capabilities.register(
    defineCapability({
      id: 'inventory.query',
      version: 1,
      title: 'Query the library inventory',
      description: 'Lists what is in the media library.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({ query: Type.String() }),
      output: Type.Object({ count: Type.Integer() }),
      handler: async () => ({ count: 0 }),
    }),
  );
  host.capabilities.register(
    defineCapability({
      id: 'system.inspect',
      version: 1,
      title: 'Inspect the system',
      description: 'Reads the host system state.',
      kind: 'read',
      replay: 'safe',
      adminOnly: true,
      input: Type.Object({}),
      output: Type.Object({ ok: Type.Boolean() }),
      handler: async () => ({ ok: true }),
    }),
  );
  host.capabilities.register(
    defineCapability({
      id: 'download.submit',
      version: 1,
      title: 'Submit a download',
      description: 'Sends a release to the downloader.',
      kind: 'execute',
      replay: 'never',
      input: Type.Object({ planId: Type.String() }),
      output: Type.Object({ jobId: Type.String() }),
      handler: async () => ({ jobId: 'job-1' }),
    }),
  );
}
