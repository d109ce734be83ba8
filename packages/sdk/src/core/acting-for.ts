// The person a run acts for: who started it, or who last steered it (an administrator continuing a
// user's run). Kept in the run's stored runtime state, so the invocation path reads it from storage and
// a resumed run acts for the same person; a caller can never claim it.
import { type Actor, isHumanActor } from './actor';
import type { RunRecord } from './run-records';

/** Runtime-state key of the last person who steered the run. */
export const ACTING_FOR_STATE_KEY = 'actingFor';

/**
 * The `user:*` actor whose request the run serves now: the last person who steered it (as stored), else
 * who started it; undefined for runs started by API keys, jobs or parent runs (subagents act for nobody,
 * so they never reach admin-only capabilities).
 */
export function actingForRun(run: Pick<RunRecord, 'startedBy' | 'runtimeState'>): Actor | undefined {
  const state = run.runtimeState;
  const steered =
    state !== null && typeof state === 'object' && !Array.isArray(state) ? state[ACTING_FOR_STATE_KEY] : undefined;
  if (typeof steered === 'string' && isHumanActor(steered)) return steered as Actor;
  return isHumanActor(run.startedBy) ? (run.startedBy as Actor) : undefined;
}
