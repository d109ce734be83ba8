// `--from-run <db> <runId>`: a stored run replayed through the current runtime, with what diverged.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';

/** Options of {@link replayStoredRun}. @public */
export interface ReplayStoredRunOptions {
  /** The database: a SQLite file path or a `postgres://` URL. */
  db: string;
  /** The run to replay. */
  runId: string;
  /** Working directory a relative SQLite path is resolved against. */
  cwd: string;
  /** The current runtime's registry. */
  capabilities: CapabilityRegistry;
}

/** @public */
export async function replayStoredRun(_options: ReplayStoredRunOptions): Promise<{ status: 'same' | 'diverged' }> {
  throw new Error('not yet');
}

/** @public */
export function formatReplayReport(report: { status: string }): string {
  return report.status;
}
