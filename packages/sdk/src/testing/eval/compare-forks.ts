// `--compare-forks <db> <runA> <runB> [...]`: forks of one point, side by side — model, status, goal report, calls,
// tokens, cost, time. The rules are pure functions of the stored runs; the reading is a thin layer over storage.
import type { JsonValue } from '../../core/records';
import type { ModelCallUsage, RunRecord } from '../../core/run-records';
import { openEvalStore, storedRun } from './eval-store';
import { table } from './report';

/** One run of a fork comparison. @public */
export interface ForkComparisonRow {
  /** Run id. */
  runId: string;
  /** The run it was forked from and at which event, or null when it is not a fork. */
  forkedFrom: { runId: string; atSeq: number } | null;
  /**
   * The model it ran with: the fork's `model` option (its `forked` event), else the model its runtime state routes
   * to, else the single model its usage names; null when none says.
   */
  model: string | null;
  /** Run status. */
  status: string;
  /** Its verified goal report's status, or null. */
  goalStatus: string | null;
  /** Its verified goal report's summary, or null. */
  goalSummary: string | null;
  /** Tool calls made. */
  toolCalls: number;
  /** Model calls made. */
  modelCalls: number;
  /** Model input tokens. */
  inputTokens: number;
  /** Model output tokens. */
  outputTokens: number;
  /** Model cost in USD (the host's price table). */
  costUsd: number;
  /** The same per provider and model (`<provider>/<model>`), as stored. */
  byModel: Record<string, ModelCallUsage>;
  /** From its start (else creation) to its end (else its latest change), in ms. */
  durationMs: number;
}

/** A fork comparison (`--compare-forks`). @public */
export interface ForkComparison {
  /** The fork point they share, or null when they do not share one. */
  forkPoint: { runId: string; atSeq: number } | null;
  /** One row per run, in the order given. */
  runs: ForkComparisonRow[];
  /** Why the comparison may not compare like with like (runs that are not forks, or of different points). */
  warnings: string[];
}

/** The `forked` event's data, as far as the comparison reads it. */
interface ForkedEventData {
  fromRunId?: string;
  atSeq?: number;
  model?: string;
}

/**
 * One comparison row from a stored run and its `forked` event (its first event, when it is a fork).
 * @param run - the run as stored
 * @param forked - the data of its `forked` event, or null
 * @returns the row
 * @public
 */
export function forkComparisonRow(run: RunRecord, forked: JsonValue | null): ForkComparisonRow {
  const f = (forked ?? {}) as ForkedEventData;
  const lineage = (run as RunRecord & { forkedFrom?: { runId: string; atSeq: number } }).forkedFrom;
  const from =
    lineage ??
    (typeof f.fromRunId === 'string' && typeof f.atSeq === 'number' ? { runId: f.fromRunId, atSeq: f.atSeq } : null);
  const report = run.report as { status?: unknown; summary?: unknown } | null;
  const byModel = run.usage.byModel ?? {};
  const models = Object.keys(byModel);
  const start = run.startedAt ?? run.createdAt;
  return {
    runId: run.id,
    forkedFrom: from ? { runId: from.runId, atSeq: from.atSeq } : null,
    model: f.model ?? routedModel(run.runtimeState) ?? (models.length === 1 ? modelOf(models[0]!) : null),
    status: run.status,
    goalStatus: typeof report?.status === 'string' ? report.status : null,
    goalSummary: typeof report?.summary === 'string' ? report.summary : null,
    toolCalls: run.usage.toolCalls,
    modelCalls: run.usage.modelCalls,
    inputTokens: run.usage.inputTokens,
    outputTokens: run.usage.outputTokens,
    costUsd: run.usage.costUsd,
    byModel,
    durationMs: Math.max(0, (run.endedAt ?? run.updatedAt) - start),
  };
}

/** The model id a run's runtime state routes its turns to (`model_override`), when it says. */
function routedModel(state: JsonValue | null): string | null {
  if (!state || typeof state !== 'object' || Array.isArray(state)) return null;
  const o = (state as Record<string, JsonValue>).model_override;
  if (typeof o === 'string') return o;
  if (o && typeof o === 'object' && !Array.isArray(o) && typeof o.model === 'string') return o.model;
  return null;
}

/** `<provider>/<model>` → `<model>` (a model id may itself hold slashes: only the provider part is cut). */
function modelOf(key: string): string {
  const i = key.indexOf('/');
  return i < 0 ? key : key.slice(i + 1);
}

/**
 * Compares runs forked from one point: the rows, the shared fork point, and a warning for each run that is not a
 * fork or was forked from another point than the first fork's (the comparison is made anyway).
 * @param rows - the rows, in the order given
 * @returns the comparison
 * @public
 */
export function compareForkRows(rows: readonly ForkComparisonRow[]): ForkComparison {
  const first = rows.find((r) => r.forkedFrom !== null)?.forkedFrom ?? null;
  const warnings: string[] = [];
  for (const r of rows) {
    if (!r.forkedFrom) warnings.push(`${r.runId} is not a fork`);
    else if (first && (r.forkedFrom.runId !== first.runId || r.forkedFrom.atSeq !== first.atSeq))
      warnings.push(
        `${r.runId} was forked from ${r.forkedFrom.runId} at ${r.forkedFrom.atSeq}, not from ${first.runId} at ${first.atSeq}`,
      );
  }
  return { forkPoint: warnings.length === 0 ? first : null, runs: [...rows], warnings };
}

/**
 * The comparison as text: the shared fork point, a table (one row per run: model, status, goal report, tool and
 * model calls, tokens in/out, cost, time), each run's goal summary, and the warnings.
 * @param comparison - the comparison
 * @returns the text, lines joined by `\n`
 * @public
 */
export function formatForkComparison(comparison: ForkComparison): string {
  const rows: string[][] = [
    ['run', 'model', 'status', 'goal', 'tool calls', 'model calls', 'tokens in', 'tokens out', 'cost $', 'ms'],
  ];
  for (const r of comparison.runs)
    rows.push([
      r.runId,
      r.model ?? '-',
      r.status,
      r.goalStatus ?? '-',
      String(r.toolCalls),
      String(r.modelCalls),
      String(r.inputTokens),
      String(r.outputTokens),
      r.costUsd.toFixed(4),
      String(r.durationMs),
    ]);
  const p = comparison.forkPoint;
  return [
    p ? `forks of ${p.runId} at ${p.atSeq}` : 'runs that do not share a fork point',
    '',
    table(rows),
    '',
    ...comparison.runs.map((r) => `${r.runId}: ${r.goalSummary ?? 'no goal report'}`),
    ...comparison.warnings.map((w) => `warning: ${w}`),
  ].join('\n');
}

/**
 * Reads runs from a database (read-only) and compares them as forks of one point.
 * @param db - a SQLite file path or a `postgres://` URL
 * @param runIds - the runs, at least two
 * @param cwd - working directory a relative path is resolved against
 * @returns the comparison
 * @throws `EvalInputError` `EVAL_DB_INVALID`, `EVAL_RUN_NOT_FOUND`
 * @example
 * ```ts
 * const c = await compareStoredForks('data/agent.sqlite', ['run_8', 'run_9'], process.cwd());
 * console.log(formatForkComparison(c));
 * ```
 * @public
 */
export async function compareStoredForks(db: string, runIds: readonly string[], cwd: string): Promise<ForkComparison> {
  const store = await openEvalStore(db, cwd);
  try {
    const rows: ForkComparisonRow[] = [];
    for (const id of runIds) {
      const run = await storedRun(store, id);
      const first = (await store.storage.events.listByRun(id, { afterSeq: 0, limit: 1 }))[0];
      rows.push(forkComparisonRow(run, first?.type === 'forked' ? first.data : null));
    }
    return compareForkRows(rows);
  } finally {
    await store.close();
  }
}
