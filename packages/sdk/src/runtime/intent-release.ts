/**
 * One intent, one job (docs/intents.md): a run that reaches a terminal status releases every intent it holds, in the
 * transaction that stores its end, so the next request for the same media entity proceeds at once.
 * @packageDocumentation
 */
import type { StorageSession } from '../ports/storage-adapter';

/**
 * Releases the intents run `runId` holds; call it in the transaction that stores the run's terminal status.
 * @returns how many were released
 * @internal
 */
export function releaseRunIntents(s: StorageSession, runId: string): Promise<number> {
  return s.intents.releaseByRun(runId);
}
