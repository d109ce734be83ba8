// Evaluation reports: JSON for machines, a text table and an HTML page (one row per run, linking to its events) for people.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvalRunResult } from './run-scenario';
import { wilsonInterval } from './wilson';

/** Pass rate and usage of one scenario for one agent. @public */
export interface EvalScenarioSummary {
  /** Scenario id. */
  scenario: string;
  /** Agent label. */
  label: string;
  /** Runs. */
  runs: number;
  /** Runs that passed. */
  passes: number;
  /** passes / runs. */
  passRate: number;
  /** 95 % Wilson interval of the pass rate. */
  interval: { low: number; high: number };
  /** Failure codes with their counts (oracle errors as `oracle_error`). */
  failures: Record<string, number>;
  /** Mean input + output tokens per run. */
  meanTokens: number;
  /** Total cost in USD. */
  costUsd: number;
  /** Mean wall-clock time per run in ms. */
  meanDurationMs: number;
}

/** Paired comparison of two agents on one scenario: the same seeds, run by both. @public */
export interface EvalPairedSummary {
  /** Scenario id. */
  scenario: string;
  /** Seeds run by both. */
  pairs: number;
  /** Both passed. */
  bothPass: number;
  /** Only A passed. */
  onlyA: number;
  /** Only B passed. */
  onlyB: number;
  /** Neither passed. */
  neither: number;
}

/**
 * An evaluation report. `intelligence_evaluated` is false for replays: a scripted trajectory shows that
 * the runtime and the oracle behave, not that a model can do the task.
 * @public
 */
export interface EvalReport {
  /** `replay`, `live` or `compare`. */
  mode: 'replay' | 'live' | 'compare';
  /** True only when a real model chose the calls (live and compare). */
  intelligence_evaluated: boolean;
  /** When the report was made (ISO 8601). */
  createdAt: string;
  /** One summary per scenario and agent. */
  summaries: EvalScenarioSummary[];
  /** Paired summaries (compare mode), A is the first label. */
  paired?: { a: string; b: string; scenarios: EvalPairedSummary[] };
  /** Every run (events are written beside the report, see {@link writeEvalReport}). */
  runs: Array<Omit<EvalRunResult, 'events'> & { eventsFile?: string }>;
}

/**
 * Builds a report from run results: per scenario and label, the pass rate with its Wilson interval,
 * failure codes, tokens, cost and time; in compare mode the paired counts over shared seeds.
 * @param mode - the mode
 * @param results - every run
 * @param compare - the two labels to pair (compare mode)
 * @public
 */
export function buildEvalReport(
  mode: EvalReport['mode'],
  results: readonly EvalRunResult[],
  compare?: { a: string; b: string },
): EvalReport {
  const groups = new Map<string, EvalRunResult[]>();
  for (const r of results) {
    const key = `${r.scenario}\u0000${r.label}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const summaries = [...groups.values()].map((rs): EvalScenarioSummary => {
    const passes = rs.filter((r) => r.verdict === 'pass').length;
    const failures: Record<string, number> = {};
    for (const r of rs)
      if (r.verdict !== 'pass') failures[r.code ?? r.verdict] = (failures[r.code ?? r.verdict] ?? 0) + 1;
    return {
      scenario: rs[0]!.scenario,
      label: rs[0]!.label,
      runs: rs.length,
      passes,
      passRate: passes / rs.length,
      interval: wilsonInterval(passes, rs.length),
      failures,
      meanTokens: rs.reduce((n, r) => n + r.inputTokens + r.outputTokens, 0) / rs.length,
      costUsd: rs.reduce((n, r) => n + r.costUsd, 0),
      meanDurationMs: rs.reduce((n, r) => n + r.durationMs, 0) / rs.length,
    };
  });
  const report: EvalReport = {
    mode,
    intelligence_evaluated: mode !== 'replay',
    createdAt: new Date().toISOString(),
    summaries,
    runs: results.map(({ events: _events, ...rest }) => rest),
  };
  if (compare) {
    const scenarios = [...new Set(results.map((r) => r.scenario))].map((scenario): EvalPairedSummary => {
      const byA = new Map(
        results.filter((r) => r.scenario === scenario && r.label === compare.a).map((r) => [r.seed, r]),
      );
      const pairs = results
        .filter((r) => r.scenario === scenario && r.label === compare.b && byA.has(r.seed))
        .map((b) => [byA.get(b.seed)!.verdict === 'pass', b.verdict === 'pass'] as const);
      return {
        scenario,
        pairs: pairs.length,
        bothPass: pairs.filter(([a, b]) => a && b).length,
        onlyA: pairs.filter(([a, b]) => a && !b).length,
        onlyB: pairs.filter(([a, b]) => !a && b).length,
        neither: pairs.filter(([a, b]) => !a && !b).length,
      };
    });
    report.paired = { ...compare, scenarios };
  }
  return report;
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

/**
 * The report as a text table for a terminal: one row per run (verdict, code, status, calls, tokens, time),
 * then one row per scenario and agent (pass rate with its 95 % interval), then the paired counts.
 * @param report - the report
 * @public
 */
export function formatEvalTable(report: EvalReport): string {
  const rows: string[][] = [['scenario', 'seed', 'agent', 'verdict', 'code', 'run', 'calls', 'tokens', 'ms']];
  for (const r of report.runs)
    rows.push([
      r.scenario,
      String(r.seed),
      r.label,
      r.verdict,
      r.code ?? '-',
      r.runStatus,
      String(r.toolCalls),
      String(r.inputTokens + r.outputTokens),
      String(r.durationMs),
    ]);
  const out = [table(rows), ''];
  const sums: string[][] = [
    ['scenario', 'agent', 'pass', 'rate', '95% CI', 'failures', 'tokens/run', 'cost $', 'ms/run'],
  ];
  for (const s of report.summaries)
    sums.push([
      s.scenario,
      s.label,
      `${s.passes}/${s.runs}`,
      pct(s.passRate),
      `${pct(s.interval.low)}–${pct(s.interval.high)}`,
      Object.entries(s.failures)
        .map(([c, n]) => `${c}×${n}`)
        .join(' ') || '-',
      s.meanTokens.toFixed(0),
      s.costUsd.toFixed(4),
      s.meanDurationMs.toFixed(0),
    ]);
  out.push(table(sums));
  if (report.paired) {
    const p: string[][] = [
      ['scenario', 'pairs', 'both pass', `only ${report.paired.a}`, `only ${report.paired.b}`, 'neither'],
    ];
    for (const s of report.paired.scenarios)
      p.push([s.scenario, String(s.pairs), String(s.bothPass), String(s.onlyA), String(s.onlyB), String(s.neither)]);
    out.push('', table(p));
  }
  out.push('', `intelligence_evaluated: ${report.intelligence_evaluated}`);
  return out.join('\n');
}

/**
 * Rows as a plain-text table: the first row is the header, underlined; columns padded to their widest cell.
 * @param rows - header then rows, each a list of cells
 * @returns the table, lines joined by `\n`
 * @internal
 */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The report as one HTML page: the summaries, then one row per run linking to its events file.
 * @param report - the report (with `eventsFile` set on each run)
 * @public
 */
export function renderEvalHtml(report: EvalReport): string {
  const th = (cells: string[]) => `<tr>${cells.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>`;
  const td = (cells: string[]) => `<tr>${cells.join('')}</tr>`;
  const cell = (s: string, cls = '') => `<td${cls ? ` class="${cls}"` : ''}>${esc(s)}</td>`;
  const summaries = report.summaries.map((s) =>
    td([
      cell(s.scenario),
      cell(s.label),
      cell(`${s.passes}/${s.runs}`),
      cell(`${pct(s.passRate)} (${pct(s.interval.low)}–${pct(s.interval.high)})`),
      cell(
        Object.entries(s.failures)
          .map(([c, n]) => `${c}×${n}`)
          .join(' ') || '-',
      ),
      cell(s.meanTokens.toFixed(0)),
      cell(s.costUsd.toFixed(4)),
      cell(s.meanDurationMs.toFixed(0)),
    ]),
  );
  const runs = report.runs.map((r) =>
    td([
      cell(r.scenario),
      cell(String(r.seed)),
      cell(r.label),
      cell(r.verdict, r.verdict),
      cell(r.code ?? ''),
      cell([r.reason, r.runError && `run error ${r.runError}`].filter(Boolean).join(' · ')),
      cell(r.runStatus),
      cell(String(r.toolCalls)),
      cell(String(r.inputTokens + r.outputTokens)),
      cell(String(r.durationMs)),
      r.eventsFile ? `<td><a href="${esc(r.eventsFile)}">events</a></td>` : cell(''),
    ]),
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Task evaluation (${esc(report.mode)})</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:2em}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}.pass{background:#dfd}.fail{background:#fdd}.oracle_error{background:#fd9}</style>
</head><body>
<h1>Task evaluation: ${esc(report.mode)}</h1>
<p>${esc(report.createdAt)} · intelligence_evaluated: ${report.intelligence_evaluated}</p>
<h2>Scenarios</h2>
<table>${th(['scenario', 'agent', 'pass', 'rate (95% CI)', 'failures', 'tokens/run', 'cost $', 'ms/run'])}${summaries.join('')}</table>
<h2>Runs</h2>
<table>${th(['scenario', 'seed', 'agent', 'verdict', 'code', 'reason', 'run', 'calls', 'tokens', 'ms', 'events'])}${runs.join('')}</table>
</body></html>
`;
}

/**
 * Writes `report.json`, `report.html` and one `events/<n>-<scenario>-<seed>.json` per run into `dir`
 * (created), so every failure can be read step by step.
 * @param dir - output directory
 * @param mode - the mode
 * @param results - every run, with its events
 * @param compare - the two labels to pair (compare mode)
 * @returns the report as written
 * @public
 */
export function writeEvalReport(
  dir: string,
  mode: EvalReport['mode'],
  results: readonly EvalRunResult[],
  compare?: { a: string; b: string },
): EvalReport {
  mkdirSync(join(dir, 'events'), { recursive: true });
  const report = buildEvalReport(mode, results, compare);
  results.forEach((r, i) => {
    const file = `events/${String(i + 1).padStart(3, '0')}-${r.scenario}-${r.seed}-${r.label.replace(/\.json$/, '').replace(/[^\w.-]+/g, '_')}.json`;
    writeFileSync(join(dir, file), JSON.stringify(r.events, null, 2));
    report.runs[i]!.eventsFile = file;
  });
  writeFileSync(join(dir, 'report.json'), JSON.stringify(report, null, 2));
  writeFileSync(join(dir, 'report.html'), renderEvalHtml(report));
  return report;
}
