/**
 * Quickstart: a small host app that embeds media-agent with the embedded SQLite store in
 * ./.media-agent/ and walks one download through the single invocation path:
 *
 *   1. an agent reads the library (read: no authorization record needed);
 *   2. the agent proposes a download plan under a standing grant for `download.plan`;
 *   3. the agent tries to submit it: denied, it has no approval;
 *   4. the console administrator approves the plan, echoing its payload hash;
 *   5. the agent submits with the approval: succeeded, the approval is consumed;
 *   6. the same submit again returns the recorded result (the handler is not called).
 *
 * State (SQLite file and the toy downloader's queue) lives in ./.media-agent/, so a second run
 * finds the plan already submitted and submits nothing. Exit code 0 on success.
 *
 *   npm run demo              # run it
 *   npm run demo -- --reset   # start from an empty data directory
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Type from 'typebox';
import { ConsoleLogger, createAgentHost, defineCapability, type InvocationResult } from '@media-agent/sdk';
import { SqliteStorage } from '@media-agent/sdk/sqlite';

const dataDir = resolve(process.env.MEDIA_AGENT_DATA_DIR ?? '.media-agent');
if (process.argv.includes('--reset')) rmSync(dataDir, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true });

// --- the host's own world: a library and a downloader queue kept in a JSON file -------------
interface World {
  library: string[];
  downloads: Array<{ id: string; release: string; idempotencyKey: string }>;
}
const worldFile = join(dataDir, 'world.json');
const loadWorld = (): World => (existsSync(worldFile) ? (JSON.parse(readFileSync(worldFile, 'utf8')) as World) : { library: ['Arrival (2016)'], downloads: [] });
const saveWorld = (w: World) => writeFileSync(worldFile, JSON.stringify(w, null, 2));

// --- the agent host -------------------------------------------------------------------------
const host = createAgentHost({ storage: new SqliteStorage({ path: join(dataDir, 'agent.sqlite') }), logger: new ConsoleLogger('warn') });
const started = await host.start();
if (started.recovered.length > 0) console.log(`recovered ${started.recovered.length} interrupted call(s) as unknown`);

host.capabilities.register(
  defineCapability({
    id: 'inventory.query',
    version: 1,
    title: 'Query the library',
    description: 'Lists titles in the media library matching a query.',
    kind: 'read',
    replay: 'safe',
    aliases: ['库存'],
    input: Type.Object({ query: Type.String() }),
    output: Type.Object({ titles: Type.Array(Type.String()) }),
    handler: async ({ query }) => ({ titles: loadWorld().library.filter((t) => t.toLowerCase().includes(query.toLowerCase())) }),
  }),
);
host.capabilities.register(
  defineCapability({
    id: 'download.plan',
    version: 1,
    title: 'Plan a download',
    description: 'Freezes a download plan for a release; approvals bind to its payload hash.',
    kind: 'propose',
    replay: 'reconcile',
    policy: 'acquisition',
    input: Type.Object({ release: Type.String(), mediaEntityId: Type.String(), sizeBytes: Type.Integer({ minimum: 0 }) }),
    output: Type.Object({ planId: Type.String(), payloadHash: Type.String() }),
    target: (input) => ({ mediaEntityId: input.mediaEntityId, mediaKind: 'movie' }),
    handler: async (input, ctx) => {
      const plan = await host.plans.create({ type: 'download', payload: { release: input.release }, actor: ctx.actor, mediaEntityId: input.mediaEntityId, mediaKind: 'movie', bytes: input.sizeBytes });
      return { planId: plan.id, payloadHash: plan.payloadHash };
    },
  }),
);
host.capabilities.register(
  defineCapability({
    id: 'download.submit',
    version: 1,
    title: 'Submit a planned download',
    description: 'Sends a planned release to the downloader.',
    kind: 'execute',
    replay: 'never',
    policy: 'acquisition',
    input: Type.Object({ planId: Type.String() }),
    output: Type.Object({ downloadId: Type.String() }),
    target: (input) => ({ planType: 'download', planId: input.planId }),
    handler: async (_input, ctx) => {
      const world = loadWorld();
      const release = String((ctx.plan?.payload as { release?: string } | null)?.release);
      const id = `dl-${world.downloads.length + 1}`;
      world.downloads.push({ id, release, idempotencyKey: ctx.idempotencyKey! });
      saveWorld(world);
      return { downloadId: id };
    },
  }),
);

// --- the walk-through ----------------------------------------------------------------------
const show = (step: string, r: InvocationResult) =>
  console.log(`${step.padEnd(44)} ${r.status.padEnd(9)} ${r.error ? `${r.error.code}: ${r.error.message}` : JSON.stringify(r.output)}${r.replayed ? '  (recorded result, handler not called)' : ''}`);

const admin = 'user:admin' as const;
const agent = { actor: 'agent:quickstart' as const, taskId: 'quickstart-dune-2' };

show('1. agent reads the library', await host.invoke('inventory.query', { query: 'dune' }, agent));

if ((await host.grants.list({ status: 'active' })).length === 0) {
  const grant = await host.grants.create({ action: 'download.plan', actor: admin, reason: 'let the agent propose downloads', budget: { maxInvocationsPerDay: 20 } });
  console.log(`   admin created grant ${grant.id} for download.plan (20 per day)`);
}
const planned = await host.invoke('download.plan', { release: 'Dune.Part.Two.2024.2160p.WEB-DL', mediaEntityId: 'tmdb:693134', sizeBytes: 18_000_000_000 }, agent);
show('2. agent proposes a download plan', planned);
if (planned.status !== 'succeeded') process.exit(1);
const { planId, payloadHash } = planned.output as { planId: string; payloadHash: string };

const firstTry = await host.invoke('download.submit', { planId }, agent);
show('3. agent submits without approval', firstTry);

let result = firstTry;
if (firstTry.status === 'denied') {
  const approval = await host.approvals.request({ planType: 'download', planId, actor: agent.actor, reason: 'add Dune: Part Two to the library' });
  await host.approvals.decide(approval.id, { status: 'approved', actor: admin, payloadHash });
  console.log(`4. admin approved ${approval.id} for plan ${planId} (hash ${payloadHash.slice(0, 12)}…)`);
  result = await host.invoke('download.submit', { planId }, { ...agent, approvalId: approval.id });
  show('5. agent submits with the approval', result);
  console.log(`   approval is now ${(await host.approvals.get(approval.id)).status}`);
}
show('6. the same submit again', await host.invoke('download.submit', { planId }, agent));

const world = loadWorld();
console.log(`\ndownloader queue (${world.downloads.length} job${world.downloads.length === 1 ? '' : 's'}): ${world.downloads.map((d) => `${d.id} ${d.release}`).join(', ')}`);
const audit = await host.audit({ limit: 1000 });
console.log(`audit trail: ${audit.length} rows (${audit.filter((a) => a.action === 'capability.denied').length} denied); data in ${dataDir}`);
await host.stop();
process.exit(result.status === 'succeeded' && world.downloads.length === 1 ? 0 : 1);
