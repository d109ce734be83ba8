import { MediaAgentError } from '../core/errors';
import type { RunEvent } from '../runtime/events/run-event';
import type { ManualClock } from '../ports/clock';
import type { AgentHost } from '../runtime/agent-host';
import type { RunRecord, RunStatus } from '../core/run-records';

/** The statuses a run does not leave. */
const TERMINAL: ReadonlySet<RunStatus> = new Set(['succeeded', 'failed', 'cancelled', 'budget_exceeded']);

/**
 * Waits until a run reaches one of `statuses`. The run is read again whenever it writes an event (when `host` is a
 * started `AgentHost`: its `events({ runId })`), and at the latest every 50 ms; on any other `host`, every 5 ms of
 * real time. With a {@link ManualClock} and `tickMs`, it reads every 5 ms and advances the clock by `tickMs` between
 * reads (so downloads and goal-settled polls move). For tests and scripted demos.
 *
 * @param host - the host driving the run
 * @param runId - the run
 * @param statuses - the statuses to wait for
 * @param options - `clock` + `tickMs` (ms) to move time; `timeoutMs` real-time limit (default 30 000: a
 *   deadline for a run that never gets there, not a timing check; it returns as soon as the status is reached)
 * @returns the run as it is when it reached one of `statuses`
 * @throws `RUN_WAIT_TIMEOUT` naming the status and step it is in when the time is up, or at once when the run
 *   ended in a status that is not one of `statuses`
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
      const { run } = await host.getRun(runId);
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

/** Resolves `next(ms)` at the run's next event or after `ms`, whichever is first; `close()` ends the subscription. */
interface EventWake {
  next(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A wake-up on each event of the run, from `host.events({ runId, follow: true })`; undefined when `host` has no
 * `events` or is not started (it throws then), so the caller polls.
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
  /** The iterator's `next()` asked for and not yet taken (one at a time). */
  let asked: Promise<IteratorResult<unknown>> | undefined;
  const ask = () => (asked ??= iterator.next());
  /** The pending wake: the next event arrived, and every event ready along with it was taken. */
  let pending: Promise<void> | undefined;
  /** The subscription ended or failed: from then on only the timer wakes. */
  let over = false;
  /**
   * Resolves at the run's next event, after taking the events ready with it (those that come within a few promise
   * turns, no timer: fake timers do not hold it): the subscription replays the run's stored events first, and a burst
   * (that history, a step's events) is one wake, one read of the run, not one each.
   */
  const nextEvent = async (): Promise<void> => {
    try {
      for (let first = true; ; first = false) {
        const result = first ? await ask() : await Promise.race([ask(), microtasks(20)]);
        if (result === undefined) return; // none ready at once: `asked` stays pending for the next wake
        asked = undefined;
        if (result.done) {
          over = true;
          return;
        }
      }
    } catch {
      asked = undefined;
      over = true;
    }
  };
  return {
    async next(ms) {
      if (!over) pending ??= nextEvent().finally(() => (pending = undefined));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const elapsed = new Promise<void>((r) => (timer = setTimeout(r, ms)));
      await (pending ? Promise.race([pending, elapsed]) : elapsed);
      clearTimeout(timer);
    },
    async close() {
      stop.abort();
      // A read still pending ends with the aborted subscription — or delivers an event first; either way the
      // iteration is then ended here, so the subscription does not stay open paused after an event.
      if (pending) await pending;
      if (asked) await asked.then(settled, settled);
      if (!over) await iterator.return?.().catch(() => undefined);
      over = true;
    },
  };
  function settled(result?: IteratorResult<unknown>): void {
    asked = undefined;
    if (!result || result.done) over = true;
  }
}

/** Resolves `undefined` after `n` promise turns (no timer). */
async function microtasks(n: number): Promise<undefined> {
  for (let i = 0; i < n; i++) await Promise.resolve();
  return undefined;
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
