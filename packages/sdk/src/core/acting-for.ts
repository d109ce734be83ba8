// The person a run acts for: the person who started it, whoever steers it later. Another person's
// message (an administrator continuing a user's run) is input to the run, never authority: the run's
// calls keep its owner's role. A caller can never claim it; it is read from the stored run.
import { type Actor, isHumanActor } from './actor';
import type { RunRecord } from './run-records';

/**
 * The `user:*` actor a run acts for: the person who started it; undefined for runs started by API keys,
 * jobs or parent runs (a subagent's calls are authorized with its top-level run's owner, read from
 * storage by the invocation path). Steering never changes it.
 */
export function actingForRun(run: Pick<RunRecord, 'startedBy'>): Actor | undefined {
  return isHumanActor(run.startedBy) ? (run.startedBy as Actor) : undefined;
}
