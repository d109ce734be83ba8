import { MediaAgentError } from '../core/errors';
import type { RunEvent } from '../runtime/events/run-event';
import type { ManualClock } from '../ports/clock';
import type { AgentHost } from '../runtime/agent-host';
import type { RunRecord, RunStatus } from '../core/run-records';

/** The statuses a run does not leave. */
const TERMINAL: ReadonlySet<RunStatus> = new Set(['succeeded', 'failed', 'cancelled', 'budget_exceeded']);

/**
 * Waits until a run reaches one of `statuses`, polling every 5 ms of real time; with a
 * {@link ManualClock} and `tickMs`, advances the clock by `tickMs` between polls (so downloads and
 * goal-settled polls move). For tests and scripted demos.
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
    await new Promise((r) => setTimeout(r, 5));
  }
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
