// `--from-run <db> <runId>`: a stored run replayed through the current runtime (the SDK's replay of `host.replayRun`,
// on a database opened read-only), and the report as a table.
import { createAgentHost } from '../../composition/container';
import type { RunReplayReport } from '../../runtime/replay/replay-report';
import { replayStoredRun } from '../../runtime/replay/run-replay';
import type { EvalRuntime } from './eval-runtime';
import { openEvalStore, storedRun } from './eval-store';
import { table } from './report';

/** Options of {@link replayRunFromDatabase}. @public */
export interface ReplayFromDatabaseOptions {
  /** The database: a SQLite file path or a `postgres://` URL. */
  db: string;
  /** The run to replay. */
  runId: string;
  /** Working directory a relative SQLite path is resolved against. */
  cwd: string;
  /** The current runtime: its definitions, settings, roles and the counters of its model and handlers. */
  runtime: EvalRuntime;
  /** Real-time limit of the replay in ms. @defaultValue 30 000 */
  timeoutMs?: number;
}

/**
 * Replays a stored run through the current runtime without side effects, as `host.replayRun` does on a host: the
 * run is read from the database (read-only), re-driven in an isolated host with the runtime's definitions, run
 * settings and roles and the database's grants, policy revisions and automation settings, and compared with what
 * was stored. The report's `modelCalls` and `handlerCalls` count the runtime's own model and handlers, and
 * `ledgerWrites` the database's ledger rows that changed: all 0.
 * @param options - database, run, working directory, runtime
 * @returns the replay report (`status` `same` or `diverged`, the divergences)
 * @throws `EvalInputError` `EVAL_DB_INVALID`, `EVAL_RUN_NOT_FOUND`; `RUN_PRUNED`
 * @example
 * ```ts
 * const runtime = await buildEvalRuntime();
 * const report = await replayRunFromDatabase({ db: 'data/agent.sqlite', runId: 'run_7', cwd: process.cwd(), runtime });
 * console.log(formatReplayReport(report));
 * ```
 * @public
 */
export async function replayRunFromDatabase(options: ReplayFromDatabaseOptions): Promise<RunReplayReport> {
  const store = await openEvalStore(options.db, options.cwd);
  try {
    await storedRun(store, options.runId);
    const r = options.runtime;
    return await replayStoredRun(
      {
        storage: store.storage,
        capabilities: r.capabilities,
        identity: r.identity,
        settings: r.settings,
        createHost: createAgentHost,
        modelCalls: r.modelCalls,
        handlerCalls: r.handlerCalls,
      },
      options.runId,
      options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {},
    );
  } finally {
    await store.close();
  }
}

/**
 * The replay report as text: one summary line (status, turns, calls, what the replay touched, the goal reports),
 * then the divergences as a table (kind, turn, call, capability, message), or `no divergence`.
 * @param report - the report
 * @returns the text, lines joined by `\n`
 * @public
 */
export function formatReplayReport(report: RunReplayReport): string {
  const goal = (r: RunReplayReport['storedReport']) => (r ? r.status : 'none');
  const lines = [
    `run ${report.runId}: ${report.status} (${report.turns} turns, ${report.toolCalls} tool calls; model calls ${report.modelCalls}, handler calls ${report.handlerCalls}, ledger writes ${report.ledgerWrites})`,
    `goal report: stored ${goal(report.storedReport)}, replayed ${goal(report.replayedReport)}${report.stopped ? `; the replay was stopped (${report.stopped})` : ''}`,
    '',
  ];
  if (report.divergences.length === 0) return [...lines, 'no divergence'].join('\n');
  const rows = [['kind', 'turn', 'call', 'capability', 'divergence']];
  for (const d of report.divergences)
    rows.push([
      d.kind,
      String(d.turn),
      d.callIndex === undefined ? '-' : String(d.callIndex),
      d.capabilityId ?? '-',
      d.message,
    ]);
  return [...lines, table(rows)].join('\n');
}
