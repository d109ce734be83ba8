// Packs every workspace package (npm pack), installs the tarballs into a temporary project the way
// a user's project gets them, and checks that a consumer type-checks and loads them:
// - type-check under `node16` ESM, `node16` CommonJS (dynamic import, the one way node16 allows),
//   `node20` CommonJS (static import compiled to require(), which Node >= 20.19 runs) and `bundler`;
// - load every entry point at run time with `import` and with `require`.
// Offline: the packed packages come from the tarballs; their third-party dependencies are linked
// from this workspace's node_modules, and only the ones a package declares (a missing
// `dependencies` entry fails here). Run after `npm run build`.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const packageDirs = readdirSync(join(root, 'packages')).map((d) => join(root, 'packages', d));
const tmp = mkdtempSync(join(tmpdir(), 'media-agent-consumer-'));
const keep = process.argv.includes('--keep');
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let failures = 0;
const fail = (what, error) => {
  failures++;
  console.error(
    `check-consumer: FAIL ${what}\n${String(error.stdout ?? '') + String(error.stderr ?? '') || error.message}`,
  );
};

try {
  // 1. Pack and unpack into tmp/node_modules, as npm would install them.
  const modules = join(tmp, 'node_modules');
  const packages = [];
  for (const dir of packageDirs) {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    if (!existsSync(join(dir, 'dist'))) throw new Error(`${pkg.name}: no dist/ — run npm run build first`);
    const [{ filename }] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', tmp], dir));
    const target = join(modules, pkg.name);
    mkdirSync(target, { recursive: true });
    run('tar', ['-xzf', join(tmp, filename), '-C', target, '--strip-components=1'], tmp);
    packages.push(pkg);
  }
  // 2. Third-party dependencies: only what the packages declare, plus the consumer's own dev tools.
  const ours = new Set(packages.map((p) => p.name));
  const needed = new Set(['typescript', '@types/node', '@types/better-sqlite3', '@types/pg']);
  for (const p of packages)
    for (const d of Object.keys({ ...p.dependencies, ...p.peerDependencies })) if (!ours.has(d)) needed.add(d);
  for (const dep of needed) {
    const from = join(root, 'node_modules', dep);
    if (!existsSync(from)) throw new Error(`dependency ${dep} is not installed in the workspace`);
    mkdirSync(dirname(join(modules, dep)), { recursive: true });
    symlinkSync(from, join(modules, dep), 'dir');
  }

  // 3. Consumers.
  const sdkImports = `
import { createAgentHost, defineCapability, type AgentHost, type RunEvent } from '@media-agent/sdk';
import { createModelProvider, type ModelProvider } from '@media-agent/sdk/models';
import { STANDARD_CAPABILITY_IDS } from '@media-agent/sdk/media';
import { MemoryStorage, type RunRecord } from '@media-agent/sdk/storage';
import { SqliteStorage } from '@media-agent/sdk/sqlite';
import { PostgresStorage } from '@media-agent/sdk/postgres';
import { ScriptedProvider } from '@media-agent/sdk/testing';
import { createMcpServer } from '@media-agent/sdk/mcp';
import { createAgentRouter, toNodeListener } from '@media-agent/sdk/http';
import { MarkdownMemoryStore, type MemoryProposalSummary } from '@media-agent/sdk/memory';
import { historyUserKey, type HistoryStore } from '@media-agent/sdk/history';
import { applyFuzzyPatch, FileSkillStore } from '@media-agent/sdk/skills';
import { DEFAULT_DECISION_OPTIONS, DecisionError } from '@media-agent/sdk/decisions';
import { CODE_EXECUTION_DEFAULTS, EXECUTE_CODE_TOOL } from '@media-agent/sdk/code';
import { visibleCapabilities } from '@media-agent/sdk/capabilities';
import { scopeKey, type CreateGrantInput } from '@media-agent/sdk/authorization';
import { DEFAULT_SPENDING_BUDGETS, type SpendingOptions } from '@media-agent/sdk/budgets';
import { DEFAULT_HOST_LIMITS } from '@media-agent/sdk/limits';
import { SecretRedactor } from '@media-agent/sdk/secrets';
import { DEFAULT_LOOP_GUARD_CONFIG, type ToolCallContext, type ToolCallVerdict } from '@media-agent/sdk/loop';
import { DEFAULT_DRAIN_MS, stopOnSignals } from '@media-agent/sdk/operations';
import { HOST_ERROR_CODES, HostOperationError } from '@media-agent/host-adapter-kit';
import { HOST_GENERATION as V2, HostOperationError as V2HostOperationError } from '@media-agent/host-adapter-v2';
import { SIMULATED_GENERATION as SIM_V2 } from '@media-agent/host-adapter-v2/testing';
import { HOST_GENERATION as V3 } from '@media-agent/host-adapter-v3';
import { SIMULATED_GENERATION as SIM_V3 } from '@media-agent/host-adapter-v3/testing';
import { TELEGRAM_CAPABILITIES, TelegramChannel } from '@media-agent/channel-telegram';
import { FakeBotApi } from '@media-agent/channel-telegram/testing';
import type { ChannelPort } from '@media-agent/sdk';
import Type from 'typebox';`;
  const body = `
export const echo = defineCapability({
  id: 'demo.echo', version: 1, title: 'Echo', description: 'Returns its text.', kind: 'read', replay: 'safe',
  input: Type.Object({ text: Type.String() }),
  output: Type.Object({ text: Type.String() }),
  handler: async (input) => ({ text: input.text.toUpperCase() }),
});
// The types are real (not any): each line below must be an error.
// @ts-expect-error the input is typed from its schema
export const bad = defineCapability({ ...echo, handler: async (input) => ({ text: input.text * 2 }) });
// @ts-expect-error a run event's type is a known name
export const badEvent: RunEvent['type'] = 'no_such_event';

export function host(): AgentHost {
  const provider: ModelProvider = process.env.KEY ? createModelProvider({ provider: 'anthropic', apiKey: process.env.KEY }) : new ScriptedProvider();
  const storage = process.env.PG ? new PostgresStorage({ connectionString: process.env.PG, schema: 'media_agent' }) : process.env.DB ? new SqliteStorage({ path: process.env.DB }) : new MemoryStorage();
  const h = createAgentHost({ storage, model: { provider } });
  h.capabilities.register(echo);
  return h;
}
export const facts: { ids: readonly string[]; generations: string[]; last?: RunRecord } = { ids: STANDARD_CAPABILITY_IDS, generations: [V2, SIM_V2, V3, SIM_V3] };
// One set of error classes: the adapter's is the kit's.
export const kitFacts: { codes: number; same: boolean } = { codes: Object.keys(HOST_ERROR_CODES).length, same: V2HostOperationError === HostOperationError };
export const mcp = (h: AgentHost) => createMcpServer(h, { authenticate: () => 'apikey:consumer' });
export const http = (h: AgentHost) => toNodeListener(createAgentRouter(h, { authenticate: () => 'apikey:consumer' }));
// @ts-expect-error an MCP actor is an actor string, typed
export const badMcp = (h: AgentHost) => createMcpServer(h, { authenticate: () => 'nobody' });
export const families = (history: HistoryStore) => createAgentHost({
  memory: { store: new MarkdownMemoryStore('./memory') },
  history: { store: history },
  skills: { store: new FileSkillStore({ dataDir: './skills' }) },
  decisions: { investigateMaxAttempts: DEFAULT_DECISION_OPTIONS.investigateMaxAttempts },
  runs: { code: { timeoutMs: CODE_EXECUTION_DEFAULTS.timeoutMs } },
});
export const familyFacts: { key: string; tool: string; patched: boolean; pending?: MemoryProposalSummary[]; error?: DecisionError } = {
  key: historyUserKey('alice'),
  tool: EXECUTE_CODE_TOOL,
  patched: applyFuzzyPatch({ content: 'a b', oldString: 'a', newString: 'c' }).ok,
};
// The family entries: options and services a host reaches below the root entry.
export const grant: CreateGrantInput = { action: 'download.submit', actor: 'user:admin' };
export const spending: SpendingOptions = { household: { day: { runs: DEFAULT_SPENDING_BUDGETS.household.day.runs } } };
export const refuseDeletes = (ctx: ToolCallContext): ToolCallVerdict | undefined =>
  ctx.call.name.endsWith('.delete') ? { action: 'refuse', code: 'DELETES_OFF', message: 'off' } : undefined;
export const familyEntries = (h: AgentHost) => ({
  visible: visibleCapabilities(h.capabilities.list(), 'user').length,
  key: scopeKey('mcp', 'apikey:home'),
  streams: DEFAULT_HOST_LIMITS.streamsPerActor,
  redacted: new SecretRedactor().add('a-long-secret-value').text('x a-long-secret-value'),
  guard: DEFAULT_LOOP_GUARD_CONFIG.identicalCallsStopAt,
  onSignals: () => stopOnSignals(h, { drainMs: DEFAULT_DRAIN_MS - 2000, exit: false }),
  host: createAgentHost({ runs: { spending, middleware: [{ name: 'no-deletes', beforeToolCall: refuseDeletes }] } }),
});
// @ts-expect-error the skill store's options are typed
export const badSkills = new FileSkillStore({ dataDir: 42 });
// The Telegram channel is a ChannelPort of the SDK it peers with.
export const telegram = (fake: FakeBotApi): ChannelPort => new TelegramChannel({ token: fake.token, apiRoot: fake.apiRoot });
export const telegramLimit: number = TELEGRAM_CAPABILITIES.maxLength;
// @ts-expect-error the channel's options are typed
export const badTelegram = new TelegramChannel({ token: 42 });
`;
  const cjsDynamic = `
import type { AgentHost } from '@media-agent/sdk' with { 'resolution-mode': 'import' };
export async function host(): Promise<AgentHost> {
  const { createAgentHost } = await import('@media-agent/sdk');
  const { MemoryStorage } = await import('@media-agent/sdk/storage');
  const { ScriptedProvider } = await import('@media-agent/sdk/testing');
  await import('@media-agent/host-adapter-v3');
  // @ts-expect-error the types are real (not any)
  createAgentHost({ storage: 42 });
  return createAgentHost({ storage: new MemoryStorage(), model: { provider: new ScriptedProvider() } });
}
`;
  const base = { target: 'ES2022', lib: ['ES2023'], types: ['node'], strict: true, noEmit: true, skipLibCheck: true };
  const variants = [
    {
      name: 'node16-esm',
      type: 'module',
      options: { module: 'node16', moduleResolution: 'node16' },
      source: sdkImports + body,
    },
    {
      name: 'node16-cjs',
      type: 'commonjs',
      options: { module: 'node16', moduleResolution: 'node16' },
      source: cjsDynamic,
    },
    {
      name: 'node20-cjs',
      type: 'commonjs',
      options: { module: 'node20', moduleResolution: 'node16' },
      source: sdkImports + body,
    },
    {
      name: 'bundler',
      type: 'module',
      options: { module: 'esnext', moduleResolution: 'bundler' },
      source: sdkImports + body,
    },
  ];
  const tsc = join(modules, 'typescript', 'bin', 'tsc');
  for (const v of variants) {
    const dir = join(tmp, v.name);
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: `consumer-${v.name}`, private: true, type: v.type }),
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...base, ...v.options }, files: ['host.ts'] }),
    );
    writeFileSync(join(dir, 'host.ts'), v.source);
    try {
      run(process.execPath, [tsc, '-p', 'tsconfig.json'], dir);
      console.log(`check-consumer: ${v.name}: type-checks`);
    } catch (error) {
      fail(`${v.name}: type-check`, error);
    }
  }

  // 4. Load every entry point: ESM import, and require() from CommonJS.
  const specifiers = packages.flatMap((p) =>
    Object.keys(p.exports)
      .filter((s) => s !== './package.json')
      .map((s) => p.name + s.slice(1)),
  );
  const esm = `for (const s of ${JSON.stringify(specifiers)}) { const m = await import(s); if (Object.keys(m).length === 0) throw new Error(s + ' exports nothing'); }`;
  const cjs = `for (const s of ${JSON.stringify(specifiers)}) { const m = require(s); if (Object.keys(m).length === 0) throw new Error(s + ' exports nothing'); }`;
  try {
    run(process.execPath, ['--input-type=module', '-e', esm], join(tmp, 'node16-esm'));
    console.log(`check-consumer: import of ${specifiers.length} entry points: ok`);
  } catch (error) {
    fail('import', error);
  }
  // One copy of each class across entries (a bundle that gave each entry its own copy of shared modules, as in
  // objectstack-ai/objectstack#10031, would break `instanceof MediaAgentError` for errors of a subpath entry).
  const families = [
    ['@media-agent/sdk/storage', 'StorageError'],
    ['@media-agent/sdk/models', 'ProviderError'],
    ['@media-agent/sdk/budgets', 'BudgetSettingsError'],
    ['@media-agent/sdk/limits', 'HostLimitError'],
    ['@media-agent/sdk/decisions', 'DecisionError'],
    ['@media-agent/sdk/memory', 'MemoryError'],
    ['@media-agent/sdk/code', 'CodeExecutionError'],
    ['@media-agent/sdk/capabilities', 'CapabilityTimeoutError'],
    ['@media-agent/host-adapter-kit', 'HostOperationError'],
    ['@media-agent/channel-telegram', 'TelegramOptionsError'],
  ];
  const identity = `const { MediaAgentError } = await import('@media-agent/sdk');
for (const [s, n] of ${JSON.stringify(families)}) {
  const C = (await import(s))[n];
  if (typeof C !== 'function' || !(C.prototype instanceof MediaAgentError)) throw new Error(s + ' ' + n + ' is not a MediaAgentError of the root entry');
}`;
  try {
    run(process.execPath, ['--input-type=module', '-e', identity], join(tmp, 'node16-esm'));
    console.log(
      `check-consumer: error classes of ${families.length} entries share the root entry's MediaAgentError: ok`,
    );
  } catch (error) {
    fail('one class per concept across entries', error);
  }
  try {
    run(process.execPath, ['--no-warnings', '-e', cjs], join(tmp, 'node16-cjs'));
    console.log(`check-consumer: require of ${specifiers.length} entry points: ok`);
  } catch (error) {
    fail('require', error);
  }
} finally {
  if (keep) console.log(`check-consumer: kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}
process.exit(failures ? 1 : 0);
