// The person a run acts for: who started it, or who last steered it (an administrator continuing a
// user's run). Kept in the run's runtime state so a resumed run acts for the same person.
import { type Actor, isHumanActor } from '../../core/actor';
import type { RunSession } from './run-session';

/** Runtime-state key of the last person who steered the run. */
export const ACTING_FOR_STATE_KEY = 'actingFor';

/**
 * The `user:*` actor whose request the run serves now: the last person who steered it, else who started
 * it; undefined for runs started by API keys, jobs or parent runs (subagents act for nobody, so they never
 * reach admin-only capabilities).
 */
export function actingFor(session: RunSession): Actor | undefined {
  const steered = session.getState(ACTING_FOR_STATE_KEY);
  if (typeof steered === 'string' && isHumanActor(steered)) return steered as Actor;
  const starter = session.run.startedBy;
  return isHumanActor(starter) ? (starter as Actor) : undefined;
}
