import { MediaAgentError } from '../core/errors';
import type { RunEvent } from '../runtime/events/run-event';
import type { ManualClock } from '../ports/clock';
import type { AgentHost } from '../runtime/agent-host';
import { HostLifecycleError } from '../runtime/host-lifecycle';
import type { RunRecord, RunStatus } from '../core/run-records';

/** The statuses a run does not leave. */
const TERMINAL: ReadonlySet<RunStatus> = new Set(['succeeded', 'failed', 'cancelled', 'budget_exceeded']);

/**
 * Waits until a run reaches one of `statuses`. The run is read again whenever it writes a `run_status` event (when
 * `host` is a started `AgentHost`: its `events({ runId })`), and at the latest every 50 ms; on any other `host`,
 * every 5 ms of real time. With a {@link ManualClock} and `tickMs`, it reads every 5 ms and advances the clock by
 * `tickMs` between reads (so downloads and goal-settled polls move). For tests and scripted demos.
 *
 * @param host - the host driving the run
 * @param runId - the run
 * @param statuses - the statuses to wait for
 * @param options - `clock` + `tickMs` (ms) to move time; `timeoutMs` real-time limit (default 30 000: a
 *   deadline for a run that never gets there, not a timing check; it returns as soon as the status is reached)
 * @returns the run as it is when it reached one of `statuses`
 * @throws `RUN_WAIT_TIMEOUT` naming the status and step it is in when the time is up, or at once when the run
 *   ended in a status that is not one of `statuses`; `HOST_STOPPED` when the host stops while it waits
 * @public
 */
export async function waitForRunStatus(
  host: Pick<AgentHost, 'getRun'>,
  runId: string,
  statuses: readonly RunStatus[],
  options: { clock?: ManualClock; tickMs?: number; timeoutMs?: number } = {},
): Promise<RunRecord> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const wake = options.clock ? undefined : eventWake(host, runId);
  try {
    for (;;) {
      const { run } = await readRun(host, runId);
      if (statuses.includes(run.status)) return run;
      // A run that ended in another status never gets there: say so now, not at the deadline.
      if (Date.now() > deadline || TERMINAL.has(run.status))
        throw new MediaAgentError(
          'RUN_WAIT_TIMEOUT',
          `run ${runId} is ${run.status} (step ${run.step}), expected ${statuses.join('/')}`,
          { runId, status: run.status, step: run.step },
        );
      if (options.clock && options.tickMs) options.clock.advance(options.tickMs);
      await (wake ? wake.next(50) : new Promise((r) => setTimeout(r, 5)));
    }
  } finally {
    await wake?.close();
  }
}

/**
 * `host.getRun(runId)`; a read the host's stop failed (its store closed under it) fails `HOST_STOPPED`, as every call
 * after `stop()` does, not with the store's `STORAGE_CLOSED`.
 */
async function readRun(host: Pick<AgentHost, 'getRun'>, runId: string): ReturnType<AgentHost['getRun']> {
  try {
    return await host.getRun(runId);
  } catch (error) {
    const stopped = (host as Partial<Pick<AgentHost, 'stopSignal'>>).stopSignal?.aborted === true;
    if (stopped && !(error instanceof HostLifecycleError)) throw new HostLifecycleError('stopped', 'waitForRunStatus');
    throw error;
  }
}

/** `next(ms)` resolves at the run's next `run_status` event or after `ms`, whichever is first; `close()` ends the subscription. */
interface EventWake {
  next(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A wake-up at each `run_status` event of the run, from `host.events({ runId, follow: true })`; undefined when `host`
 * has no `events` or is not started (it throws then), so the caller polls.
 */
function eventWake(host: Pick<AgentHost, 'getRun'>, runId: string): EventWake | undefined {
  const events = (host as Partial<Pick<AgentHost, 'events'>>).events;
  if (typeof events !== 'function') return undefined;
  const stop = new AbortController();
  let iterator: AsyncIterator<unknown>;
  try {
    iterator = events.call(host, { runId, follow: true, signal: stop.signal })[Symbol.asyncIterator]();
  } catch {
    return undefined;
  }
  /** The pending wake: resolves at the run's next `run_status` event (or when the subscription ends). */
  let pending: Promise<void> | undefined;
  /** The subscription ended or failed: from then on only the timer wakes. */
  let over = false;
  /**
   * Takes the run's events up to its next `run_status`, which is what a status change writes: the subscription first
   * replays the run's stored events, and each of those is not a reason to read the run again (a status that changes
   * without an event is read at the next timer).
   */
  const nextStatus = async (): Promise<void> => {
    try {
      for (;;) {
        const result = await iterator.next();
        if (result.done) {
          over = true;
          return;
        }
        if (stop.signal.aborted || (result.value as { type?: unknown }).type === 'run_status') return;
      }
    } catch {
      over = true;
    }
  };
  return {
    async next(ms) {
      if (!over) pending ??= nextStatus().finally(() => (pending = undefined));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const elapsed = new Promise<void>((r) => (timer = setTimeout(r, ms)));
      await (pending ? Promise.race([pending, elapsed]) : elapsed);
      clearTimeout(timer);
    },
    async close() {
      stop.abort();
      // A read still pending ends with the aborted subscription (or takes one more event and stops there); the
      // iteration is then ended here, so the subscription does not stay open paused after an event.
      if (pending) await pending;
      if (!over) await iterator.return?.().catch(() => undefined);
      over = true;
    },
  };
}

/**
 * Every stored event of a run, oldest first (pages through `getRun` by `afterSeq`).
 * @param host - the host
 * @param runId - the run
 * @throws `RUN_NOT_FOUND`
 * @public
 */
export async function listRunEvents(host: Pick<AgentHost, 'getRun'>, runId: string): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for (;;) {
    const { events } = await host.getRun(runId, { afterSeq: out.at(-1)?.seq ?? 0, limit: 1000 });
    out.push(...events);
    if (events.length < 1000) return out;
  }
}
