import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, ManualClock, type AgentHost } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import { ScriptedProvider } from '@media-agent/sdk/testing';
import { MoviePilotV2Simulator } from '@media-agent/host-adapter-v2/testing';
import { createHostWithLogsClean, LOGS_CLEAN, LOGS_TIDY } from './plugin';

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

/** The simulator, the V2 host with the declaration, and a scripted model that reads the plugin status, then cleans. */
async function setup() {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const sim = new MoviePilotV2Simulator({ clock });
  await sim.start();
  open.push(() => sim.stop());
  const script = {
    match: 'clean the logs',
    steps: [
      { text: 'Checking the plugin. ', toolCalls: [{ capability: 'plugin.LogsClean.status', input: {} }] },
      { text: 'Cleaning. ', toolCalls: [{ capability: LOGS_CLEAN, input: {} }] },
    ],
    finalText: 'Logs cleaned.',
  };
  const v2 = await createHostWithLogsClean({
    url: sim.url,
    credentials: { apiKey: sim.apiToken },
    storage: new MemoryStorage(),
    clock,
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [script] }) },
    runs: { pollMs: 5, goalPollSec: 1 },
  });
  open.push(() => v2.close());
  await v2.host.start();
  return { sim, clock, host: v2.host, v2 };
}

async function finish(host: AgentHost, runId: string, clock: ManualClock) {
  for (;;) {
    const detail = await host.getRun(runId, { limit: 1000 });
    if (['succeeded', 'failed', 'cancelled', 'budget_exceeded'].includes(detail.run.status)) return detail;
    clock.advance(1000);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const phases = (events: Array<{ type: string; data: unknown }>, id: string) =>
  events
    .filter((e) => e.type === 'tool_call' && (e.data as { capabilityId: string }).capabilityId === id)
    .map((e) => (e.data as { phase: string }).phase);

describe('plugin-v2: a MoviePilot 2.x plugin route as a capability, with the author’s declaration', () => {
  it('the declaration overrides kind, schemas and replay of the discovered route', async () => {
    const { host, v2 } = await setup();
    expect(v2.pluginCapabilities).toContain(LOGS_CLEAN);
    expect(host.capabilities.get(LOGS_CLEAN)).toMatchObject({
      kind: 'execute',
      replay: 'reconcile',
      title: 'Clean MoviePilot logs now',
    });
    expect(host.capabilities.get('plugin.LogsClean.status')).toMatchObject({ kind: 'read', replay: 'safe' }); // undeclared: inferred
  });

  it('an agent run with a standing grant reads the status, cleans once through the host, and the output is the declared shape', async () => {
    const { host, sim, clock } = await setup();
    await host.grants.create({ action: LOGS_CLEAN, actor: 'user:admin', reason: 'the agent may clean logs' });
    const run = await host.startRun({ goal: 'Please clean the logs', actor: 'user:admin' });
    const detail = await finish(host, run.id, clock);
    expect(phases(detail.events, LOGS_CLEAN)).toEqual(['started', 'succeeded']);
    expect(sim.pluginCalls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /api/v1/plugin/LogsClean/status',
      'POST /api/v1/plugin/LogsClean/clean',
    ]);
    const audit = await host.audit({ capabilityId: LOGS_CLEAN });
    expect(audit.some((a) => a.outcome === 'succeeded' && a.grantId)).toBe(true);
    const direct = await host.invoke(LOGS_CLEAN, {}, { actor: 'user:admin' });
    expect(direct).toMatchObject({ status: 'succeeded', output: { cleaned: true, host: expect.anything() } });
    sim.assertNoViolations();
  });

  it('a plugin capability on the scoped client sends only its declared routes: an agent with a grant reads the status and cleans; a non-superuser person may too (both routes accept any signed-in user)', async () => {
    const { host, sim, v2 } = await setup();
    expect(v2.pluginCapabilities).toContain(LOGS_TIDY);
    await host.grants.create({ action: LOGS_TIDY, actor: 'user:admin', reason: 'the agent may tidy logs' });
    const byAgent = await host.invoke(LOGS_TIDY, {}, { actor: 'agent:maintenance' });
    expect(byAgent).toMatchObject({ status: 'succeeded', output: { cleaned: true } });
    expect(sim.pluginCalls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /api/v1/plugin/LogsClean/status',
      'POST /api/v1/plugin/LogsClean/clean',
    ]);
    expect(await host.invoke(LOGS_TIDY, {}, { actor: 'user:guest' })).toMatchObject({ status: 'succeeded' });
    sim.assertNoViolations();
  });

  it('without a grant the agent is denied before any request reaches the plugin', async () => {
    const { host, sim, clock } = await setup();
    const run = await host.startRun({ goal: 'Please clean the logs', actor: 'user:admin' });
    const detail = await finish(host, run.id, clock);
    expect(phases(detail.events, LOGS_CLEAN)).toEqual(['started', 'denied']);
    expect(sim.pluginCalls.map((c) => c.method)).toEqual(['GET']);
    sim.assertNoViolations();
  });
});
