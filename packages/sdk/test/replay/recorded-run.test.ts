import { afterEach, describe, expect, it } from 'vitest';
import { readRecordedRun } from '../../src/runtime/replay/recorded-run';
import { MemoryStorage } from '../../src/storage';
import { recordTrajectory, type RecordedHost } from './recorded-host';

let open: RecordedHost | undefined;
afterEach(async () => {
  await open?.host.stop();
  open = undefined;
});

describe('readRecordedRun reads a stored sandbox run as the turns a replay plays', () => {
  it('approval_required: turns with their results, the decided approval, the plan, facts and report', async () => {
    open = await recordTrajectory('approval_required.pass.json', new MemoryStorage());
    const { storage, run, host } = open;
    const before = JSON.stringify(await storage.events.listAfter(0, 10_000));
    const recorded = await readRecordedRun(storage, run.id, { capabilities: host.capabilities });
    // A pure read: nothing was appended.
    expect(JSON.stringify(await storage.events.listAfter(0, 10_000))).toBe(before);
    expect(recorded).toMatchObject({ runId: run.id, goal: run.goal, mode: 'execute', origin: 'interactive' });
    expect(recorded.startedBy).toBe('user:admin');
    expect(recorded.turns.map((t) => t.calls.map((c) => `${c.capability}:${c.status}`))).toEqual([
      ['catalog.lookup:succeeded'],
      ['release.search:succeeded'],
      ['download.plan:succeeded'],
      ['download.submit:denied'],
      [],
      ['download.submit:pending'],
      ['task.inspect:succeeded'],
    ]);
    expect(recorded.turns[4]!.text).toBe("The submit needs a person's approval; waiting for it.");
    expect(recorded.turns[3]!.calls[0]).toMatchObject({
      input: { planId: 'plan_1' },
      error: { code: 'AUTH_NO_AUTHORIZATION' },
    });
    expect(recorded.turns[5]!.calls[0]!.output).toMatchObject({ download: { id: 'dl-1', planId: 'plan_1' } });
    expect(recorded.finalText).toContain('"outcome":"submitted"');
    expect(recorded.approvals).toEqual([
      {
        capabilityId: 'download.submit',
        planId: 'plan_1',
        decision: 'approved',
        decidedBy: 'user:admin',
        afterSteering: 0,
      },
    ]);
    expect(recorded.plans).toEqual([expect.objectContaining({ id: 'plan_1', type: 'download', revision: 1 })]);
    expect(recorded.capabilities.map((c) => [c.id, c.kind, c.registered])).toEqual([
      ['catalog.lookup', 'read', true],
      ['release.search', 'read', true],
      ['download.plan', 'propose', true],
      ['download.submit', 'execute', true],
      ['task.inspect', 'read', true],
    ]);
    const submit = recorded.capabilities.find((c) => c.id === 'download.submit')!;
    expect(submit).toMatchObject({ replay: 'never', hasTarget: true, effect: 'download' });
    expect(submit.input).toMatchObject({ type: 'object', properties: { planId: { type: 'string' } } });
    expect(recorded.report).toEqual({ status: 'succeeded', summary: expect.stringContaining('in the library') });
    expect(recorded.facts?.downloads).toEqual([expect.objectContaining({ id: 'dl-1', status: 'imported' })]);
    expect(recorded.steering).toEqual([]);
    expect(recorded.subagents).toEqual([]);
  });

  it('steering_mid_run: the steering message is placed before the turn it preceded', async () => {
    open = await recordTrajectory('steering_mid_run.pass.json', new MemoryStorage());
    const recorded = await readRecordedRun(open.storage, open.run.id);
    expect(recorded.steering).toEqual([
      { beforeTurn: 2, text: 'Change of plan: I want the 2160p version, not 1080p.', actor: 'user:admin' },
    ]);
    expect(recorded.turns[2]!.calls[0]!.capability).toBe('download.plan');
    // Without a registry the capabilities are named, not described.
    expect(recorded.capabilities[0]).toEqual({
      id: 'catalog.lookup',
      kind: 'unknown',
      input: null,
      output: null,
      registered: false,
    });
  });

  it('subagent_status: each subagent with its delegated goal and turns', async () => {
    open = await recordTrajectory('subagent_status.pass.json', new MemoryStorage());
    const recorded = await readRecordedRun(open.storage, open.run.id, { capabilities: open.host.capabilities });
    expect(recorded.turns[0]!.calls.map((c) => c.capability)).toEqual(['delegate', 'delegate']);
    expect(recorded.subagents.map((s) => [s.goal.slice(0, 14), s.turns.length, s.finalText])).toEqual([
      ['Status check A', 1, 'Dune: Part Two is dl-1, queued.'],
      ['Status check B', 1, 'Oppenheimer is dl-2, queued.'],
    ]);
    expect(recorded.capabilities.map((c) => c.id)).toEqual(['task.inspect']);
  });

  it('an unknown run is RUN_NOT_FOUND; a pruned run RUN_PRUNED', async () => {
    const storage = new MemoryStorage();
    await expect(readRecordedRun(storage, 'run_nope')).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
    open = await recordTrajectory('dedup_existing.pass.json', storage);
    // Retention removes the ended run's conversation (the run row stays, marked pruned).
    const now = open.clock.now() + 1;
    await storage.maintenance.prune('runs', { before: now, now }, 100);
    expect((await storage.runs.get(open.run.id))?.prunedAt).toBeTypeOf('number');
    await expect(readRecordedRun(storage, open.run.id)).rejects.toMatchObject({ code: 'RUN_PRUNED' });
  });
});
