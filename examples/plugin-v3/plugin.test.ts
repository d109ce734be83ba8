import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, ManualClock, MemoryStorage, type AgentHost } from '@media-agent/sdk';
import { ScriptedProvider } from '@media-agent/sdk/testing';
import { createV3AgentHost } from '@media-agent/host-adapter-v3';
import { MoviePilotV3Simulator } from '@media-agent/host-adapter-v3/testing';
import { FOLLOW, watchlistFollow } from './plugin';

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

/** The simulator, a V3 host with the plugin capability registered, and a scripted model: look the title up, then follow it. */
async function setup() {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const sim = new MoviePilotV3Simulator({ clock });
  await sim.start();
  open.push(() => sim.close());
  const script = {
    match: 'Follow Dune: Part Two',
    steps: [
      { text: 'Looking it up. ', toolCalls: [{ capability: 'catalog.lookup', input: { query: 'Dune: Part Two', limit: 1 } }] },
      { text: 'Following it. ', toolCalls: [{ capability: FOLLOW, input: { mediaSource: '{{catalog.lookup.items.0.mediaSource}}', mediaId: '{{catalog.lookup.items.0.mediaId}}', title: 'Dune: Part Two' } }] },
    ],
    finalText: 'Followed.',
  };
  const v3 = createV3AgentHost({ url: sim.url, auth: { apiKey: sim.apiKey }, storage: new MemoryStorage(), clock, logger: new ConsoleLogger('silent'), model: { provider: new ScriptedProvider({ scripts: [script] }) }, runs: { pollMs: 5, goalPollSec: 1 } });
  v3.host.capabilities.register(watchlistFollow(v3.client));
  open.push(() => v3.close());
  await v3.host.start();
  return { sim, clock, host: v3.host };
}

async function finish(host: AgentHost, runId: string, clock: ManualClock) {
  for (;;) {
    const detail = await host.getRun(runId, { limit: 1000 });
    if (['succeeded', 'failed', 'cancelled', 'budget_exceeded'].includes(detail.run.status)) return detail;
    clock.advance(1000);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const calls = (events: Array<{ type: string; data: unknown }>) =>
  events.filter((e) => e.type === 'tool_call' && (e.data as { capabilityId: string }).capabilityId === FOLLOW && (e.data as { phase: string }).phase !== 'started').map((e) => e.data as { phase: string });

describe('plugin-v3: a capability written against the V3 client', () => {
  it('with a standing grant the agent follows the title: one subscription with the paired identity; a second run finds it and adds nothing', async () => {
    const { host, sim, clock } = await setup();
    await host.grants.create({ action: FOLLOW, actor: 'user:admin', reason: 'the agent may follow titles' });
    const first = await finish(host, (await host.startRun({ goal: 'Follow Dune: Part Two', actor: 'user:admin' })).id, clock);
    expect(calls(first.events).map((c) => c.phase)).toEqual(['succeeded']);
    expect(sim.subscriptions()).toEqual([expect.objectContaining({ name: 'Dune: Part Two', media_source: 'themoviedb', media_id: '693134' })]);

    const second = await finish(host, (await host.startRun({ goal: 'Follow Dune: Part Two', actor: 'user:admin' })).id, clock);
    expect(calls(second.events).map((c) => c.phase)).toEqual(['succeeded']);
    expect(sim.subscriptions()).toHaveLength(1);
    expect(sim.requestsFor('subscription.add')).toHaveLength(1);
    expect(sim.requestsFor('subscription.find')).toHaveLength(2);
    const direct = await host.invoke(FOLLOW, { mediaSource: 'tmdb', mediaId: '693134', title: 'Dune: Part Two' }, { actor: 'user:admin' });
    expect(direct).toMatchObject({ status: 'succeeded', output: { created: false } });
    sim.assertNoViolations();
  });

  it('without a grant the agent is denied and no request reaches MoviePilot', async () => {
    const { host, sim, clock } = await setup();
    const run = await finish(host, (await host.startRun({ goal: 'Follow Dune: Part Two', actor: 'user:admin' })).id, clock);
    expect(calls(run.events).map((c) => c.phase)).toEqual(['denied']);
    expect(sim.requestsFor('subscription.find')).toHaveLength(0);
    expect(sim.requestsFor('subscription.add')).toHaveLength(0);
    sim.assertNoViolations();
  });
});
