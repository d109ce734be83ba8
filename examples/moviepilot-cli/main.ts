/**
 * moviepilot-cli: a command-line host that embeds media-agent on a MoviePilot 2.x or 3.x instance.
 *
 *   npm run cli -- run --simulate v3 "add Dune: Part Two to my library" --grant download.submit
 *   npm run cli -- run --host v3 --url http://nas:3001 --api-key "$MP_API_TOKEN" --model anthropic:claude-sonnet-4-5 "add Arrival"
 *   npm run cli -- run --simulate v3 --model openai-compatible:http://127.0.0.1:8000/v1:qwen3 --dialect vllm "add Heat"
 *   npm run cli -- grants list --host v3 --url http://nas:3001
 *   npm run cli -- --help
 *
 * It runs the SDK runtime in this process (SQLite in a data directory of its own per host URL or
 * simulator), checks the host at start-up (unreachable or refused credentials: one line, exit 1), streams
 * the run's progress, asks approvals on a TTY (plan summary + payload hash, y/N) and denies them without one
 * (with --simulate the simulated host's administrator approves instead) unless a `--grant <capability>`
 * gave the agent a grant for this run, prints the goal report verified from the
 * host's records, and exits 0 only when that report is verified `succeeded`. Model API keys come from the
 * environment only and are never printed.
 *
 * Every grant the CLI creates is bound to the run it was created for: it expires at the run's start + its
 * maximum duration + {@link GRANT_TTL_MARGIN_SEC} (so a killed CLI leaves no standing authority), and is
 * revoked when the run ends — normally, on an error, on SIGINT or SIGTERM. The next run revokes grants an
 * earlier run left active and cancels runs it left unfinished before its workers start, so no run inherits
 * another run's authority.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import {
  ConsoleLogger,
  createAgentHost,
  SystemClock,
  type AgentGoalReport,
  type AgentHost,
  type ModelProviderConfig,
  type RunEvent,
} from '@media-agent/sdk';
import { OPENAI_DIALECTS, type OpenAIDialectName } from '@media-agent/sdk/models';
import { type GrantRecord, type RunRecord } from '@media-agent/sdk/storage';
import { SqliteStorage } from '@media-agent/sdk/sqlite';
import { addToLibraryScript } from '@media-agent/sdk/testing';
import { createV2AgentHost } from '@media-agent/host-adapter-v2';
import { MoviePilotV2Simulator, SIM_TITLES as V2_TITLES } from '@media-agent/host-adapter-v2/testing';
import { createV3AgentHost } from '@media-agent/host-adapter-v3';
import {
  MoviePilotV3Simulator,
  organizeCompletedDownloadScript,
  SIM_TITLES as V3_TITLES,
} from '@media-agent/host-adapter-v3/testing';

/** Seconds a run-bound grant outlives the run's maximum duration (`--timeout`) before it expires on its own. */
export const GRANT_TTL_MARGIN_SEC = 60;

/** Where the default data directories live (relative to the working directory). */
export const DATA_ROOT = join('.media-agent', 'cli');

export const USAGE = `usage: npm run cli -- run [options] "goal"
       npm run cli -- grants list [selection]
       npm run cli -- grants revoke ID [selection]

run options:
  --host v2|v3                     MoviePilot generation of the host
  --url URL                        the host's root URL, e.g. http://nas:3001
  --api-key KEY                    the host's API token (X-API-KEY)
  --user U --password P            or a host user (JWT login); with --host v2 both may be given, and
                                   MoviePilot 2.5.x needs the login (its standard routes accept no API token)
  --simulate v2|v3                 start that generation's simulator in this process instead (no --host/--url/auth)
  --model scripted[:FILE]          scripted model (default; FILE: JSON scripts)
          anthropic:MODEL          Anthropic (ANTHROPIC_API_KEY from the environment)
          openai-compatible:BASE_URL:MODEL   (OPENAI_API_KEY from the environment, optional)
  --dialect NAME                   with openai-compatible: the server family, one of
                                   ${Object.keys(OPENAI_DIALECTS).join(', ')} (default openai)
  --grant CAPABILITY               let the agent call CAPABILITY without asking, for this run only (repeatable),
                                   e.g. download.submit. The grant is printed when it is created (id, action,
                                   expiry) and each time it authorizes a call; it expires on its own at the run's
                                   start + --timeout + ${GRANT_TTL_MARGIN_SEC} s and is revoked when the run ends (also on
                                   Ctrl-C / SIGTERM). A call a grant covers asks no approval.
  --timeout SEC                    the run's maximum duration: give up after SEC seconds (default 600)
  --data-dir DIR, --data DIR       data directory (see below)
  -h, --help                       this text

approvals (the agent asks before a download is submitted or files are organized, unless --grant covers it):
  on a TTY                         the plan summary and payload hash are shown; answer y to approve, anything else denies
  no TTY, --host                   denied: nothing is downloaded or moved (use --grant CAPABILITY to allow it)
  no TTY, --simulate               the simulated host's console administrator approves (a try-out, no real host)

data directory (SQLite: runs, grants, ledger, audit) — one per host, so grants and runs never cross hosts:
  default ./${DATA_ROOT.replace(/\\/g, '/')}/KIND under the working directory, KIND being
    v3-simulated, v2-simulated       with --simulate v3|v2
    v3-HASH, v2-HASH                 with --host v3|v2 --url URL; HASH = the first 12 hex digits of the sha256 of
                                     the URL normalized (no user/password or #fragment, no trailing "/", host in
                                     lower case)
  --data-dir DIR (or --data DIR) wins over the default.
  Before a run starts, grants an earlier run left active (a CLI that was killed) are revoked and runs it
  left unfinished are cancelled (both printed).

grants commands (selection: --simulate v2|v3, or --host v2|v3 --url URL, or --data-dir DIR; the host is
not contacted and needs no credentials):
  grants list                      every grant in the data directory: id, action, status (active, expired,
                                   revoked), expiry, created by, reason
  grants revoke ID                 revoke grant ID as the CLI's administrator (user:admin)

exit codes:
  0    run: the goal report is verified succeeded; grants: done
  1    run: anything else (report not verified or not succeeded, no report, timed out), or an error
       (printed as one line, "error CODE: message — what to do"; an unreachable host (HOST_UNREACHABLE) or
       refused credentials (HOST_AUTH_FAILED) end the CLI at start-up, before anything is run)
  2    bad arguments (CLI_USAGE, with this text); GRANT_NOT_FOUND (grants revoke of an id the data directory
       does not have); GRANT_MATCHES_NOTHING (--grant naming no capability of the host)
  130  interrupted by SIGINT (Ctrl-C), 143 by SIGTERM: the run's grants are revoked and the run cancelled`;

/** An error of the CLI with a stable code and the exit code it ends the process with. */
export class CliError extends Error {
  override readonly name: string = 'CliError';
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** A bad command line: printed with the usage text, exit code 2. */
export class CliUsageError extends CliError {
  override readonly code = 'CLI_USAGE';
  override readonly name = 'CliUsageError';
  constructor(message: string) {
    super('CLI_USAGE', message, 2);
  }
}

export type ModelChoice =
  | { kind: 'scripted'; file?: string }
  | { kind: 'anthropic'; model: string }
  | { kind: 'openai-compatible'; baseUrl: string; model: string; dialect?: OpenAIDialectName };

/** `cli run …`. */
export interface CliCommand {
  command: 'run';
  goal: string;
  generation: 'v2' | 'v3';
  simulate: boolean;
  url?: string;
  auth?:
    | { apiKey: string }
    | { username: string; password: string }
    | { apiKey: string; username: string; password: string };
  model: ModelChoice;
  dataDir: string;
  grants: string[];
  timeoutSec: number;
}

/** `cli grants list` / `cli grants revoke ID`. */
export type GrantsCommand =
  | { command: 'grants-list'; dataDir: string }
  | { command: 'grants-revoke'; dataDir: string; id: string };

/** The host a data directory belongs to. */
export interface HostSelection {
  generation: 'v2' | 'v3';
  simulate: boolean;
  url?: string;
}

/** The URL as its data directory is keyed: no credentials or fragment, no trailing slash (WHATWG URL lower-cases the host). */
export function normalizeHostUrl(url: string): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  u.hash = '';
  u.pathname = u.pathname.replace(/\/+$/, '');
  return u.href.replace(/\/+$/, '');
}

/** The default data directory of a host: `DATA_ROOT/v3-simulated`, `DATA_ROOT/v2-<sha256(normalized URL) first 12 hex>`, … (absolute). */
export function defaultDataDir(host: HostSelection, root: string = DATA_ROOT): string {
  if (host.simulate) return resolve(root, `${host.generation}-simulated`);
  if (host.url === undefined) throw new CliUsageError('missing --url (the MoviePilot root URL)');
  const hash = createHash('sha256').update(normalizeHostUrl(host.url)).digest('hex').slice(0, 12);
  return resolve(root, `${host.generation}-${hash}`);
}

const OPTIONS = {
  host: { type: 'string' },
  url: { type: 'string' },
  'api-key': { type: 'string' },
  user: { type: 'string' },
  password: { type: 'string' },
  simulate: { type: 'string' },
  model: { type: 'string' },
  dialect: { type: 'string' },
  'data-dir': { type: 'string' },
  data: { type: 'string' },
  grant: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<
  typeof parseArgs<{ args: string[]; allowPositionals: true; strict: true; options: typeof OPTIONS }>
>['values'];

function generationOf(x: string | undefined, flag: string): 'v2' | 'v3' {
  if (x === 'v2' || x === 'v3') return x;
  throw new CliUsageError(`${flag} must be v2 or v3, got "${x}"`);
}

function checkUrl(url: string): void {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new CliUsageError(`--url must be an http(s) URL, got "${url}"`);
  }
}

/** `--data-dir DIR` / `--data DIR` (the same directory if both), or undefined. */
function explicitDataDir(v: Values): string | undefined {
  const a = v['data-dir'];
  const b = v.data;
  if (a !== undefined && b !== undefined && resolve(a) !== resolve(b))
    throw new CliUsageError(`--data-dir "${a}" and --data "${b}" name different directories`);
  const dir = a ?? b;
  if (dir === '') throw new CliUsageError('--data-dir needs a directory');
  return dir === undefined ? undefined : resolve(dir);
}

/** Parses `run …`, `grants list`, `grants revoke ID` (throws {@link CliUsageError}); `undefined` for `--help`. */
export function parseCommand(argv: string[]): CliCommand | GrantsCommand | undefined {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });
  } catch (error) {
    throw new CliUsageError(error instanceof Error ? error.message : String(error));
  }
  const { values: v, positionals } = parsed;
  if (v.help) return undefined;
  const [command, ...rest] = positionals;
  if (command === 'grants') return parseGrants(v, rest);
  if (command !== 'run')
    throw new CliUsageError(
      command ? `unknown command "${command}" (expected "run" or "grants")` : 'missing command "run" (or "grants")',
    );
  const goal = rest.join(' ').trim();
  if (!goal) throw new CliUsageError('missing the goal, e.g. "add Dune: Part Two to my library"');
  const timeoutSec = v.timeout === undefined ? 600 : Number(v.timeout);
  if (!Number.isFinite(timeoutSec) || timeoutSec <= 0)
    throw new CliUsageError(`--timeout must be a positive number of seconds, got "${v.timeout}"`);
  const dataDir = explicitDataDir(v);
  const grants = [...new Set(v.grant ?? [])];
  const base = {
    command: 'run' as const,
    goal,
    model: withDialect(parseModel(v.model ?? 'scripted'), v.dialect),
    grants,
    timeoutSec,
  };
  for (const g of grants)
    if (!/^[A-Za-z0-9_.*<>-]+$/.test(g))
      throw new CliUsageError(`--grant needs a capability id such as download.submit, got "${g}"`);
  if (v.simulate !== undefined) {
    const gen = generationOf(v.simulate, '--simulate');
    if (v.host !== undefined && v.host !== gen)
      throw new CliUsageError(`--host ${v.host} contradicts --simulate ${gen}`);
    for (const f of ['url', 'api-key', 'user', 'password'] as const)
      if (v[f] !== undefined)
        throw new CliUsageError(`--${f} cannot be used with --simulate (the simulator is the host)`);
    return {
      ...base,
      generation: gen,
      simulate: true,
      dataDir: dataDir ?? defaultDataDir({ generation: gen, simulate: true }),
    };
  }
  if (v.host === undefined) throw new CliUsageError('missing --host v2|v3 (or --simulate v2|v3)');
  const gen = generationOf(v.host, '--host');
  if (v.url === undefined) throw new CliUsageError('missing --url (the MoviePilot root URL)');
  checkUrl(v.url);
  const key = v['api-key'];
  const userPass = v.user !== undefined || v.password !== undefined;
  // MoviePilot 2.5.x needs both (standard routes: the login; plugin and /api/v3 routes: the API token); 3.x takes one.
  if (key !== undefined && userPass && gen === 'v3')
    throw new CliUsageError('use either --api-key or --user/--password, not both (both together apply to --host v2)');
  if (key === undefined && !userPass)
    throw new CliUsageError('missing credentials: --api-key KEY or --user U --password P');
  if (userPass && (v.user === undefined || v.password === undefined))
    throw new CliUsageError('--user and --password go together');
  const auth =
    key !== undefined && userPass
      ? { apiKey: key, username: v.user!, password: v.password! }
      : key !== undefined
        ? { apiKey: key }
        : { username: v.user!, password: v.password! };
  return {
    ...base,
    generation: gen,
    simulate: false,
    url: v.url,
    auth,
    dataDir: dataDir ?? defaultDataDir({ generation: gen, simulate: false, url: v.url }),
  };
}

function parseGrants(v: Values, rest: string[]): GrantsCommand {
  const [sub, ...args] = rest;
  for (const f of ['api-key', 'user', 'password', 'model', 'dialect', 'grant', 'timeout'] as const) {
    if (v[f] !== undefined)
      throw new CliUsageError(
        `--${f} does not apply to "grants" (it reads the data directory only; select it with --simulate, --host/--url or --data-dir)`,
      );
  }
  let dataDir = explicitDataDir(v);
  if (v.simulate !== undefined) {
    const gen = generationOf(v.simulate, '--simulate');
    if (v.host !== undefined && v.host !== gen)
      throw new CliUsageError(`--host ${v.host} contradicts --simulate ${gen}`);
    if (v.url !== undefined)
      throw new CliUsageError('--url cannot be used with --simulate (the simulator is the host)');
    dataDir ??= defaultDataDir({ generation: gen, simulate: true });
  } else if (v.host !== undefined || v.url !== undefined) {
    if (v.host === undefined)
      throw new CliUsageError('--url needs --host v2|v3 (the data directory is per generation and URL)');
    const gen = generationOf(v.host, '--host');
    if (v.url === undefined) throw new CliUsageError('missing --url (the MoviePilot root URL)');
    checkUrl(v.url);
    dataDir ??= defaultDataDir({ generation: gen, simulate: false, url: v.url });
  }
  if (dataDir === undefined)
    throw new CliUsageError(
      '"grants" needs the data directory: --simulate v2|v3, --host v2|v3 --url URL, or --data-dir DIR',
    );
  if (sub === 'list') {
    if (args.length > 0) throw new CliUsageError(`"grants list" takes no arguments, got "${args.join(' ')}"`);
    return { command: 'grants-list', dataDir };
  }
  if (sub === 'revoke') {
    if (args.length !== 1 || !args[0])
      throw new CliUsageError('"grants revoke" needs exactly one grant id (see "grants list")');
    return { command: 'grants-revoke', dataDir, id: args[0] };
  }
  throw new CliUsageError(
    sub
      ? `unknown grants command "${sub}" (expected "list" or "revoke ID")`
      : 'missing "list" or "revoke ID" after "grants"',
  );
}

/** `scripted[:FILE]`, `anthropic:MODEL`, `openai-compatible:BASE_URL:MODEL` (the base URL may contain colons). */
export function parseModel(spec: string): ModelChoice {
  if (spec === 'scripted') return { kind: 'scripted' };
  if (spec.startsWith('scripted:') && spec.length > 'scripted:'.length)
    return { kind: 'scripted', file: spec.slice('scripted:'.length) };
  if (spec.startsWith('anthropic:') && spec.length > 'anthropic:'.length)
    return { kind: 'anthropic', model: spec.slice('anthropic:'.length) };
  if (spec.startsWith('openai-compatible:')) {
    const rest = spec.slice('openai-compatible:'.length);
    const cut = rest.lastIndexOf(':');
    const baseUrl = cut > 0 ? rest.slice(0, cut) : '';
    const model = cut > 0 ? rest.slice(cut + 1) : '';
    if (/^https?:\/\/./.test(baseUrl) && model) return { kind: 'openai-compatible', baseUrl, model };
  }
  throw new CliUsageError(
    `bad --model "${spec}": use scripted[:FILE], anthropic:MODEL or openai-compatible:BASE_URL:MODEL`,
  );
}

/** Applies `--dialect NAME` to an `openai-compatible` model choice (a usage error for any other model or an unknown name). */
export function withDialect(model: ModelChoice, dialect: string | undefined): ModelChoice {
  if (dialect === undefined) return model;
  if (model.kind !== 'openai-compatible')
    throw new CliUsageError('--dialect applies only to --model openai-compatible:BASE_URL:MODEL');
  if (!Object.hasOwn(OPENAI_DIALECTS, dialect))
    throw new CliUsageError(`--dialect must be one of ${Object.keys(OPENAI_DIALECTS).join(', ')}, got "${dialect}"`);
  return { ...model, dialect: dialect as OpenAIDialectName };
}

/** The title a goal names: a catalog title found in it, else the text of "add X to my library", else the goal. */
export function titleOfGoal(goal: string, known: readonly string[]): string {
  const lower = goal.toLowerCase();
  const hit = [...known].sort((a, b) => b.length - a.length).find((t) => lower.includes(t.toLowerCase()));
  if (hit) return hit;
  const m = /^\s*(?:please\s+)?(?:add|get|download)\s+(.+?)(?:\s+(?:to|into)\s+(?:my|the)\s+library)?[\s.!]*$/i.exec(
    goal,
  );
  return m?.[1]?.replace(/^["']|["']$/g, '') ?? goal;
}

function modelConfig(
  choice: ModelChoice,
  goal: string,
  generation: 'v2' | 'v3',
): { provider: ModelProviderConfig; model: string; label: string; title?: string } {
  switch (choice.kind) {
    case 'anthropic': {
      const apiKey = process.env.ANTHROPIC_API_KEY;
      if (!apiKey) throw new CliUsageError('--model anthropic:… needs ANTHROPIC_API_KEY in the environment');
      return {
        provider: {
          provider: 'anthropic',
          apiKey,
          ...(process.env.ANTHROPIC_BASE_URL ? { baseUrl: process.env.ANTHROPIC_BASE_URL } : {}),
        },
        model: choice.model,
        label: `Anthropic ${choice.model}`,
      };
    }
    case 'openai-compatible': {
      const apiKey = process.env.OPENAI_API_KEY;
      return {
        provider: {
          provider: 'openai-compatible',
          baseUrl: choice.baseUrl,
          ...(apiKey ? { apiKey } : {}),
          ...(choice.dialect ? { dialect: choice.dialect } : {}),
        },
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
          throw new CliUsageError(
            `--model scripted:${choice.file}: cannot read JSON scripts (${error instanceof Error ? error.message : String(error)})`,
          );
        }
        return {
          provider: { provider: 'scripted', scripts: text, chunkSize: 24 },
          model: 'scripted',
          label: `scripted model from ${choice.file}`,
        };
      }
      const titles = (generation === 'v2' ? V2_TITLES : V3_TITLES).map((t) => t.title);
      const title = titleOfGoal(goal, titles);
      const scripts = [
        ...(generation === 'v3' ? [organizeCompletedDownloadScript()] : []),
        { ...addToLibraryScript(title), match: { regex: title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags: 'i' } },
      ];
      return {
        provider: { provider: 'scripted', scripts, chunkSize: 24 },
        model: 'scripted',
        label: `scripted model adding "${title}" (no network)`,
        title,
      };
    }
  }
}

interface Embedded {
  host: AgentHost;
  label: string;
  /** The host said (its own network test) that it cannot reach TMDB. */
  metadataUnreachable?: boolean;
  close(): Promise<void>;
}

async function embed(cmd: CliCommand, model: ReturnType<typeof modelConfig>): Promise<Embedded> {
  const clock = new SystemClock();
  const common = {
    storage: new SqliteStorage({ path: join(cmd.dataDir, 'agent.sqlite') }),
    clock,
    logger: new ConsoleLogger('error'),
    model: { provider: model.provider, model: model.model },
    runs: {
      goalPollSec: 1,
      leaseMs: 10_000,
      pollMs: 50,
      budgets: { maxToolCalls: 40, maxDurationSec: cmd.timeoutSec },
    },
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
    const v3 = createV3AgentHost({
      ...common,
      url,
      auth: auth as { apiKey: string } | { username: string; password: string },
    });
    return {
      host: v3.host,
      label: sim ? `MoviePilot 3.x simulator at ${url}` : `MoviePilot 3.x at ${url}`,
      get metadataUnreachable() {
        return v3.status.metadata === 'unreachable';
      },
      close: async () => {
        await v3.close();
        await sim?.close();
      },
    };
  }
  let sim: MoviePilotV2Simulator | undefined;
  let url = cmd.url!;
  let auth = cmd.auth!;
  if (cmd.simulate) {
    sim = new MoviePilotV2Simulator({ autoTransfer: true, durations });
    await sim.start();
    url = sim.url;
    auth = { apiKey: sim.apiKey };
  }
  const v2 = createV2AgentHost({ ...common, url, auth });
  return {
    host: v2.host,
    get label() {
      const version = v2.status.version ? ` ${v2.status.version}` : ''; // known once host.start() checked the host
      return sim ? `MoviePilot 2.x simulator at ${url}` : `MoviePilot 2.x${version} at ${url}`;
    },
    get metadataUnreachable() {
      return v2.status.metadata === 'unreachable';
    },
    close: async () => {
      await v2.close();
      await sim?.close();
    },
  };
}

const TERMINAL = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'];
const ADMIN = 'user:admin' as const;
/** Proposals create plan artifacts only (nothing reaches the host's downloader): always allowed, for the run. */
const PROPOSALS = ['download.plan', 'organize.plan'];
const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

const iso = (ms: number | null): string => (ms === null ? 'never' : new Date(ms).toISOString());

/** The CLI process a grant or run belongs to, written into the grant's reason and the run's session id. */
interface Owner {
  pid: number;
  host: string;
  session: string;
}
const OWNER_TAG = /\bpid=(\d+) host=(\S+) session=([0-9a-f-]+)/;
const ownerTag = (o: Owner): string => `pid=${o.pid} host=${o.host} session=${o.session}`;

/**
 * Whether the CLI process that made a record may still be running: `none` (no tag: not made by this
 * version of the CLI), `alive` (this process, a live process on this machine, or another machine — which
 * cannot be checked; such grants expire on their own) or `gone`.
 */
function ownerState(text: string | null, self: Owner): 'none' | 'alive' | 'gone' {
  const m = text ? OWNER_TAG.exec(text) : null;
  if (!m) return 'none';
  const [, pid, host, session] = m;
  if (session === self.session || host !== self.host) return 'alive';
  if (Number(pid) === self.pid) return 'gone';
  try {
    process.kill(Number(pid), 0);
    return 'alive';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? 'alive' : 'gone';
  }
}

/**
 * Before this run's workers start: revokes the grants an earlier run left active (its CLI was killed
 * before it could revoke them; unexpired, made by a process that is gone, or by an older CLI without
 * expiry) and cancels the runs it left unfinished, so that nothing of an earlier run acts in this one.
 * Grants of another live CLI process on this data directory are reported, not touched.
 */
async function clearLeftovers(host: AgentHost, self: Owner, line: (text: string) => void): Promise<void> {
  const now = Date.now();
  for (const g of await host.grants.list({ status: 'active' })) {
    if (g.expiresAt !== null && g.expiresAt <= now) continue;
    const state = ownerState(g.reason, self);
    if (state === 'alive') {
      if (g.reason?.includes('--grant '))
        line(
          `! grant ${g.id} (${g.action}) of another moviepilot-cli process (${OWNER_TAG.exec(g.reason)?.[0]}) is active on this data directory until ${iso(g.expiresAt)}; while it is, it covers this run too`,
        );
      continue;
    }
    await host.grants.update(g.id, { actor: ADMIN, status: 'revoked' });
    line(
      `grant ${g.id} (${g.action}) revoked: an earlier run left it active (${g.expiresAt === null ? 'it had no expiry' : `it would have expired ${iso(g.expiresAt)}`})`,
    );
  }
  for (const status of ['queued', 'running', 'waiting'] as const) {
    for (const r of await host.listRuns({ status, limit: 1000 })) {
      const state = ownerState(r.sessionId, self);
      if (state === 'alive') continue;
      if (state === 'none' && r.leaseOwner !== null && (r.leaseExpiresAt ?? 0) > now) continue; // driven by a live process this CLI did not start
      await host.abort(r.id, 'moviepilot-cli: left unfinished by an earlier invocation that did not end');
      line(`run ${r.id} cancelled: an earlier invocation left it ${r.status} ("${r.goal}")`);
    }
  }
}

async function askTty(question: string, signal: AbortSignal, onInterrupt: () => void): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  rl.on('SIGINT', onInterrupt); // Ctrl-C while readline holds the terminal
  try {
    return /^y(es)?$/i.test((await rl.question(question, { signal })).trim());
  } catch {
    return false; // interrupted
  } finally {
    rl.close();
  }
}

/** Runs the command; returns the exit code. */
export async function runCli(cmd: CliCommand): Promise<number> {
  const model = modelConfig(cmd.model, cmd.goal, cmd.generation);
  let midLine = false;
  const line = (text: string) => {
    if (midLine) process.stdout.write('\n');
    midLine = false;
    console.log(text);
  };
  const stop = new AbortController();
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) process.exit(SIGNAL_EXIT[signal] ?? 1); // a second one: leave now (the grants expire on their own)
    interrupted = signal;
    line(`! ${signal}: ending — the run's grants are revoked and the run cancelled`);
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const self: Owner = { pid: process.pid, host: hostname().replace(/\s+/g, '_') || 'localhost', session: randomUUID() };
  const created: GrantRecord[] = []; // every grant made for this run: revoked in `finally`
  const announced = new Map<string, string>(); // the --grant ones: id → action
  let run: RunRecord | undefined;
  let embedded: Embedded | undefined;
  try {
    mkdirSync(cmd.dataDir, { recursive: true });
    embedded = await embed(cmd, model);
    const { host } = embedded;
    await host.start({ workers: false }); // checks the host first: an unreachable host or refused credentials end here
    line(`media-agent moviepilot-cli — host: ${embedded.label}; model: ${model.label}; data: ${cmd.dataDir}`);
    await clearLeftovers(host, self, line);
    if (embedded.metadataUnreachable)
      line('! the MoviePilot host cannot reach TMDB (its own network test failed): it will find no title until it can');
    if (cmd.model.kind === 'scripted' && !cmd.model.file) {
      // The scripted model follows a fixed script: check first that the host knows the title it will add.
      const title = model.title ?? cmd.goal;
      const found = await host.invoke(
        'catalog.lookup',
        { query: title, limit: 1 },
        { actor: ADMIN, taskId: `moviepilot-cli-${self.session}` },
      );
      if (found.status !== 'succeeded' || (found.output as { items: unknown[] }).items.length === 0) {
        line('');
        line(
          `Outcome: NOT FOUND — MoviePilot found no title "${title}"${found.error ? ` (${found.error.code}: ${found.error.message})` : ''}. Nothing was searched, planned or downloaded.`,
        );
        return 1;
      }
    }
    // Bound to this run: it expires with the run's maximum duration (+ a margin) even if this process is killed.
    const expiresAt = Date.now() + (cmd.timeoutSec + GRANT_TTL_MARGIN_SEC) * 1000;
    for (const action of new Set([...PROPOSALS, ...cmd.grants])) {
      if (interrupted) break;
      const asked = cmd.grants.includes(action);
      const reason = `moviepilot-cli ${asked ? `--grant ${action}` : 'plan proposals'}, for one run (${ownerTag(self)})`;
      let grant: GrantRecord;
      try {
        grant = await host.grants.create({
          action,
          actor: ADMIN,
          expiresAt,
          reason,
          budget: { maxInvocationsPerDay: 20 },
        });
      } catch (error) {
        if (asked && (error as { code?: unknown }).code === 'GRANT_MATCHES_NOTHING')
          throw new CliError('GRANT_MATCHES_NOTHING', `--grant ${action} covers no capability of this host`, 2);
        throw error;
      }
      created.push(grant);
      if (asked) {
        announced.set(grant.id, action);
        line(
          `grant ${grant.id} created: the agent may ${action} without asking, for this run only — expires ${iso(grant.expiresAt)}, revoked when the run ends (by ${ADMIN})`,
        );
      }
    }
    if (interrupted) return SIGNAL_EXIT[interrupted] ?? 1;
    await host.start(); // now the workers
    const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
    run = await host.startRun({ goal: cmd.goal, actor: ADMIN, sessionId: `moviepilot-cli ${ownerTag(self)}` });
    line(`run ${run.id} ${run.status}: ${run.goal}\n`);

    /** Says which of this run's grants authorized an invocation (its audit row names the grant). */
    const showGrantUse = async (invocationId: string | undefined) => {
      if (!invocationId || announced.size === 0) return;
      for (const row of await host.audit({ invocationId })) {
        const action = row.grantId ? announced.get(row.grantId) : undefined;
        if (action)
          line(
            `    authorized by grant ${row.grantId} (--grant ${action}): ${row.capabilityId} ${row.outcome}, no approval asked`,
          );
      }
    };
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
          else {
            line(`  ← ${e.data.capabilityId}: ${e.data.phase}${e.data.error ? ` (${e.data.error.code})` : ''}`);
            await showGrantUse(e.data.invocationId);
          }
          break;
        case 'checklist_updated':
          if (e.data.checklist)
            line(
              `  checklist: ${(e.data.checklist as { steps: Array<{ title: string; status: string }> }).steps.map((s) => `${s.title} [${s.status}]`).join(' → ')}`,
            );
          break;
        case 'approval_requested': {
          if (interrupted) break;
          const plan = await host.plans.get(e.data.planId);
          line(
            `  ? approval asked for ${e.data.capabilityId} on ${e.data.planType} plan ${plan.id} (revision ${plan.revision})`,
          );
          line(`    ${summarize(plan.payload, plan.mediaEntityId, plan.bytes)}`);
          line(`    payload hash ${plan.payloadHash}`);
          let approve = false;
          if (interactive) approve = await askTty('    approve? [y/N] ', stop.signal, () => onSignal('SIGINT'));
          else if (cmd.simulate) {
            // A try-out against the in-process simulator: its console administrator reviews and approves.
            approve = true;
            line(
              `    no TTY: the simulated host's console administrator approves (--simulate only; a real host needs a TTY or --grant ${e.data.capabilityId})`,
            );
          } else line(`    no TTY to ask and no --grant ${e.data.capabilityId}: denied`);
          if (interrupted) break;
          await host.approvals.decide(
            e.data.approvalId,
            approve
              ? { status: 'approved', actor: ADMIN, payloadHash: plan.payloadHash }
              : { status: 'rejected', actor: ADMIN },
          );
          line(
            approve
              ? `  ✓ approved by ${ADMIN} (hash ${plan.payloadHash.slice(0, 12)}…)`
              : `  ✗ approval ${e.data.approvalId} rejected`,
          );
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
    try {
      for await (const e of host.events({ runId: run.id, signal: stop.signal, pollMs: 100 })) {
        await show(e);
        if (e.type === 'report') report = e.data.report as unknown as AgentGoalReport;
        if (e.type === 'run_status' && TERMINAL.includes(e.data.status)) stop.abort();
      }
    } finally {
      clearTimeout(timeout);
    }
    if (interrupted) return SIGNAL_EXIT[interrupted] ?? 1; // `finally` revokes the grants and cancels the run
    const final = await host.getRun(run.id);
    report ??= final.report ?? undefined;
    line('');
    if (!TERMINAL.includes(final.run.status)) {
      line(`gave up after ${cmd.timeoutSec} s: the run is ${final.run.status}`);
      await host.abort(run.id, 'moviepilot-cli timed out').catch(() => undefined);
    }
    if (!report) {
      line(`no report: the run is ${final.run.status}`);
      return 1;
    }
    line(
      `Goal report (verified from MoviePilot's records): ${report.status.toUpperCase()}${report.verified ? '' : ' (not verified)'}`,
    );
    line(`  ${report.summary}`);
    for (const d of report.facts.downloads) line(`  download ${d.id}: ${d.title} — ${d.status}`);
    for (const o of report.facts.organizes)
      line(`  organized ${o.mediaEntityId} → ${o.libraryPath ?? '?'} (${o.status})`);
    for (const l of report.facts.library) line(`  library ${l.mediaEntityId}: ${l.present ? 'present' : 'absent'}`);
    if (report.modelText) line(`  model said (unverified): ${report.modelText.text}`);
    return report.status === 'succeeded' && report.verified ? 0 : 1;
  } finally {
    // The run's authority ends with it: revoke first (a step still in flight is then denied), then cancel the run.
    if (embedded) {
      const { host } = embedded;
      for (const g of created) {
        try {
          await host.grants.update(g.id, { actor: ADMIN, status: 'revoked' });
          if (announced.has(g.id)) line(`grant ${g.id} (${g.action}) revoked: the run ended`);
        } catch (error) {
          line(
            `! could not revoke grant ${g.id} (${g.action}): ${(error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error))}; it expires on its own at ${iso(g.expiresAt)}`,
          );
        }
      }
      if (run) {
        const current = await host.getRun(run.id).catch(() => undefined);
        if (current && !TERMINAL.includes(current.run.status)) {
          await host
            .abort(run.id, interrupted ? `moviepilot-cli interrupted (${interrupted})` : 'moviepilot-cli ended')
            .catch(() => undefined);
          line(`run ${run.id} cancelled${interrupted ? ` (${interrupted})` : ''}`);
        }
      }
      await embedded.close().catch(() => undefined);
    }
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
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

/** The status a grant has now: `revoked`, `expired` (active, past its expiry) or `active`. */
export function grantStatus(
  g: Pick<GrantRecord, 'status' | 'expiresAt'>,
  now: number,
): 'active' | 'expired' | 'revoked' {
  if (g.status === 'revoked') return 'revoked';
  return g.expiresAt !== null && g.expiresAt <= now ? 'expired' : 'active';
}

/** `grants list` / `grants revoke ID` on the data directory (the host is not contacted); returns the exit code. */
export async function grantsCli(cmd: GrantsCommand): Promise<number> {
  const file = join(cmd.dataDir, 'agent.sqlite');
  console.log(`data directory: ${cmd.dataDir}`);
  if (!existsSync(file)) {
    if (cmd.command === 'grants-revoke')
      throw new CliError(
        'GRANT_NOT_FOUND',
        `no grant with id "${cmd.id}" in ${cmd.dataDir} (nothing has run with this data directory)`,
        2,
      );
    console.log('no grants (nothing has run with this data directory)');
    return 0;
  }
  const storage = new SqliteStorage({ path: file });
  try {
    const host = createAgentHost({ storage, logger: new ConsoleLogger('error') });
    await host.start({ workers: false }); // migrates; starts no run workers (listing or revoking drives nothing)
    if (cmd.command === 'grants-list') {
      const grants = await host.grants.list();
      if (grants.length === 0) {
        console.log('no grants');
        return 0;
      }
      const now = Date.now();
      const rows = [
        ['ID', 'ACTION', 'STATUS', 'EXPIRES', 'CREATED BY', 'CREATED', 'REASON'],
        ...grants.map((g) => [
          g.id,
          g.action,
          grantStatus(g, now),
          iso(g.expiresAt),
          g.createdBy,
          iso(g.createdAt),
          g.reason ?? '',
        ]),
      ];
      const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
      for (const r of rows)
        console.log(
          r
            .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
            .join('  ')
            .trimEnd(),
        );
      return 0;
    }
    let grant: GrantRecord;
    try {
      grant = await host.grants.get(cmd.id);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'GRANT_NOT_FOUND')
        throw new CliError(
          'GRANT_NOT_FOUND',
          `no grant with id "${cmd.id}" in ${cmd.dataDir} ("grants list" shows the grants there)`,
          2,
        );
      throw error;
    }
    if (grant.status === 'revoked') {
      console.log(`grant ${grant.id} (${grant.action}) was already revoked`);
      return 0;
    }
    await host.grants.update(grant.id, { actor: ADMIN, status: 'revoked' });
    console.log(`grant ${grant.id} (${grant.action}) revoked by ${ADMIN}`);
    return 0;
  } finally {
    await storage.close().catch(() => undefined);
  }
}

/** What a person does about a host failure, by error code. */
const HINTS: Record<string, string> = {
  HOST_UNREACHABLE:
    'the MoviePilot host is offline or --url is wrong: check that it runs and that this machine can reach it',
  HOST_AUTH_FAILED:
    'nothing was done: check --api-key or --user/--password (MoviePilot 2.5.x needs --user/--password, and --api-key too for plugin routes)',
  HOST_CONTRACT_INVALID:
    'nothing was done: the URL serves no MoviePilot OpenAPI document at /api/v1/openapi.json; check --url (the root URL of the MoviePilot backend)',
  HOST_VERSION_UNSUPPORTED: 'nothing was done: update MoviePilot, or use --host v3 for a 3.x host',
  HOST_GENERATION_MISMATCH: 'nothing was done: use --host v2 for a MoviePilot 2.x host, --host v3 for a 3.x host',
};

/** The one line an error prints: `error CODE: message — what to do` (the host's message on one line). */
export function errorLine(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ');
  const hint = typeof code === 'string' ? HINTS[code] : undefined;
  return `error${typeof code === 'string' ? ` ${code}` : ''}: ${message}${hint ? ` — ${hint}` : ''}`;
}

async function main(argv: string[]): Promise<number> {
  try {
    const cmd = parseCommand(argv);
    if (!cmd) {
      console.log(USAGE);
      return 0;
    }
    return cmd.command === 'run' ? await runCli(cmd) : await grantsCli(cmd);
  } catch (error) {
    if (error instanceof CliUsageError) {
      console.error(`error: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    console.error(errorLine(error));
    return error instanceof CliError ? error.exitCode : 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  process.exit(await main(process.argv.slice(2)));
}
