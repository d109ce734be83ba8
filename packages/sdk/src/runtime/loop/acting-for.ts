// The person a run acts for, during a drive: the stored rule applied to the session's current state.
import { ACTING_FOR_STATE_KEY, actingForRun } from '../../core/acting-for';
import type { Actor } from '../../core/actor';
import type { RunSession } from './run-session';

/**
 * The `user:*` actor whose request the run serves now (see {@link actingForRun}): the last person who
 * steered it, else who started it; undefined for runs started by API keys, jobs or parent runs.
 */
export function actingFor(session: RunSession): Actor | undefined {
  const steered = session.getState(ACTING_FOR_STATE_KEY);
  return actingForRun({
    startedBy: session.run.startedBy,
    runtimeState: steered === undefined ? null : { [ACTING_FOR_STATE_KEY]: steered },
  });
}
