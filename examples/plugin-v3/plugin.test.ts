import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger, ManualClock, type AgentHost } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import {
  listRunEvents,
  ScriptedProvider,
  waitForRunStatus,
  type FakeScript,
  type ScriptContext,
  type ScriptStep,
} from '@media-agent/sdk/testing';
import { createV3AgentHost, type V3PrincipalRole } from '@media-agent/host-adapter-v3';
import { MoviePilotV3Simulator } from '@media-agent/host-adapter-v3/testing';
import { FOLLOW, PLAN_FOLLOW, watchlistPlugin } from './plugin';

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

/** Status of the latest follow result in the conversation, and whether a person approved since. */
function followState(ctx: ScriptContext): { status: string | undefined; approvedSince: boolean } {
  const messages = ctx.request.messages;
  const index = messages.findLastIndex((m) => m.role === 'tool' && m.name === FOLLOW);
  if (index < 0) return { status: undefined, approvedSince: false };
  const content = messages[index]!.content;
  const status = (JSON.parse(typeof content === 'string' ? content : '{}') as { status?: string }).status;
  return {
    status,
    approvedSince: messages
      .slice(index + 1)
      .some((m) => m.role === 'user' && typeof m.content === 'string' && / was approved\b/.test(m.content)),
  };
}

const planned = (ctx: ScriptContext) =>
  (ctx.results[PLAN_FOLLOW] as { plan: { id: string } | null } | undefined)?.plan ?? null;

/** After a follow: wait for the approval the runtime asks a person for, follow again once approved, else stop. */
const afterFollow: ScriptStep = {
  text: (ctx) => {
    const { status, approvedSince } = followState(ctx);
    if (status === 'denied' && !approvedSince) return 'Waiting for a person to approve the follow.';
    return status === 'denied' ? 'Approved; following it.' : `The follow ${status ?? 'did not run'}.`;
  },
  toolCalls: (ctx) => {
    const { status, approvedSince } = followState(ctx);
    const plan = planned(ctx);
    return plan && status === 'denied' && approvedSince ? [{ capability: FOLLOW, input: { planId: plan.id } }] : [];
  },
};

const script: FakeScript = {
  match: 'Follow Dune: Part Two',
  steps: [
    {
      text: 'Looking it up. ',
      toolCalls: [{ capability: 'catalog.lookup', input: { query: 'Dune: Part Two', limit: 1 } }],
    },
    {
      text: 'Checking the watchlist. ',
      toolCalls: [
        {
          capability: PLAN_FOLLOW,
          input: {
            mediaSource: '{{catalog.lookup.items.0.mediaSource}}',
            mediaId: '{{catalog.lookup.items.0.mediaId}}',
            title: 'Dune: Part Two',
          },
        },
      ],
    },
    {
      text: (ctx) => (planned(ctx) ? 'Following it. ' : 'It is already followed.'),
      toolCalls: (ctx) => {
        const plan = planned(ctx);
        return plan ? [{ capability: FOLLOW, input: { planId: plan.id } }] : [];
      },
    },
    afterFollow,
    afterFollow,
  ],
  finalText: 'Followed.',
};

/** The simulator, a V3 host with the plugin registered, and a scripted model: look the title up, plan the follow, follow it. */
async function setup(principalRole?: V3PrincipalRole) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const sim = new MoviePilotV3Simulator({ clock });
  await sim.start();
  open.push(() => sim.close());
  const v3 = createV3AgentHost({
    url: sim.url,
    auth: { apiKey: sim.apiKey },
    storage: new MemoryStorage(),
    clock,
    logger: new ConsoleLogger('silent'),
    model: { provider: new ScriptedProvider({ scripts: [script] }) },
    runs: { pollMs: 5, goalPollSec: 1 },
    ...(principalRole ? { principalRole } : {}),
  });
  for (const capability of watchlistPlugin(v3.host.plans)) v3.host.capabilities.register(capability);
  open.push(() => v3.close());
  await v3.host.start();
  return { sim, clock, host: v3.host };
}

const ENDED = ['succeeded', 'failed', 'cancelled', 'budget_exceeded'] as const;
const finish = async (host: AgentHost, runId: string, clock: ManualClock) => {
  await waitForRunStatus(host, runId, ENDED, { clock, tickMs: 1000 });
  return listRunEvents(host, runId);
};

const phases = (events: Array<{ type: string; data: unknown }>, id: string) =>
  events
    .filter(
      (e) =>
        e.type === 'tool_call' &&
        (e.data as { capabilityId: string }).capabilityId === id &&
        (e.data as { phase: string }).phase !== 'started',
    )
    .map((e) => (e.data as { phase: string }).phase);

describe('plugin-v3: plugin capabilities on the scoped V3 client', () => {
  it('a standing grant lets the agent plan but not follow (subscription.add needs a person, as mp.subscription.add does); once a person approves the plan, one subscription with the paired identity; a second run finds it and adds nothing', async () => {
    const { host, sim, clock } = await setup();
    await host.grants.create({
      action: 'plugin.Watchlist.*',
      actor: 'user:admin',
      reason: 'the agent may use the watchlist plugin',
    });
    const run = await host.startRun({ goal: 'Follow Dune: Part Two', actor: 'user:admin' });
    await waitForRunStatus(host, run.id, ['waiting']);
    const events = await listRunEvents(host, run.id);
    expect(phases(events, FOLLOW)).toEqual(['denied']);
    expect(sim.requestsFor('subscription.add')).toHaveLength(0);
    const asked = events.find((e) => e.type === 'approval_requested')!.data as {
      approvalId: string;
      planId: string;
      payloadHash: string;
    };
    await host.approvals.decide(asked.approvalId, {
      status: 'approved',
      actor: 'user:admin',
      payloadHash: asked.payloadHash,
    });

    const first = await finish(host, run.id, clock);
    expect(phases(first, FOLLOW)).toEqual(['denied', 'succeeded']);
    expect(sim.subscriptions()).toEqual([
      expect.objectContaining({ name: 'Dune: Part Two', media_source: 'themoviedb', media_id: '693134' }),
    ]);

    const second = await finish(
      host,
      (await host.startRun({ goal: 'Follow Dune: Part Two', actor: 'user:admin' })).id,
      clock,
    );
    expect(phases(second, PLAN_FOLLOW)).toEqual(['succeeded']);
    expect(phases(second, FOLLOW)).toEqual([]);
    expect(sim.subscriptions()).toHaveLength(1);
    expect(sim.requestsFor('subscription.add')).toHaveLength(1);
    const again = await host.invoke(FOLLOW, { planId: asked.planId }, { actor: 'user:admin' }); // a person re-runs the plan: looks first, adds nothing
    expect(again).toMatchObject({ status: 'succeeded', output: { created: false } });
    expect(sim.requestsFor('subscription.add')).toHaveLength(1);
    sim.assertNoViolations();
  });

  it('a person who is not a host superuser is refused the follow, as mp.subscription.add refuses them: denied, nothing sent', async () => {
    const { host, sim } = await setup((p) => (p === 'user:admin' ? 'superuser' : 'user'));
    const plan = await host.invoke(
      PLAN_FOLLOW,
      { mediaSource: 'tmdb', mediaId: '693134', title: 'Dune: Part Two' },
      { actor: 'user:bob' },
    );
    expect(plan.status).toBe('succeeded'); // subscription.find is for every user
    const planId = (plan.output as { plan: { id: string } }).plan.id;
    const r = await host.invoke(FOLLOW, { planId }, { actor: 'user:bob' });
    expect(r).toMatchObject({ status: 'denied', error: { code: 'AUTH_HOST_SUPERUSER_REQUIRED' } });
    expect(sim.requestsFor('subscription.add')).toHaveLength(0);
    expect(sim.subscriptions()).toEqual([]);
    sim.assertNoViolations();
  });

  it('without a grant the agent is denied and no request reaches MoviePilot', async () => {
    const { host, sim, clock } = await setup();
    const run = await finish(
      host,
      (await host.startRun({ goal: 'Follow Dune: Part Two', actor: 'user:admin' })).id,
      clock,
    );
    expect(phases(run, PLAN_FOLLOW)).toEqual(['denied']);
    expect(sim.requestsFor('subscription.find')).toHaveLength(0);
    expect(sim.requestsFor('subscription.add')).toHaveLength(0);
    sim.assertNoViolations();
  });
});
