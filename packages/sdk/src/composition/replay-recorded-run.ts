// The public `replayRecordedRun`: the runtime's replay drive with `createAgentHost` for its isolated host (the
// runtime cannot import the composition root).
import type { RecordedRun } from '../runtime/replay/recorded-run';
import { driveRecordedRun, type ReplayedRun, type ReplayRecordedRunOptions } from '../runtime/replay/replay-drive';
import { createAgentHost } from './container';

/**
 * Re-drives a recorded run (`readRecordedRun`) without side effects, in an isolated host built here: memory
 * storage, a manual clock from the run's creation, sequential ids, a silent logger, goal facts answering the
 * recorded facts, and the real run loop, invocation path, authorization and ledger of that isolated store. A
 * scripted model plays the recorded turns (each subagent matched by its delegated goal); each capability the run
 * called is the current runtime's definition (`options.capabilities`) with its handler answering the recorded
 * results (matched by capability and canonical input, in order); the recorded plans are recreated, steering is sent
 * before the turn it preceded, approvals are decided as they were, and `options.authorization`'s grants, policy
 * revisions and automation settings are copied in. No model, handler or ledger of a real host is touched.
 *
 * @param recorded - the run to replay
 * @param options - the current runtime: `capabilities` (a registry; absent: every capability is missing),
 *   `settings` (run settings), `authorization` (a store to copy grants from), `identity`, `timeoutMs` (default 30 000)
 * @returns the replayed run read back (`replayed`), its calls and report, the missing capabilities, how many
 *   handler calls the recording answered, the model turns played, and whether it was cut short
 * @example
 * ```ts
 * const recorded = await readRecordedRun(storage, runId, { capabilities: host.capabilities });
 * const replay = await replayRecordedRun(recorded, { capabilities: host.capabilities, authorization: storage });
 * const divergences = compareReplay(recorded, replay); // [] when the current runtime goes the same way
 * ```
 * @public
 */
export function replayRecordedRun(recorded: RecordedRun, options: ReplayRecordedRunOptions = {}): Promise<ReplayedRun> {
  return driveRecordedRun(recorded, options, createAgentHost);
}
