/**
 * Quickstart: a small host app that embeds media-agent's AgentHost.
 *
 * - storage: the embedded SQLite default in ./.media-agent/agent.sqlite;
 * - the media manager: the sandbox world (15 standard capabilities, a downloader whose jobs move
 *   queued → downloading → completed → imported), its state in ./.media-agent/world.json;
 * - the model: the scripted provider (no network, no key), or Anthropic when ANTHROPIC_API_KEY is set,
 *   or an OpenAI-compatible server when OPENAI_API_KEY and OPENAI_BASE_URL are set.
 *
 * Goal: add a film to the library. The console administrator (this app) lets the agent propose
 * downloads under a standing grant; submitting one needs a single-use approval, which the app grants
 * when the run waits for it (after the denial that asked for it). It prints streamed progress in the
 * order things happened and ends with the verified goal report; exit code 0 only when the report is
 * verified `succeeded`. Run it twice: the second run finds the film in the library and submits nothing.
 *
 *   npm run demo                          # add "Dune: Part Two"
 *   npm run demo -- "Blade Runner 2049"   # another title of the sandbox catalog
 *   npm run demo -- --reset               # start from an empty data directory (prints what it removed)
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ConsoleLogger,
  createAgentHost,
  SystemClock,
  type AgentGoalReport,
  type ModelProviderConfig,
  type RunEvent,
  type RunEventPayloads,
} from '@media-agent/sdk';
import { SqliteStorage } from '@media-agent/sdk/sqlite';
import { addToLibraryScript, registerSandboxCapabilities, SandboxWorld } from '@media-agent/sdk/testing';

const args = process.argv.slice(2);
const title = args.find((a) => !a.startsWith('--')) ?? 'Dune: Part Two';
const dataDir = resolve(process.env.MEDIA_AGENT_DATA_DIR ?? '.media-agent');
if (args.includes('--reset')) {
  const removed = existsSync(dataDir) ? readdirSync(dataDir) : [];
  rmSync(dataDir, { recursive: true, force: true });
  console.log(
    removed.length > 0
      ? `reset: removed ${dataDir} (${removed.join(', ')}): runs, grants, ledger, audit and the sandbox world start empty`
      : `reset: nothing to remove at ${dataDir}`,
  );
}
mkdirSync(dataDir, { recursive: true });

/** The model: a real provider when its key is in the environment, else the scripted one. */
function modelConfig(): { provider: ModelProviderConfig; model: string; label: string } {
  if (process.env.ANTHROPIC_API_KEY) {
    const model = process.env.ANTHROPIC_MODEL ?? 'claude-sonnet-4-5';
    return {
      provider: {
        provider: 'anthropic',
        apiKey: process.env.ANTHROPIC_API_KEY,
        ...(process.env.ANTHROPIC_BASE_URL ? { baseUrl: process.env.ANTHROPIC_BASE_URL } : {}),
      },
      model,
      label: `Anthropic ${model}`,
    };
  }
  if (process.env.OPENAI_API_KEY && process.env.OPENAI_BASE_URL) {
    const model = process.env.OPENAI_MODEL ?? 'gpt-4o-mini';
    return {
      provider: {
        provider: 'openai-compatible',
        apiKey: process.env.OPENAI_API_KEY,
        baseUrl: process.env.OPENAI_BASE_URL,
      },
      model,
      label: `${process.env.OPENAI_BASE_URL} ${model}`,
    };
  }
  return {
    provider: { provider: 'scripted', scripts: addToLibraryScript(title), chunkSize: 24 },
    model: 'scripted',
    label: 'scripted model (no network)',
  };
}

const clock = new SystemClock();
const world = new SandboxWorld({
  clock,
  filePath: join(dataDir, 'world.json'),
  durations: { queuedMs: 500, downloadMs: 2_000, importMs: 500 },
});
const model = modelConfig();
const host = createAgentHost({
  storage: new SqliteStorage({ path: join(dataDir, 'agent.sqlite') }),
  clock,
  logger: new ConsoleLogger('warn'),
  model: { provider: model.provider, model: model.model },
  goalFacts: world,
  runs: { goalPollSec: 1, leaseMs: 10_000, pollMs: 50, budgets: { maxToolCalls: 30, maxDurationSec: 600 } },
});
registerSandboxCapabilities(host, world);
await host.start();

const admin = 'user:admin' as const;
// Authority for this run only: the grant expires shortly after the run's longest duration and is
// revoked when the run ends, so nothing stands after the demo.
const grant = await host.grants.create({
  action: 'download.plan',
  actor: admin,
  reason: 'the agent may propose downloads during this demo run',
  expiresAt: clock.now() + 660_000,
  budget: { maxInvocationsPerDay: 20 },
});

console.log(`media-agent quickstart — model: ${model.label}; data: ${dataDir}`);
const run = await host.startRun({ goal: `Add ${title} to the library`, actor: admin });
console.log(`run ${run.id} ${run.status}: ${run.goal}\n`);

let midLine = false;
const line = (text: string) => {
  if (midLine) process.stdout.write('\n');
  midLine = false;
  console.log(text);
};
let report: AgentGoalReport | undefined;
const asked: Array<RunEventPayloads['approval_requested']> = [];
/** Approves each plan the run asked for, echoing the plan's payload hash (what an approval binds to). */
const decide = async () => {
  for (const request of asked.splice(0)) {
    const plan = await host.plans.get(request.planId);
    await host.approvals.decide(request.approvalId, {
      status: 'approved',
      actor: admin,
      payloadHash: plan.payloadHash,
    });
    line(`  ✓ approval ${request.approvalId} granted by ${admin} (hash ${plan.payloadHash.slice(0, 12)}…)`);
  }
};
const show = async (e: RunEvent) => {
  switch (e.type) {
    case 'run_status':
      line(`· run ${e.data.status} (${e.data.step})${e.data.reason ? ` — ${e.data.reason}` : ''}`);
      // The run waits for a person: the console administrator reviews what it asked for and approves.
      if (e.data.status === 'waiting') await decide();
      break;
    case 'text_delta':
      process.stdout.write(midLine ? e.data.text : `  ${e.data.text}`);
      midLine = true;
      break;
    case 'tool_call':
      if (e.data.phase === 'started') line(`  → ${e.data.capabilityId}`);
      else line(`  ← ${e.data.capabilityId}: ${e.data.phase}${e.data.error ? ` (${e.data.error.code})` : ''}`);
      break;
    case 'checklist_updated':
      if (e.data.checklist)
        line(`  checklist: ${e.data.checklist.steps.map((s) => `${s.title} [${s.status}]`).join(' → ')}`);
      break;
    case 'approval_requested':
      line(`  ? approval asked for ${e.data.planType} plan ${e.data.planId} (${e.data.capabilityId})`);
      asked.push(e.data);
      break;
    case 'report':
      report = e.data.report;
      break;
    case 'budget_exceeded':
      line(`  ! budget ${e.data.budget} exceeded (limit ${e.data.limit})`);
      break;
    case 'warning':
      line(`  ! ${e.data.code}: ${e.data.message}`);
      break;
    case 'input_requested':
      line(`  ? ${e.data.question} (answer with host.appendToInbox)`);
      break;
    default:
      break;
  }
};

// The run's events, in order, until it ends (the iteration ends by itself after the run's final status).
for await (const e of host.events({ runId: run.id, signal: AbortSignal.timeout(120_000), pollMs: 200 })) await show(e);

const final = await host.getRun(run.id);
report ??= final.report ?? undefined;
line('');
if (report) {
  console.log(`Goal report (verified from the media manager's records): ${report.status.toUpperCase()}`);
  console.log(`  ${report.summary}`);
  for (const d of report.facts.downloads) console.log(`  download ${d.id}: ${d.title} — ${d.status}`);
  for (const o of report.facts.organizes)
    console.log(`  organized ${o.mediaEntityId} → ${o.libraryPath ?? '?'} (${o.status})`);
  if (report.modelText) console.log(`  model said (unverified): ${report.modelText.text}`);
} else {
  console.log(`no report: the run is ${final.run.status}`);
}
console.log(
  `\nlibrary now: ${world
    .library()
    .map((l) => world.titleOf(l.mediaEntityId))
    .join(', ')}; downloader jobs: ${world.downloads().length}`,
);
await host.grants.update(grant.id, { actor: admin, status: 'revoked' });
await host.stop();
process.exit(report?.status === 'succeeded' && report.verified ? 0 : 1);
