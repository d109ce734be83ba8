// The person a run belongs to and acts for: who started it, or for a subagent, who started its top-level
// run. Steering never changes it: another person's message is input to the run, never authority.
import type { RunRecord } from '../core/run-records';

/** How far up a subagent's parents the owner is looked for (subagents nest at most 2 deep). */
const MAX_PARENT_HOPS = 16;

/** Reads one run by id (a run repository or a storage session's). */
export interface RunLookup {
  get(id: string): Promise<RunRecord | undefined>;
}

/**
 * The actor a run belongs to: who started it, or for a subagent, who started its top-level run (its
 * parents are read from storage). An administrator who steers another user's run does not become its
 * owner, and the run's calls are never made with the steering person's role.
 * @param runs - where parent runs are read
 * @param run - the run
 * @returns the owner's actor string (`user:`, `apikey:`, `system:` …)
 */
export async function runOwner(runs: RunLookup, run: Pick<RunRecord, 'startedBy' | 'parentRunId'>): Promise<string> {
  let current = run;
  for (let hop = 0; current.parentRunId !== null && hop < MAX_PARENT_HOPS; hop++) {
    const parent = await runs.get(current.parentRunId);
    if (!parent) break;
    current = parent;
  }
  return current.startedBy;
}
