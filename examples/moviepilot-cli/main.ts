/**
 * moviepilot-cli: a command-line host that embeds media-agent on a MoviePilot 2.x or 3.x instance.
 *
 *   npm run cli -- run --simulate v3 "add Dune: Part Two to my library" --grant download.submit
 *   npm run cli -- run --host v3 --url http://nas:3001 --api-key "$MP_API_TOKEN" --model anthropic:claude-sonnet-4-5 "add Arrival"
 *   npm run cli -- run --simulate v3 --model openai-compatible:http://127.0.0.1:8000/v1:qwen3 --dialect vllm "add Heat"
 *   npm run cli -- --help
 *
 * It runs the SDK runtime in this process (SQLite in the data directory), streams the run's progress,
 * asks approvals on a TTY (plan summary + payload hash, y/N) and denies them without one (with
 * --simulate the simulated host's administrator approves instead) unless a
 * `--grant <capability>` gave the agent a standing grant, prints the goal report verified from the
 * host's records, and exits 0 only when that report is verified `succeeded` (1 otherwise, 2 for bad
 * arguments). Model API keys come from the environment only and are never printed.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { ConsoleLogger, OPENAI_DIALECTS, SystemClock, type AgentGoalReport, type AgentHost, type ModelProviderConfig, type OpenAIDialectName, type RunEvent } from '@media-agent/sdk';
import { SqliteStorage } from '@media-agent/sdk/sqlite';
import { addToLibraryScript } from '@media-agent/sdk/testing';
import { createV2AgentHost } from '@media-agent/host-adapter-v2';
import { MoviePilotV2Simulator, SIM_TITLES as V2_TITLES } from '@media-agent/host-adapter-v2/testing';
import { createV3AgentHost } from '@media-agent/host-adapter-v3';
import { MoviePilotV3Simulator, organizeCompletedDownloadScript, SIM_TITLES as V3_TITLES } from '@media-agent/host-adapter-v3/testing';

export const USAGE = `usage: npm run cli -- run [options] "goal"

  --host v2|v3                     MoviePilot generation of the host
  --url URL                        the host's root URL, e.g. http://nas:3001
  --api-key KEY                    the host's API token (X-API-KEY)
  --user U --password P            or a host user (JWT login)
  --simulate v2|v3                 start that generation's simulator in this process instead (no --host/--url/auth);
                                   without a TTY its console administrator approves what the agent asks
  --model scripted[:FILE]          scripted model (default; FILE: JSON scripts)
          anthropic:MODEL          Anthropic (ANTHROPIC_API_KEY from the environment)
          openai-compatible:BASE_URL:MODEL   (OPENAI_API_KEY from the environment, optional)
  --dialect NAME                   with openai-compatible: the server family, one of
                                   ${Object.keys(OPENAI_DIALECTS).join(', ')} (default openai)
  --data-dir DIR                   SQLite and state (default ./.media-agent/cli)
  --grant CAPABILITY               standing grant for the agent (repeatable), e.g. download.submit
  --timeout SEC                    give up waiting for the run after SEC seconds (default 600)
  -h, --help                       this text

exit code: 0 when the report is verified succeeded, 1 otherwise, 2 for bad arguments`;

/** A bad command line: printed with the usage text, exit code 2. */
export class CliUsageError extends Error {
  readonly code = 'CLI_USAGE';
  override readonly name = 'CliUsageError';
}

export type ModelChoice =
  | { kind: 'scripted'; file?: string }
  | { kind: 'anthropic'; model: string }
  | { kind: 'openai-compatible'; baseUrl: string; model: string; dialect?: OpenAIDialectName };

export interface CliCommand {
  goal: string;
  generation: 'v2' | 'v3';
  simulate: boolean;
  url?: string;
  auth?: { apiKey: string } | { username: string; password: string };
  model: ModelChoice;
  dataDir: string;
  grants: string[];
  timeoutSec: number;
}

/** Parses `run ...` (throws {@link CliUsageError}); `undefined` for `--help`. */
export function parseCommand(argv: string[]): CliCommand | undefined {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        host: { type: 'string' },
        url: { type: 'string' },
        'api-key': { type: 'string' },
        user: { type: 'string' },
        password: { type: 'string' },
        simulate: { type: 'string' },
        model: { type: 'string' },
        dialect: { type: 'string' },
        'data-dir': { type: 'string' },
        grant: { type: 'string', multiple: true },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new CliUsageError(error instanceof Error ? error.message : String(error));
  }
  const { values: v, positionals } = parsed;
  if (v.help) return undefined;
  const [command, ...rest] = positionals;
  if (command !== 'run') throw new CliUsageError(command ? `unknown command "${command}" (expected "run")` : 'missing command "run"');
  const goal = rest.join(' ').trim();
  if (!goal) throw new CliUsageError('missing the goal, e.g. "add Dune: Part Two to my library"');
  const generation = (x: string | undefined, flag: string): 'v2' | 'v3' => {
    if (x === 'v2' || x === 'v3') return x;
    throw new CliUsageError(`${flag} must be v2 or v3, got "${x}"`);
  };
  const timeoutSec = v.timeout === undefined ? 600 : Number(v.timeout);
  if (!Number.isFinite(timeoutSec) || timeoutSec <= 0) throw new CliUsageError(`--timeout must be a positive number of seconds, got "${v.timeout}"`);
  const base = { goal, model: withDialect(parseModel(v.model ?? 'scripted'), v.dialect), dataDir: resolve(v['data-dir'] ?? join('.media-agent', 'cli')), grants: v.grant ?? [], timeoutSec };
  for (const g of base.grants) if (!/^[A-Za-z0-9_.*<>-]+$/.test(g)) throw new CliUsageError(`--grant needs a capability id such as download.submit, got "${g}"`);
  if (v.simulate !== undefined) {
    const gen = generation(v.simulate, '--simulate');
    if (v.host !== undefined && v.host !== gen) throw new CliUsageError(`--host ${v.host} contradicts --simulate ${gen}`);
    for (const f of ['url', 'api-key', 'user', 'password'] as const) if (v[f] !== undefined) throw new CliUsageError(`--${f} cannot be used with --simulate (the simulator is the host)`);
    return { ...base, generation: gen, simulate: true };
  }
  if (v.host === undefined) throw new CliUsageError('missing --host v2|v3 (or --simulate v2|v3)');
  const gen = generation(v.host, '--host');
  if (v.url === undefined) throw new CliUsageError('missing --url (the MoviePilot root URL)');
  try {
    const u = new URL(v.url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new CliUsageError(`--url must be an http(s) URL, got "${v.url}"`);
  }
  const key = v['api-key'];
  const userPass = v.user !== undefined || v.password !== undefined;
  if (key !== undefined && userPass) throw new CliUsageError('use either --api-key or --user/--password, not both');
  if (key === undefined && !userPass) throw new CliUsageError('missing credentials: --api-key KEY or --user U --password P');
  if (userPass && (v.user === undefined || v.password === undefined)) throw new CliUsageError('--user and --password go together');
  const auth = key !== undefined ? { apiKey: key } : { username: v.user!, password: v.password! };
  return { ...base, generation: gen, simulate: false, url: v.url, auth };
}

/** `scripted[:FILE]`, `anthropic:MODEL`, `openai-compatible:BASE_URL:MODEL` (the base URL may contain colons). */
export function parseModel(spec: string): ModelChoice {
  if (spec === 'scripted') return { kind: 'scripted' };
  if (spec.startsWith('scripted:') && spec.length > 'scripted:'.length) return { kind: 'scripted', file: spec.slice('scripted:'.length) };
  if (spec.startsWith('anthropic:') && spec.length > 'anthropic:'.length) return { kind: 'anthropic', model: spec.slice('anthropic:'.length) };
  if (spec.startsWith('openai-compatible:')) {
    const rest = spec.slice('openai-compatible:'.length);
    const cut = rest.lastIndexOf(':');
    const baseUrl = cut > 0 ? rest.slice(0, cut) : '';
    const model = cut > 0 ? rest.slice(cut + 1) : '';
    if (/^https?:\/\/./.test(baseUrl) && model) return { kind: 'openai-compatible', baseUrl, model };
  }
  throw new CliUsageError(`bad --model "${spec}": use scripted[:FILE], anthropic:MODEL or openai-compatible:BASE_URL:MODEL`);
}

/** Applies `--dialect NAME` to an `openai-compatible` model choice (a usage error for any other model or an unknown name). */
export function withDialect(model: ModelChoice, dialect: string | undefined): ModelChoice {
  if (dialect === undefined) return model;
  if (model.kind !== 'openai-compatible') throw new CliUsageError('--dialect applies only to --model openai-compatible:BASE_URL:MODEL');
  if (!Object.hasOwn(OPENAI_DIALECTS, dialect)) throw new CliUsageError(`--dialect must be one of ${Object.keys(OPENAI_DIALECTS).join(', ')}, got "${dialect}"`);
  return { ...model, dialect: dialect as OpenAIDialectName };
}

/** The title a goal names: a catalog title found in it, else the text of "add X to my library", else the goal. */
export function titleOfGoal(goal: string, known: readonly string[]): string {
  const lower = goal.toLowerCase();
  const hit = [...known].sort((a, b) => b.length - a.length).find((t) => lower.includes(t.toLowerCase()));
  if (hit) return hit;
  const m = /^\s*(?:please\s+)?(?:add|get|download)\s+(.+?)(?:\s+(?:to|into)\s+(?:my|the)\s+library)?[\s.!]*$/i.exec(goal);
  return m?.[1]?.replace(/^["']|["']$/g, '') ?? goal;
}

function modelConfig(choice: ModelChoice, goal: string, generation: 'v2' | 'v3'): { provider: ModelProviderConfig; model: string; label: string } {
  switch (choice.kind) {
    case 'anthropic': {
      const apiKey = process.env.ANTHROPIC_API_KEY;
      if (!apiKey) throw new CliUsageError('--model anthropic:… needs ANTHROPIC_API_KEY in the environment');
      return { provider: { provider: 'anthropic', apiKey, ...(process.env.ANTHROPIC_BASE_URL ? { baseUrl: process.env.ANTHROPIC_BASE_URL } : {}) }, model: choice.model, label: `Anthropic ${choice.model}` };
    }
    case 'openai-compatible': {
      const apiKey = process.env.OPENAI_API_KEY;
      return {
        provider: { provider: 'openai-compatible', baseUrl: choice.baseUrl, ...(apiKey ? { apiKey } : {}), ...(choice.dialect ? { dialect: choice.dialect } : {}) },
        model: choice.model,
        label: `${choice.baseUrl} ${choice.model}${choice.dialect ? ` (${choice.dialect} dialect)` : ''}`,
      };
    }
    case 'scripted': {
      if (choice.file) {
        let text: string;
        try {
          text = readFileSync(choice.file, 'utf8');
          JSON.parse(text);
        } catch (error) {
          throw new CliUsageError(`--model scripted:${choice.file}: cannot read JSON scripts (${error instanceof Error ? error.message : String(error)})`);
        }
        return { provider: { provider: 'scripted', scripts: text, chunkSize: 24 }, model: 'scripted', label: `scripted model from ${choice.file}` };
      }
      const titles = (generation === 'v2' ? V2_TITLES : V3_TITLES).map((t) => t.title);
      const title = titleOfGoal(goal, titles);
      const scripts = [...(generation === 'v3' ? [organizeCompletedDownloadScript()] : []), { ...addToLibraryScript(title), match: { regex: title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags: 'i' } }];
      return { provider: { provider: 'scripted', scripts, chunkSize: 24 }, model: 'scripted', label: `scripted model adding "${title}" (no network)` };
    }
  }
}

interface Embedded {
  host: AgentHost;
  label: string;
  close(): Promise<void>;
}

async function embed(cmd: CliCommand, model: ReturnType<typeof modelConfig>): Promise<Embedded> {
  const clock = new SystemClock();
  const common = {
    storage: new SqliteStorage({ path: join(cmd.dataDir, 'agent.sqlite') }),
    clock,
    logger: new ConsoleLogger('error'),
    model: { provider: model.provider, model: model.model },
    runs: { goalPollSec: 1, leaseMs: 10_000, pollMs: 50, budgets: { maxToolCalls: 40, maxDurationSec: cmd.timeoutSec } },
  };
  const durations = { queuedMs: 300, downloadMs: 1_500, transferMs: 300 };
  if (cmd.generation === 'v3') {
    let sim: MoviePilotV3Simulator | undefined;
    let url = cmd.url!;
    let auth = cmd.auth!;
    if (cmd.simulate) {
      sim = new MoviePilotV3Simulator({ autoTransfer: true, durations });
      await sim.start();
      url = sim.url;
      auth = { apiKey: sim.apiKey };
    }
    const v3 = createV3AgentHost({ ...common, url, auth });
    return { host: v3.host, label: sim ? `MoviePilot 3.x simulator at ${url}` : `MoviePilot 3.x at ${url}`, close: async () => (await v3.close(), await sim?.close()) };
  }
  let sim: MoviePilotV2Simulator | undefined;
  let url = cmd.url!;
  let credentials = cmd.auth!;
  if (cmd.simulate) {
    sim = new MoviePilotV2Simulator({ autoTransfer: true, durations });
    await sim.start();
    url = sim.url;
    credentials = { apiKey: sim.apiToken };
  }
  const v2 = await createV2AgentHost({ ...common, url, credentials });
  return { host: v2.host, label: sim ? `MoviePilot 2.x simulator at ${url}` : `MoviePilot 2.x at ${url}`, close: async () => (await v2.close(), await sim?.stop()) };
}

const TERMINAL = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'];
const ADMIN = 'user:admin' as const;
/** Proposals create plan artifacts only (nothing reaches the host's downloader): always allowed. */
const PROPOSALS = ['download.plan', 'organize.plan'];

async function askTty(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/** Runs the command; returns the exit code. */
export async function runCli(cmd: CliCommand): Promise<number> {
  const model = modelConfig(cmd.model, cmd.goal, cmd.generation);
  mkdirSync(cmd.dataDir, { recursive: true });
  const embedded = await embed(cmd, model);
  const { host } = embedded;
  try {
    await host.start();
    const active = await host.grants.list({ status: 'active' });
    for (const action of [...PROPOSALS, ...cmd.grants]) {
      if (active.some((g) => g.action === action && g.createdBy === ADMIN)) continue;
      await host.grants.create({ action, actor: ADMIN, reason: cmd.grants.includes(action) ? `--grant ${action} on the command line` : 'the agent may propose plans', budget: { maxInvocationsPerDay: 20 } });
      if (cmd.grants.includes(action)) console.log(`grant: the agent may ${action} without asking (standing grant by ${ADMIN})`);
    }
    const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
    console.log(`media-agent moviepilot-cli — host: ${embedded.label}; model: ${model.label}; data: ${cmd.dataDir}`);
    const run = await host.startRun({ goal: cmd.goal, actor: ADMIN });
    console.log(`run ${run.id} ${run.status}: ${run.goal}\n`);

    let midLine = false;
    const line = (text: string) => {
      if (midLine) process.stdout.write('\n');
      midLine = false;
      console.log(text);
    };
    const stop = new AbortController();
    const show = async (e: RunEvent) => {
      switch (e.type) {
        case 'run_status':
          line(`· run ${e.data.status} (${e.data.step})${e.data.reason ? ` — ${e.data.reason}` : ''}`);
          break;
        case 'text_delta':
          process.stdout.write(midLine ? e.data.text : `  ${e.data.text}`);
          midLine = true;
          break;
        case 'tool_call':
          if (e.data.phase === 'started') line(`  → ${e.data.capabilityId}`);
          else line(`  ← ${e.data.capabilityId}: ${e.data.phase}${e.data.error ? ` (${e.data.error.code})` : ''}`);
          break;
        case 'plan_updated':
          if (e.data.plan) line(`  plan: ${(e.data.plan as { steps: Array<{ title: string; status: string }> }).steps.map((s) => `${s.title} [${s.status}]`).join(' → ')}`);
          break;
        case 'approval_requested': {
          const plan = await host.plans.get(e.data.planId);
          line(`  ? approval asked for ${e.data.capabilityId} on ${e.data.planType} plan ${plan.id} (revision ${plan.revision})`);
          line(`    ${summarize(plan.payload, plan.mediaEntityId, plan.bytes)}`);
          line(`    payload hash ${plan.payloadHash}`);
          let approve = false;
          if (interactive) approve = await askTty('    approve? [y/N] ');
          else if (cmd.simulate) {
            // A try-out against the in-process simulator: its console administrator reviews and approves.
            approve = true;
            line(`    no TTY: the simulated host's console administrator approves (--simulate only; a real host needs a TTY or --grant ${e.data.capabilityId})`);
          } else line(`    no TTY to ask and no --grant ${e.data.capabilityId}: denied`);
          await host.approvals.decide(e.data.approvalId, approve ? { status: 'approved', actor: ADMIN, payloadHash: plan.payloadHash } : { status: 'rejected', actor: ADMIN });
          line(approve ? `  ✓ approved by ${ADMIN} (hash ${plan.payloadHash.slice(0, 12)}…)` : `  ✗ approval ${e.data.approvalId} rejected`);
          break;
        }
        case 'budget_exceeded':
          line(`  ! budget ${e.data.budget} exceeded (limit ${e.data.limit})`);
          break;
        default:
          break;
      }
    };
    let report: AgentGoalReport | undefined;
    const timeout = setTimeout(() => stop.abort(), cmd.timeoutSec * 1000);
    for await (const e of host.events({ runId: run.id, signal: stop.signal, pollMs: 100 })) {
      await show(e);
      if (e.type === 'report') report = e.data.report as unknown as AgentGoalReport;
      if (e.type === 'run_status' && TERMINAL.includes(e.data.status)) stop.abort();
    }
    clearTimeout(timeout);
    const final = await host.getRun(run.id);
    report ??= final.report ?? undefined;
    line('');
    if (!TERMINAL.includes(final.run.status)) {
      console.log(`gave up after ${cmd.timeoutSec} s: the run is ${final.run.status}`);
      await host.abort(run.id, 'moviepilot-cli timed out').catch(() => undefined);
    }
    if (!report) {
      console.log(`no report: the run is ${final.run.status}`);
      return 1;
    }
    console.log(`Goal report (verified from MoviePilot's records): ${report.status.toUpperCase()}${report.verified ? '' : ' (not verified)'}`);
    console.log(`  ${report.summary}`);
    for (const d of report.facts.downloads) console.log(`  download ${d.id}: ${d.title} — ${d.status}`);
    for (const o of report.facts.organizes) console.log(`  organized ${o.mediaEntityId} → ${o.libraryPath ?? '?'} (${o.status})`);
    for (const l of report.facts.library) console.log(`  library ${l.mediaEntityId}: ${l.present ? 'present' : 'absent'}`);
    if (report.modelText) console.log(`  model said (unverified): ${report.modelText.text}`);
    return report.status === 'succeeded' && report.verified ? 0 : 1;
  } finally {
    await embedded.close().catch(() => undefined);
  }
}

function summarize(payload: unknown, mediaEntityId: string | null, bytes: number): string {
  const p = (payload ?? {}) as Record<string, unknown>;
  const pick = (...keys: string[]) => keys.map((k) => p[k]).find((x) => typeof x === 'string' || typeof x === 'number');
  const release = (p.release ?? p.torrent_in ?? p.torrent) as Record<string, unknown> | undefined;
  const what = pick('title', 'summary') ?? release?.title ?? mediaEntityId ?? 'plan';
  const size = bytes > 0 ? `, ${(bytes / 2 ** 30).toFixed(1)} GiB` : '';
  return `${String(what)}${mediaEntityId ? ` [${mediaEntityId}]` : ''}${size}`;
}

async function main(argv: string[]): Promise<number> {
  let cmd: CliCommand | undefined;
  try {
    cmd = parseCommand(argv);
    if (!cmd) {
      console.log(USAGE);
      return 0;
    }
    return await runCli(cmd);
  } catch (error) {
    if (error instanceof CliUsageError) {
      console.error(`error: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    const code = (error as { code?: unknown }).code;
    console.error(`error${typeof code === 'string' ? ` ${code}` : ''}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  process.exit(await main(process.argv.slice(2)));
}
