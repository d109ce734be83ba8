// A memory store with a started host (scripted model, manual clock) and schedule runners on the same store: each
// runner stands for one host process (its own name in handledBy); the host's workers drive the runs they queue.
import Type from 'typebox';
import { ConsoleLogger, SequentialIdGenerator, defineCapability, type IdentityResolver } from '../../../src/index';
import type { ScheduleRecord } from '../../../src/core/schedule-records';
import { DEFAULT_IDENTITY_RESOLVER } from '../../../src/ports/identity';
import { RunEventBus } from '../../../src/runtime/events/run-event-bus';
import { DEFAULT_RUN_BUDGETS } from '../../../src/runtime/run-budgets';
import { RunService } from '../../../src/runtime/run-service';
import {
  DEFAULT_SCHEDULE_RUNNER_SETTINGS,
  ScheduleRunner,
  type ScheduleRunnerSettings,
} from '../../../src/runtime/schedules/schedule-runner';
import { MemoryStorage } from '../../../src/storage';
import type { StorageAdapter } from '../../../src/ports/storage-adapter';
import type { FakeScript } from '../../../src/testing';
import { startHost } from '../harness';

export const MIN = 60_000;
export const HOUR = 3_600_000;

/** Administrators: `user:root`. */
export const ROLES: IdentityResolver = { roleOf: async (actor) => (actor === 'user:root' ? 'admin' : 'user') };

/** A host on a memory store, and what a test needs to make schedules and runners on it. */
export async function scheduleFixture(
  options: {
    scripts?: FakeScript | FakeScript[];
    workers?: boolean;
    identity?: IdentityResolver;
    storage?: StorageAdapter;
  } = {},
) {
  const storage = options.storage ?? new MemoryStorage();
  const ids = new SequentialIdGenerator();
  const identity = options.identity ?? DEFAULT_IDENTITY_RESOLVER;
  const h = await startHost(options.scripts ?? [], { storage, ids, identity, workers: options.workers ?? false });
  h.host.capabilities.register(
    defineCapability({
      id: 'library.rescan',
      version: 1,
      title: 'Rescan the library',
      description: 'Rescans every library folder (administrators only).',
      kind: 'read',
      replay: 'safe',
      adminOnly: true,
      input: Type.Object({}),
      output: Type.Object({ ok: Type.Boolean() }),
      handler: async () => ({ ok: true }),
    }),
  );
  const bus = new RunEventBus(storage, h.clock);
  let woken = 0;
  const runs = new RunService({
    storage,
    capabilities: h.host.capabilities,
    bus,
    clock: h.clock,
    ids,
    budgets: { ...DEFAULT_RUN_BUDGETS },
    wake: () => undefined,
    abortLocal: () => undefined,
    identity,
  });
  /** A runner: one host process. `on`: another adapter on the same store (a SQLite file or PostgreSQL schema). */
  const runner = (name = 'host:a', settings: Partial<ScheduleRunnerSettings> = {}, on: StorageAdapter = storage) => {
    const onBus = on === storage ? bus : new RunEventBus(on, h.clock);
    const onRuns =
      on === storage
        ? runs
        : new RunService({
            storage: on,
            capabilities: h.host.capabilities,
            bus: onBus,
            clock: h.clock,
            ids,
            budgets: { ...DEFAULT_RUN_BUDGETS },
            wake: () => undefined,
            abortLocal: () => undefined,
            identity,
          });
    return new ScheduleRunner({
      storage: on,
      runs: onRuns,
      capabilities: h.host.capabilities,
      identity,
      bus: onBus,
      clock: h.clock,
      ids,
      logger: new ConsoleLogger('silent'),
      wake: () => {
        woken++;
      },
      owner: name,
      settings: { ...DEFAULT_SCHEDULE_RUNNER_SETTINGS, ...settings },
    });
  };
  let n = 0;
  /** Stores a schedule (an hourly interval from now by default) as host.schedules would. */
  const schedule = async (over: Partial<ScheduleRecord> = {}): Promise<ScheduleRecord> => {
    const now = h.clock.now();
    const everyMs = over.cron ? null : (over.everyMs ?? HOUR);
    const record: ScheduleRecord = {
      id: `sch_t${++n}`,
      owner: 'user:alice',
      createdBy: 'user:alice',
      clientKey: null,
      cron: null,
      everyMs,
      anchorAt: now,
      timezone: 'UTC',
      goal: 'Check that Arrival is still in the library',
      mode: 'execute',
      capabilityAllowlist: ['inventory.query'],
      budgets: {},
      missed: 'skip',
      status: 'active',
      nextTickAt: everyMs === null ? null : now + everyMs,
      lastTickAt: null,
      lastRunId: null,
      revision: 1,
      createdAt: now,
      updatedAt: now,
      ...over,
    };
    if (!(await storage.schedules.insert(record))) throw new Error('schedule not stored');
    return record;
  };
  return { ...h, storage, ids, bus, runs, runner, schedule, woken: () => woken };
}
