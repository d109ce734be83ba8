/**
 * `npm run conformance:mcp`: runs the official MCP conformance suite (pinned in tools/mcp-conformance) against
 * media-agent's MCP server — over Streamable HTTP (`createMcpHttpHandler`) and over stdio (`serveMcpStdio`, reached
 * through an HTTP bridge) — and against its MCP client (`registerMcpServer`), then prints the table
 * scenario → pass / fail / n/a and writes it to docs/mcp-conformance.md.
 *
 * `npm run conformance:mcp -- --only http|stdio|client` runs one target and writes no page.
 *
 * Time limits: each suite run of a scenario gets 45 s (`--scenario-timeout <s>` or MCP_CONFORMANCE_SCENARIO_TIMEOUT;
 * a scenario that takes longer fails, naming the timeout), the whole run 600 s (`--deadline <s>` or
 * MCP_CONFORMANCE_DEADLINE; past it the run stops, fails, names the scenarios that did not run, and writes no page).
 *
 * Exit code 1 on an unexpected failure or a stale baseline entry (a scenario listed in
 * tools/mcp-conformance/expected-failures*.yml that passes); 0 otherwise, and 0 with one line saying why when no
 * Node.js ≥ 22 can run the suite here (nothing is then written).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  baselineProblems,
  findNode22,
  isUnexpected,
  parseBaseline,
  parseChecks,
  rerunOnLoad,
  SCENARIOS,
  scenariosToRun,
  summary,
  verdictOf,
  type ResultRow,
  type Target,
} from '../examples/mcp-conformance/runner';
import { conformancePage } from '../examples/mcp-conformance/page';

const root = fileURLToPath(new URL('..', import.meta.url));
const toolDir = join(root, 'tools', 'mcp-conformance');
const suite = join(toolDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const example = (file: string) => join(root, 'examples', 'mcp-conformance', file);
const DOC = join(root, 'docs', 'mcp-conformance.md');
const USAGE = 'usage: conformance-mcp.ts [--only http|stdio|client] [--deadline <s>] [--scenario-timeout <s>]\n';
const flag = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const only = flag('--only') as Target | undefined;
/** Seconds from a flag, else an environment variable, else the default; exits 2 when not a positive number. */
function seconds(name: string, env: string, fallback: number): number {
  const text = flag(name) ?? process.env[env];
  const value = text === undefined ? fallback : Number(text);
  if (!(value > 0) || !Number.isFinite(value)) {
    process.stderr.write(
      `${name} (${env}) must be a positive number of seconds, not ${JSON.stringify(text)}\n${USAGE}`,
    );
    process.exit(2);
  }
  return value;
}
const deadlineS = seconds('--deadline', 'MCP_CONFORMANCE_DEADLINE', 600);
const scenarioTimeoutS = seconds('--scenario-timeout', 'MCP_CONFORMANCE_SCENARIO_TIMEOUT', 45);
if (only !== undefined && !['http', 'stdio', 'client'].includes(only)) {
  process.stderr.write(USAGE);
  process.exit(2);
}
const wanted = (target: Target) => only === undefined || only === target;
// The suite splits the client command on spaces.
if ([process.execPath, root].some((p) => p.includes(' '))) {
  process.stderr.write(`conformance:mcp: the suite cannot run a client from a path with spaces (${root})\n`);
  process.exit(1);
}
const BASELINE = {
  http: 'expected-failures.yml',
  stdio: 'expected-failures-stdio.yml',
  client: 'expected-failures.yml',
};

// 1. The suite: installed once from the registry (package-lock.json pins it), never at run time otherwise.
if (!existsSync(suite)) {
  process.stdout.write(`conformance:mcp: installing the pinned suite (npm ci --prefix ${toolDir})\n`);
  const installed = spawnSync('npm', ['ci', '--prefix', toolDir, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (installed.status !== 0 || !existsSync(suite)) {
    process.stderr.write(`conformance:mcp: could not install ${toolDir} (npm ci exited ${installed.status})\n`);
    process.exit(1);
  }
}

// 2. A Node.js ≥ 22 for the suite (the SDK side runs on this Node.js).
const found = findNode22(toolDir, process);
if ('skip' in found) {
  process.stdout.write(`conformance:mcp skipped (exit 0): ${found.skip}\n`);
  process.exit(0);
}
const node = found;
const suiteVersion = (JSON.parse(readFileSync(join(suite, '..', '..', 'package.json'), 'utf8')) as { version: string })
  .version;
process.stdout.write(`conformance:mcp: suite ${suiteVersion} on Node.js ${node.version} (${node.path})\n`);

// 3. The baselines: every entry names a scenario the target runs, once (the suite reports stale ones itself).
const baselines = {} as Record<Target, string[]>;
const problems: string[] = [];
for (const target of ['http', 'stdio', 'client'] as const) {
  const file = join(toolDir, BASELINE[target]);
  baselines[target] = parseBaseline(readFileSync(file, 'utf8'))[target === 'client' ? 'client' : 'server'];
  for (const problem of baselineProblems(baselines[target], target)) problems.push(`${BASELINE[target]}: ${problem}`);
}

const started = Date.now();
const deadline = started + deadlineS * 1000;
/** Scenarios left out because the deadline passed. */
const notRun: string[] = [];
const work = mkdtempSync(join(tmpdir(), 'media-agent-conformance-'));
const rows: ResultRow[] = [];
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGTERM');
});

try {
  for (const target of (['http', 'stdio'] as const).filter(wanted)) {
    const { url, child } = await startServer(target === 'http' ? 'http' : 'bridge', join(work, `${target}-data`));
    try {
      for (const scenario of scenariosToRun(target)) rows.push(runScenario(target, scenario, ['server', '--url', url]));
    } finally {
      child.kill('SIGTERM');
    }
  }
  const client = `${process.execPath} --import ${tsx} ${example('client.ts')}`;
  for (const scenario of wanted('client') ? scenariosToRun('client') : [])
    rows.push(runScenario('client', scenario, ['client', '--command', client, '--timeout', '30000']));
} finally {
  rmSync(work, { recursive: true, force: true });
}

// 4. The n/a rows, with their reasons.
for (const plan of SCENARIOS)
  for (const [target, how] of Object.entries(plan.targets) as Array<[Target, 'run' | { na: string }]>)
    if (how !== 'run' && wanted(target))
      rows.push({ scenario: plan.scenario, target, verdict: { kind: 'n/a', reason: how.na } });
const order = SCENARIOS.map((p) => p.scenario);
rows.sort((a, b) => order.indexOf(a.scenario) - order.indexOf(b.scenario));

process.stdout.write(`\n${summary(rows)}\n(${Math.round((Date.now() - started) / 1000)} s)\n`);
if (notRun.length > 0) {
  process.stdout.write(
    `conformance:mcp FAILED: the ${deadlineS} s deadline passed (--deadline, MCP_CONFORMANCE_DEADLINE); not run: ${notRun.join(', ')}\n`,
  );
  process.exit(1);
}
if (only === undefined) {
  writeFileSync(DOC, conformancePage(rows, suiteVersion));
  process.stdout.write(`\nwrote ${DOC}\n`);
}
const unexpected = rows.filter((r) => isUnexpected(r.verdict));
for (const problem of problems) process.stdout.write(`expected-failures problem: ${problem}\n`);
if (unexpected.length > 0 || problems.length > 0) {
  process.stdout.write(
    `conformance:mcp FAILED: ${unexpected.map((r) => `${r.target} ${r.scenario} (${r.verdict.kind})`).join(', ')}\n`,
  );
  process.exit(1);
}
process.stdout.write('conformance:mcp passed: every failure is in the expected-failures baseline\n');

/**
 * Runs one scenario with the suite (its baseline file given), once more when it lost only to machine load; past
 * the deadline it runs nothing and records the scenario as not run.
 */
function runScenario(target: Target, scenario: string, args: string[]): ResultRow {
  if (Date.now() >= deadline) {
    notRun.push(`${target} ${scenario}`);
    return { scenario, target, verdict: { kind: 'skipped', reason: `not run: the ${deadlineS} s deadline passed` } };
  }
  const begun = Date.now();
  let attempt = runOnce(target, scenario, args, 1);
  if (attempt.checks && rerunOnLoad(scenario, attempt.checks) && Date.now() < deadline) {
    process.stdout.write(`${target.padEnd(6)} ${scenario.padEnd(38)} late under load: running it once more\n`);
    attempt = runOnce(target, scenario, args, 2);
  }
  const took = ((Date.now() - begun) / 1000).toFixed(1);
  process.stdout.write(`${target.padEnd(6)} ${scenario.padEnd(38)} ${attempt.verdict.kind} (${took} s)\n`);
  return { scenario, target, verdict: attempt.verdict };
}

function runOnce(target: Target, scenario: string, args: string[], n: number) {
  const out = join(work, target, `${scenario.replaceAll('/', '_')}-${n}`);
  const baselineFile = join(toolDir, BASELINE[target]);
  const run = spawnSync(
    node.path,
    [suite, ...args, '--scenario', scenario, '--expected-failures', baselineFile, '-o', out],
    { encoding: 'utf8', timeout: Math.max(1, Math.min(scenarioTimeoutS * 1000, deadline - Date.now())), cwd: root },
  );
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT') {
    const why =
      Date.now() >= deadline
        ? `the ${deadlineS} s deadline of the run (--deadline)`
        : `the ${scenarioTimeoutS} s per-scenario timeout (--scenario-timeout)`;
    return { checks: undefined, verdict: { kind: 'fail' as const, failures: [`timed out: killed at ${why}`] } };
  }
  const checksFile = existsSync(out)
    ? readdirSync(out, { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith('checks.json'))
    : undefined;
  const checks = checksFile ? parseChecks(readFileSync(join(out, checksFile), 'utf8')) : undefined;
  let verdict = verdictOf(checks, baselines[target].includes(scenario));
  // The suite's own baseline verdict must agree with ours (its exit code: 0 = pass or expected failure).
  if ((run.status === 0) !== !isUnexpected(verdict) && verdict.kind !== 'fail')
    verdict = {
      kind: 'fail',
      failures: [`the suite exited ${run.status ?? run.signal}: ${tail(run.stdout + run.stderr)}`],
    };
  return { checks, verdict };
}

/**
 * A JS bundle of examples/mcp-conformance/server.ts for the bridge's stdio children (each scenario starts new
 * ones; under tsx each spends seconds compiling). Written under node_modules/.cache so its packages resolve;
 * undefined (children run under tsx) when esbuild cannot build it.
 */
async function stdioBundle(): Promise<string | undefined> {
  const outfile = join(root, 'node_modules', '.cache', 'media-agent-conformance', `server-${process.pid}.mjs`);
  try {
    const { build } = await import('esbuild');
    await build({
      entryPoints: [example('server.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external', // the workspace's own packages are bundled from source (tsconfig paths)
      outfile,
      logLevel: 'error',
    });
    process.on('exit', () => rmSync(outfile, { force: true }));
    return outfile;
  } catch (error) {
    process.stdout.write(`conformance:mcp: stdio children run under tsx (no bundle: ${String(error).slice(0, 200)})\n`);
    return undefined;
  }
}

/** Starts examples/mcp-conformance/server.ts in a mode; resolves with the URL it prints. */
async function startServer(mode: 'http' | 'bridge', dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const bundle = mode === 'bridge' ? await stdioBundle() : undefined;
  const child = spawn(process.execPath, ['--import', tsx, example('server.ts'), mode, dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: bundle ? { ...process.env, MCP_CONFORMANCE_STDIO_BUNDLE: bundle } : process.env,
  });
  children.push(child);
  return await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the ${mode} server did not start within 60 s`)), 60_000);
    child.once('exit', (code) => reject(new Error(`the ${mode} server exited ${code} before listening`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve({ url: (JSON.parse(line) as { url: string }).url, child });
    });
  });
}

function tail(text: string): string {
  return text.trim().split('\n').slice(-3).join(' / ').slice(0, 300);
}
