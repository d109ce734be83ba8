// A run asks for an approval: the person sees the impact in real units (approval record, approval_requested event),
// and so does the model (its tool result); the person approves one step of an edited plan; the model's next turn
// reads the edited plan and the step it may run, and the edited step is what executes, once. Real SQLite file,
// the real runtime with the scripted model.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHost } from '../../src/index';
import { listRunEvents, requestedApproval, waitForRunStatus, type FakeScript } from '../../src/testing';
import { ADMIN, shelfHost, shelfSteps } from './fixtures';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
});

const apply = (steps?: string[]) => ({
  capability: 'shelf.apply',
  input: { planId: '{{shelf.plan.planId}}', ...(steps ? { steps } : {}) },
});

/** What the model read: the tool results and user messages of every request it answered. */
const seen: string[] = [];

/** Plan 2160p, apply; when denied wait; once approved, apply the steps the decision names. */
const script: FakeScript = {
  name: 'shelve Dune',
  steps: [
    { text: 'Planning. ', toolCalls: [{ capability: 'shelf.plan', input: { title: 'Dune', quality: '2160p' } }] },
    { text: 'Applying. ', toolCalls: [apply()] },
    {
      text: (ctx) => {
        for (const m of ctx.request.messages)
          if (m.role === 'tool' || m.role === 'user') seen.push(typeof m.content === 'string' ? m.content : '');
        return / was approved\b/.test(ctx.lastUserMessage) ? 'Approved; applying.' : 'Waiting for a person.';
      },
      toolCalls: (ctx) => {
        if (!/ was approved\b/.test(ctx.lastUserMessage)) return [];
        const steps = /execute with steps: (\[[^\]]*\])/.exec(ctx.lastUserMessage)?.[1];
        return [apply(steps ? (JSON.parse(steps) as string[]) : undefined)];
      },
    },
    {
      text: (ctx) => {
        for (const m of ctx.request.messages)
          if (m.role === 'tool' || m.role === 'user') seen.push(typeof m.content === 'string' ? m.content : '');
        return / was approved\b/.test(ctx.lastUserMessage) ? 'Approved; applying.' : 'Done.';
      },
      toolCalls: (ctx) => {
        if (!/ was approved\b/.test(ctx.lastUserMessage)) return [];
        const steps = /execute with steps: (\[[^\]]*\])/.exec(ctx.lastUserMessage)?.[1];
        return [apply(steps ? (JSON.parse(steps) as string[]) : undefined)];
      },
    },
  ],
  finalText: 'Shelved.',
};

describe('a run that needs an approval', () => {
  it('impact shown to the person and the model; approved with an edit and one step; the edited step runs once', async () => {
    const { host, shelf, clock } = await shelfHost({ scripts: [script] });
    hosts.push(host);
    await host.grants.create({ action: 'shelf.plan', actor: ADMIN });
    const run = await host.startRun({ goal: 'Put Dune on the shelf', actor: ADMIN });
    await waitForRunStatus(host, run.id, ['waiting'], { clock, tickMs: 1000 });
    const asked = await requestedApproval(host, run.id);
    const approval = await host.approvals.get(asked.approvalId);
    expect(approval).toMatchObject({
      capabilityId: 'shelf.apply',
      impact: {
        status: 'known',
        summary: 'writes 58.2 GB to /media/movies; creates 2 files; by copy; 412 GB free after; 2 steps; can be undone',
      },
    });
    const events = await listRunEvents(host, run.id);
    const requested = events.find((e) => e.type === 'approval_requested');
    expect(requested?.data).toMatchObject({
      impact: { status: 'known', impact: { writeBytes: 58.2e9, freeBytesAfter: 412e9 } },
      steps: [{ id: 'f1' }, { id: 'f2' }],
    });
    // The model read the impact, and the steps, in the denied call's result.
    expect(
      seen.some((m) => m.includes('writes 58.2 GB to /media/movies') && m.includes('f2: Dune (2021) 2160p extras.mkv')),
    ).toBe(true);

    const edited = { title: 'Dune', quality: '1080p', steps: shelfSteps('1080p') };
    await host.approvals.decide(approval.id, {
      status: 'approved',
      actor: ADMIN,
      payloadHash: approval.payloadHash,
      edits: { payload: edited },
      steps: ['f1'],
    });
    const done = await waitForRunStatus(host, run.id, ['succeeded', 'failed'], { clock, tickMs: 1000 });
    expect(done.status).toBe('succeeded');
    expect(shelf.calls).toEqual([{ capability: 'shelf.apply', payload: edited, steps: ['f1'] }]);
    // Its next turn read the edited plan and the step it may run.
    expect(
      seen.some(
        (m) =>
          m.includes('The approver edited the plan') && m.includes('1080p') && m.includes('execute with steps: ["f1"]'),
      ),
    ).toBe(true);
    const after = await listRunEvents(host, run.id);
    expect(after.find((e) => e.type === 'approval_decided')?.data).toEqual({
      approvalId: approval.id,
      status: 'approved',
      approvedSteps: ['f1'],
      edited: true,
    });
    expect((await host.approvals.get(approval.id)).status).toBe('consumed');
  });
});

describe('a run denied by a rule no approval lifts', () => {
  it("asks no one for an approval (the household's own denial is decided before any approval): the model reads the denial", async () => {
    seen.length = 0;
    const { host, shelf, clock } = await shelfHost({ scripts: [script], household: true });
    hosts.push(host);
    await host.grants.create({ action: 'shelf.plan', actor: ADMIN });
    const run = await host.startRun({ goal: 'Put Dune on the shelf', actor: ADMIN });
    const done = await waitForRunStatus(host, run.id, ['succeeded', 'failed', 'waiting'], { clock, tickMs: 1000 });
    expect(done.status).toBe('failed'); // not waiting for a decision that could change nothing
    const events = await listRunEvents(host, run.id);
    const denied = events.find((e) => e.type === 'tool_call' && (e.data as { phase?: string }).phase === 'denied');
    expect(denied?.data).toMatchObject({ capabilityId: 'shelf.apply', error: { code: 'HOUSEHOLD_NO_2160P' } });
    expect(events.filter((e) => e.type === 'approval_requested')).toEqual([]);
    expect(await host.approvals.list({})).toEqual([]);
    expect(seen.some((m) => m.includes('HOUSEHOLD_NO_2160P') && !m.includes('approvalRequested'))).toBe(true);
    expect(shelf.calls).toEqual([]);
  });
});
