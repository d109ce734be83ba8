// One host process of the schedules scale scenario (started by harness.ts with `node --import tsx`): a real agent
// host on the shared store (a SQLite file or a PostgreSQL schema), on the shared fast clock, with a scripted model
// that answers every goal at once, whose schedule runner fires due ticks until the controller SIGKILLs it (SIGTERM
// stops it cleanly). It reports over the IPC channel:
//   { type: 'starting', at }   about to start its host (scenario ms): from here on it may poll
//   { type: 'ready', at }      the host started (store migrated, scheduler and workers running)
//   { type: 'beat', at }       every 100 ms real after that: its event loop turns (shown when a fire is missed)
//   { type: 'poll', at }       its scheduler starts a poll: it reads the schedules due at `at` (scenario ms)
//   { type: 'error', message } the host failed to start or stop
// Config: the `SCHEDULE_SCALE_CHILD` environment variable (JSON, {@link ScaleChildConfig}).
import { ConsoleLogger, createAgentHost, type LogLevel } from '../../../src/index';
import { ScriptedProvider } from '../../../src/testing';
import type { StorageAdapter } from '../../../src/storage';
import { FastClock, type FastTimeBase } from './fast-clock';
import { openScaleStore, type ScaleStoreSpec } from './store-spec';

/** What the controller passes to a host process. */
export interface ScaleChildConfig {
  /** The shared store. */
  store: ScaleStoreSpec;
  /** The shared time base (the same in every process). */
  time: FastTimeBase;
  /** The scheduler's poll (real ms: the runner's timer), grace (scenario ms) and batch. */
  schedules: { pollMs: number; graceMs: number; maxPerPoll: number };
  /** The run workers' poll (ms) and lease (scenario ms: the host's clock measures it). */
  runs: { pollMs: number; leaseMs: number; concurrency: number };
  /** Log level (default silent). */
  logLevel?: LogLevel;
}

const config = JSON.parse(process.env.SCHEDULE_SCALE_CHILD ?? '') as ScaleChildConfig;
const send = (message: unknown) => process.send?.(message);
const clock = new FastClock(config.time);
/** No cap: the scenario is about ticks, not about spending (a scheduled run at a cap would wait, not fail). */
const open = { runs: null, costUsd: null };

/**
 * The adapter the host gets: the store itself, except that each call of `schedules.due` (the first read of every
 * scheduler poll, with the instant the poll judges its ticks by) is reported as `{ type: 'poll', at }`: the oracle
 * counts on a process to fire a tick only when one of its polls began and ended within the tick's grace.
 */
function reportingPolls(storage: StorageAdapter): StorageAdapter {
  const schedules = new Proxy(storage.schedules, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== 'due' || typeof value !== 'function') return value;
      return (now: number, ...rest: unknown[]) => {
        send({ type: 'poll', at: now });
        return value.apply(target, [now, ...rest]);
      };
    },
  });
  return new Proxy(storage, {
    get(target, prop, receiver) {
      if (prop === 'schedules') return schedules;
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

try {
  const storage = await openScaleStore(config.store);
  const host = createAgentHost({
    storage: reportingPolls(storage),
    clock,
    logger: new ConsoleLogger(config.logLevel ?? 'silent'),
    model: { provider: new ScriptedProvider({ scripts: [{ finalText: 'Checked the library: nothing to do.' }] }) },
    runs: {
      ...config.runs,
      spending: {
        roles: { user: { day: open, month: open }, admin: { day: open, month: open } },
        household: { day: open, month: open },
      },
    },
    schedules: config.schedules,
    maintenance: { schedule: false },
  });
  send({ type: 'starting', at: clock.now() });
  await host.start();
  send({ type: 'ready', at: clock.now() });
  setInterval(() => send({ type: 'beat', at: clock.now() }), 100);
  process.once('SIGTERM', () => {
    host.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        send({ type: 'error', message: `stop: ${String(error)}` });
        process.exit(1);
      },
    );
  });
} catch (error) {
  send({ type: 'error', message: `start: ${(error as Error).stack ?? String(error)}` });
  process.exit(1);
}
