// `--export-trajectory <db> <runId> <file>`: a stored run becomes a trajectory file that `--replay` accepts.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import { readRecordedRun } from '../../runtime/replay/recorded-run';
import { openEvalStore, storedRun, type EvalStore } from './eval-store';
import { reserveOutputFile } from './output-file';
import { readRecordedAuthorization } from './recorded-authorization';
import { trajectoryFromRecordedRun } from './recorded-trajectory';
import { parseTrajectory, type Trajectory } from './trajectory';

/** Options of {@link exportRunTrajectory}. @public */
export interface ExportRunOptions {
  /** The database: a SQLite file path or a `postgres://` URL. */
  db: string;
  /** The run to export. */
  runId: string;
  /** The trajectory file to write (absolute); replaced whole, or left as it was. */
  file: string;
  /** Working directory a relative SQLite path is resolved against. */
  cwd: string;
  /** The registry that describes the capabilities the run called (the current runtime's). */
  capabilities: Pick<CapabilityRegistry, 'has' | 'get'>;
}

/**
 * Exports a stored run as a trajectory of scenario `recorded` (see `trajectoryFromRecordedRun`), whose `expect` is
 * the verdict the recorded oracle gives the stored run, with the store's grants, policy revisions and automation
 * settings (`readRecordedAuthorization`) so its replay is authorized as the run was. Order of work: the output file is reserved first (a
 * temporary file beside it), then the database is opened read-only and the run read; the file is written through
 * the temporary file and a rename, so it is whole or not there.
 * @param options - database, run, file, working directory, describing registry
 * @returns the trajectory written
 * @throws {@link EvalInputError} `EVAL_EXPORT_UNWRITABLE` (the file's folder cannot be written, or it is a
 *   directory), `EVAL_DB_INVALID`, `EVAL_RUN_NOT_FOUND`, `EVAL_TRAJECTORY_INVALID` (the run is larger than a recorded
 *   trajectory may be); `RUN_PRUNED` (retention removed its conversation)
 * @example
 * ```ts
 * const runtime = await buildEvalRuntime();
 * const t = await exportRunTrajectory({ db: 'data/agent.sqlite', runId: 'run_7', file: '/tmp/run_7.json', cwd: process.cwd(), capabilities: runtime.capabilities });
 * t.expect; // { verdict: 'fail', code: 'goal_failed' }
 * ```
 * @public
 */
export async function exportRunTrajectory(options: ExportRunOptions): Promise<Trajectory> {
  const out = reserveOutputFile(options.file, '--export-trajectory', 'EVAL_EXPORT_UNWRITABLE');
  let store: EvalStore | undefined;
  try {
    store = await openEvalStore(options.db, options.cwd);
    await storedRun(store, options.runId);
    const recorded = await readRecordedRun(store.storage, options.runId, { capabilities: options.capabilities });
    const policyKinds = recorded.capabilities.flatMap((c) => (typeof c.policy === 'string' ? [c.policy] : []));
    const authorization = await readRecordedAuthorization(store.storage, policyKinds);
    const text = `${JSON.stringify(trajectoryFromRecordedRun(recorded, { authorization }), null, 2)}\n`;
    // The file must be one `--replay` accepts: the same parser, the same bounds.
    const trajectory = parseTrajectory(text, `run ${options.runId}`);
    out.commit(text);
    return trajectory;
  } finally {
    out.abort();
    await store?.close();
  }
}
