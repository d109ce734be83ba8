import { describe, expect, it } from 'vitest';
import { compareReplay, type RecordedCall, type RecordedRun } from '../../src';

type Part = Pick<RecordedRun, 'turns' | 'subagents' | 'finalText' | 'report'>;
const call = (capability: string, status: RecordedCall['status'], extra: Partial<RecordedCall> = {}): RecordedCall => ({
  capability,
  input: { id: 1 },
  status,
  ...extra,
});
const base = (): Part => ({
  turns: [
    { calls: [call('catalog.lookup', 'succeeded')] },
    { calls: [call('download.submit', 'pending')] },
    { text: 'waiting', calls: [] },
  ],
  subagents: [],
  finalText: 'Done.',
  report: { status: 'succeeded', summary: 'in the library' },
});
const same = (p: Part) => compareReplay(p, { replayed: structuredClone(p), missing: [] });

describe('compareReplay (pure): stored vs replayed', () => {
  it('the same run: no divergence', () => {
    expect(same(base())).toEqual([]);
  });

  it('allowed then, denied now: a verdict divergence naming turn, call and capability', () => {
    const replayed = base();
    replayed.turns[1]!.calls[0] = call('download.submit', 'denied', {
      error: { code: 'AUTH_NO_AUTHORIZATION', message: 'x' },
    });
    expect(compareReplay(base(), { replayed, missing: [] })).toEqual([
      {
        kind: 'verdict',
        turn: 1,
        callIndex: 0,
        capabilityId: 'download.submit',
        stored: { status: 'pending' },
        replayed: { status: 'denied', code: 'AUTH_NO_AUTHORIZATION' },
        message: 'turn 1 call 0: download.submit was allowed as stored, denied (AUTH_NO_AUTHORIZATION) in the replay',
      },
    ]);
  });

  it('denied with another code, or blocked instead of denied: verdict', () => {
    const stored = base();
    stored.turns[1]!.calls[0] = call('download.submit', 'denied', {
      error: { code: 'AUTH_NO_AUTHORIZATION', message: '' },
    });
    const replayed = structuredClone(stored);
    replayed.turns[1]!.calls[0]!.error!.code = 'AUTH_ADMIN_ONLY';
    expect(compareReplay(stored, { replayed, missing: [] }).map((d) => d.kind)).toEqual(['verdict']);
    replayed.turns[1]!.calls[0] = call('download.submit', 'blocked', {
      error: { code: 'LOOP_IDENTICAL_CALLS', message: '' },
    });
    expect(compareReplay(stored, { replayed, missing: [] })[0]).toMatchObject({
      kind: 'verdict',
      replayed: { status: 'blocked' },
    });
  });

  it('another input, another capability, another outcome: tool_call', () => {
    const replayed = base();
    replayed.turns[0]!.calls[0] = { ...call('catalog.lookup', 'succeeded'), input: { id: 2 } };
    replayed.turns[1]!.calls[0] = call('download.submit', 'failed', {
      error: { code: 'DOWNLOADER_DOWN', message: '' },
    });
    const d = compareReplay(base(), { replayed, missing: [] });
    expect(d.map((x) => [x.kind, x.turn, x.callIndex])).toEqual([
      ['tool_call', 0, 0],
      ['tool_call', 1, 0],
    ]);
    expect(d[0]!.message).toContain('another input');
    expect(d[1]!.message).toBe(
      'turn 1 call 0: download.submit ended pending as stored, failed (DOWNLOADER_DOWN) in the replay',
    );
  });

  it('an unknown outcome is compared by status, not by its code', () => {
    const stored = base();
    stored.turns[1]!.calls[0] = call('download.submit', 'unknown', {
      error: { code: 'CAPABILITY_TIMEOUT', message: '' },
    });
    const replayed = structuredClone(stored);
    replayed.turns[1]!.calls[0]!.error!.code = 'OUTCOME_UNKNOWN';
    expect(compareReplay(stored, { replayed, missing: [] })).toEqual([]);
  });

  it('a missing and an extra call: tool_call; the replay ending early: turns', () => {
    const replayed = base();
    replayed.turns[0]!.calls.push(call('task.inspect', 'succeeded'));
    replayed.turns.splice(1);
    replayed.finalText = null;
    const d = compareReplay(base(), { replayed, missing: [] });
    expect(d.map((x) => [x.kind, x.turn, x.callIndex ?? null])).toEqual([
      ['tool_call', 0, 1],
      ['tool_call', 1, 0],
      ['turns', 1, null],
    ]);
    expect(d[0]!.message).toBe('turn 0 call 1: task.inspect is an extra call');
    expect(d[1]!.message).toBe('turn 1 call 0: download.submit was not called in the replay');
    expect(d[2]).toMatchObject({ stored: { turns: 3, finalReply: true }, replayed: { turns: 1, finalReply: false } });
    expect(d[2]!.message).toContain('ended before');
  });

  it('a capability gone: one capability_missing per capability, its calls not also reported as tool_call', () => {
    const stored = base();
    stored.turns.push({ calls: [call('catalog.lookup', 'succeeded')] });
    const replayed = structuredClone(stored);
    replayed.turns[0]!.calls[0] = call('catalog.lookup', 'failed', { error: { code: 'TOOL_UNKNOWN', message: '' } });
    replayed.turns[3]!.calls[0] = replayed.turns[0]!.calls[0]!;
    expect(compareReplay(stored, { replayed, missing: ['catalog.lookup'] })).toEqual([
      expect.objectContaining({ kind: 'capability_missing', turn: 0, callIndex: 0, capabilityId: 'catalog.lookup' }),
    ]);
  });

  it('another goal report status: report; the same status with another summary: none', () => {
    const replayed = base();
    replayed.report = { status: 'failed', summary: 'download failed' };
    expect(compareReplay(base(), { replayed, missing: [] })).toEqual([
      expect.objectContaining({
        kind: 'report',
        stored: { status: 'succeeded', summary: 'in the library' },
        replayed: { status: 'failed', summary: 'download failed' },
        message: 'the goal report is failed in the replay, succeeded as stored',
      }),
    ]);
    replayed.report = { status: 'succeeded', summary: 'other words' };
    expect(compareReplay(base(), { replayed, missing: [] })).toEqual([]);
  });

  it("a subagent's calls are compared under its goal", () => {
    const stored = base();
    stored.subagents = [
      { goal: 'Status A', runId: 'run_2', finalText: 'ok', turns: [{ calls: [call('task.inspect', 'succeeded')] }] },
    ];
    const replayed = structuredClone(stored);
    replayed.subagents[0]!.turns[0]!.calls[0]!.input = { id: 9 };
    expect(compareReplay(stored, { replayed, missing: [] })).toEqual([
      expect.objectContaining({
        kind: 'tool_call',
        turn: 0,
        callIndex: 0,
        message: expect.stringMatching(/^subagent #0 turn 0 call 0/),
      }),
    ]);
  });
});
