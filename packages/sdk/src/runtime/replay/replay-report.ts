// What `host.replayRun` returns.
import type { ReplayDivergence } from './replay-compare';

/**
 * What `host.replayRun` found: whether the current runtime re-drives the stored run the same way, where it
 * diverges, and the measured proof that it touched nothing real.
 * @public
 */
export interface RunReplayReport {
  /** The stored run replayed. */
  runId: string;
  /** `same` when no divergence was found, else `diverged`. */
  status: 'same' | 'diverged';
  /** Calls the host's model providers received during the replay (measured; 0 unless another run used them meanwhile). */
  modelCalls: number;
  /** Capability handlers and verifiers the host's registry started during the replay (measured; likewise). */
  handlerCalls: number;
  /** Ledger rows of the host's store added or changed during the replay (measured; likewise). */
  ledgerWrites: number;
  /** Model turns of the stored run (its final reply not counted). */
  turns: number;
  /** Tool calls of the stored run and its subagents. */
  toolCalls: number;
  /** Where the replay diverged, in order (empty when `same`). */
  divergences: ReplayDivergence[];
  /** Status and summary of the stored goal report, or null. */
  storedReport: { status: string; summary: string } | null;
  /** Status and summary of the replay's goal report, or null. */
  replayedReport: { status: string; summary: string } | null;
  /** Model turns the replay played (its final reply counted). */
  replayedModelTurns: number;
  /** Why the replay was cut short (`timeout`, or `waiting` for a person the recording does not play), else null. */
  stopped: 'timeout' | 'waiting' | null;
}
