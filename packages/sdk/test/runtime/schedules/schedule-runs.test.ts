// Scheduled runs end to end with the scripted model on the memory store: a check that found nothing wrong succeeds;
// the loop guard stops a scheduled run (an interactive one with the same script is only warned); a failed or
// budget-stopped scheduled run raises schedule_run_failed; a schedule's stream is read by its owner and
// administrators only; the origin rules of a scheduled run.
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHost, RunEvent } from '../../../src/index';
import { originRules, SCHEDULE_RUN_FAILED_KIND } from '../../../src/runtime/unattended-origin';
import { waitForStatus } from '../harness';
import { HOUR, ROLES, scheduleFixture } from './fixture';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});
const fixture = async (...args: Parameters<typeof scheduleFixture>) => {
  const f = await scheduleFixture(...args);
  hosts.push(f.host);
  return f;
};

const nothingToDo = {
  match: 'still in the library',
  steps: [{ toolCalls: [{ capability: 'inventory.query', input: { title: 'Arrival' } }] }],
  finalText: 'Arrival is in the library; nothing to do.',
};
const looping = {
  match: 'keep asking',
  steps: Array.from({ length: 8 }, () => ({
    toolCalls: [{ capability: 'inventory.query', input: { title: 'Arrival' } }],
  })),
  finalText: 'Done asking.',
};

/** Fires the schedule's first tick and returns the run it started. */
async function fireFirst(f: Awaited<ReturnType<typeof fixture>>, id: string): Promise<string> {
  f.clock.advance(HOUR + 1);
  const [handled] = await f.runner().pollOnce();
  expect(handled).toMatchObject({ scheduleId: id, outcome: 'handled' });
  return handled!.runId!;
}

describe('scheduled runs', () => {
  it('a check that found nothing wrong: the run succeeds and its goal report is a success', async () => {
    const f = await fixture({ scripts: [nothingToDo], workers: true });
    const s = await f.schedule();
    const runId = await fireFirst(f, s.id);
    const run = await waitForStatus(f.host, runId, ['succeeded', 'failed', 'waiting', 'budget_exceeded']);
    expect(run).toMatchObject({ status: 'succeeded', origin: 'schedule', startedBy: 'user:alice' });
    expect((run.report as { status: string }).status).toBe('succeeded');
    expect(run.finalText).toContain('nothing to do');
    expect(await f.storage.decisions.list({ subjectId: runId })).toEqual([]);
  });

  it('the loop guard stops a scheduled run (failed, LOOP_*) and a schedule_run_failed decision is raised', async () => {
    const f = await fixture({ scripts: [looping], workers: true });
    const s = await f.schedule({ goal: 'keep asking about Arrival' });
    const runId = await fireFirst(f, s.id);
    const run = await waitForStatus(f.host, runId, ['succeeded', 'failed', 'waiting', 'budget_exceeded']);
    expect(run.status).toBe('failed');
    expect(run.error?.code).toMatch(/^LOOP_/);
    const decisions = await f.storage.decisions.list({ subjectId: runId });
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({
      kind: SCHEDULE_RUN_FAILED_KIND,
      subjectType: 'run',
      evidence: { scheduleId: s.id, tickAt: s.nextTickAt, status: 'failed', owner: 'user:alice' },
    });
    // The same script in an interactive run is only warned: it does not end failed.
    const interactive = await f.host.startRun({ goal: 'keep asking about Arrival', actor: 'user:alice' });
    const other = await waitForStatus(f.host, interactive.id, ['succeeded', 'failed', 'waiting', 'budget_exceeded']);
    expect(other.status).not.toBe('failed');
    expect(await f.storage.decisions.list({ subjectId: interactive.id })).toEqual([]);
  });

  it('a scheduled run stopped by its run budget raises schedule_run_failed besides agent_budget', async () => {
    const f = await fixture({ scripts: [looping], workers: true });
    const s = await f.schedule({ goal: 'keep asking about Arrival', budgets: { maxToolCalls: 2 } });
    const runId = await fireFirst(f, s.id);
    const run = await waitForStatus(f.host, runId, ['succeeded', 'failed', 'waiting', 'budget_exceeded']);
    expect(run.status).toBe('budget_exceeded');
    const kinds = (await f.storage.decisions.list({ subjectId: runId })).map((d) => d.kind).sort();
    expect(kinds).toEqual(['agent_budget', SCHEDULE_RUN_FAILED_KIND]);
  });

  it('origin schedule: unattended, no learning review, background memory writes, failures raise a decision', () => {
    expect(originRules('schedule')).toEqual({
      attended: false,
      learningReview: false,
      backgroundMemory: true,
      failureDecision: true,
    });
    expect(originRules('interactive')).toMatchObject({ attended: true, learningReview: true, failureDecision: false });
  });
});

describe("a schedule's event stream", () => {
  /** The first event of `actor`'s subscription that matches, then the subscription ends. */
  async function first(host: AgentHost, options: { actor: string; runId?: string }, type: string): Promise<RunEvent> {
    const signal = AbortSignal.timeout(3_000);
    for await (const e of host.events({ ...options, pollMs: 5, signal })) if (e.type === type) return e as RunEvent;
    throw new Error(`no ${type} event`);
  }

  it("its owner and administrators read it (schedule.skipped, decisions); another user is told it doesn't exist", async () => {
    const f = await fixture({ identity: ROLES });
    const mine = await f.schedule();
    const bobs = await f.schedule({ owner: 'user:bob', createdBy: 'user:bob' });
    f.clock.advance(3 * HOUR + 30 * 60_000);
    await f.runner().pollOnce();
    const skipped = await first(f.host, { actor: 'user:alice', runId: mine.id }, 'schedule.skipped');
    expect(skipped).toMatchObject({ runId: mine.id, data: { scheduleId: mine.id, reason: 'missed', ticks: 3 } });
    await expect(first(f.host, { actor: 'user:bob', runId: mine.id }, 'schedule.skipped')).rejects.toMatchObject({
      code: 'RUN_NOT_FOUND',
    });
    expect(await first(f.host, { actor: 'user:root', runId: mine.id }, 'schedule.skipped')).toMatchObject({
      runId: mine.id,
    });
    // Alice's stream of everything she owns carries her schedule's events, not Bob's.
    const seen: string[] = [];
    const signal = AbortSignal.timeout(1_000);
    try {
      for await (const e of f.host.events({ actor: 'user:alice', pollMs: 5, signal }))
        if (e.type === 'schedule.skipped') {
          seen.push(e.data.scheduleId);
          if (seen.length === 1) break;
        }
    } catch {
      // the timeout ends the subscription
    }
    expect(seen).toEqual([mine.id]);
    expect(seen).not.toContain(bobs.id);
  });
});
