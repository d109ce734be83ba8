import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LOOP_GUARD_CONFIG,
  LoopGuard,
  LoopGuardStateError,
  type GuardCall,
  type GuardNotice,
  type GuardOutcome,
} from '../../src/runtime/guardrails/index';

const read = (tool: string, input: unknown = {}): GuardCall => ({ tool, input, kind: 'read' });
const exec = (tool: string, input: unknown = {}): GuardCall => ({ tool, input, kind: 'execute' });
const failed: GuardOutcome = { status: 'failed', resultText: '{"error":"boom"}' };
const ok = (resultText = 'ok'): GuardOutcome => ({ status: 'succeeded', resultText });
const codes = (notices: GuardNotice[]) => notices.map((n) => `${n.level}:${n.code}`);

/** Runs `call` once through before/after as the driver does; returns the decision and notices. */
function step(guard: LoopGuard, call: GuardCall, outcome: GuardOutcome) {
  const decision = guard.before(call);
  return { decision, notices: decision.action === 'allow' ? guard.after(call, outcome) : [] };
}

describe('loop guard (seed 000, 执行纠偏与停止)', () => {
  it('defaults are the seed numbers: 2/5 same call, 3/8 same tool, 2/5 same result, 3 identical, cycles 2–4 in 64, caps 50, 2 continuations', () => {
    expect(DEFAULT_LOOP_GUARD_CONFIG).toMatchObject({
      sameCallFailWarnAt: 2,
      sameCallFailBlockAt: 5,
      sameToolFailWarnAt: 3,
      sameToolFailStopAt: 8,
      sameResultWarnAt: 2,
      sameResultBlockAt: 5,
      identicalCallsNoticeAt: 3,
      cycleMinPeriod: 2,
      cycleMaxPeriod: 4,
      cycleWindow: 64,
      maxSearches: 50,
      maxSubagents: 50,
      maxContinuations: 2,
    });
  });

  it('the same call failing is warned at 2 and blocked at 5 (interactive: the run goes on)', () => {
    const guard = new LoopGuard({ mode: 'interactive' });
    const call = exec('download.submit', { torrent: 'a', path: '/x' });
    const same = exec('download.submit', { path: '/x', torrent: 'a' }); // key order does not matter
    expect(step(guard, call, failed).notices).toEqual([]);
    expect(codes(step(guard, same, failed).notices)).toEqual(['warn:LOOP_SAME_CALL_FAILING']);
    step(guard, call, failed);
    step(guard, call, failed);
    const fifth = step(guard, call, failed);
    expect(fifth.decision.action).toBe('allow');
    expect(fifth.notices[0]).toMatchObject({ level: 'warn', code: 'LOOP_SAME_CALL_FAILING', count: 5 });
    expect(guard.before(call)).toMatchObject({ action: 'block', code: 'LOOP_SAME_CALL_FAILING', count: 5 });
    expect(guard.before(exec('download.submit', { torrent: 'b', path: '/x' })).action).toBe('allow');
    expect(guard.stopped).toBeNull();
  });

  it('the same tool failing with other arguments is warned at 3 and stops a background run at 8', () => {
    const guard = new LoopGuard({ mode: 'background' });
    const seen: string[][] = [];
    for (let i = 1; i <= 8; i++) seen.push(codes(step(guard, exec('organize.run', { id: i }), failed).notices));
    expect(seen.slice(0, 2)).toEqual([[], []]);
    expect(seen[2]).toEqual(['warn:LOOP_SAME_TOOL_FAILING']);
    expect(seen[6]).toEqual(['warn:LOOP_SAME_TOOL_FAILING']);
    expect(seen[7]).toEqual(['stop:LOOP_SAME_TOOL_FAILING']);
    expect(guard.stopped).toMatchObject({ code: 'LOOP_SAME_TOOL_FAILING', count: 8 });
    expect(guard.before(read('library.search'))).toMatchObject({ action: 'stop', code: 'LOOP_STOPPED' });
  });

  it('a tool declared failure-tolerant (diagnostics) keeps failing with other arguments without stopping', () => {
    const guard = new LoopGuard({ mode: 'background', config: { failureTolerantTools: ['diagnose'] } });
    const levels = Array.from({ length: 12 }, (_, i) =>
      step(guard, exec('diagnose', { probe: i }), failed).notices.map((n) => n.level),
    ).flat();
    expect(levels).not.toContain('stop');
    expect(levels).toContain('warn');
    expect(guard.stopped).toBeNull();
  });

  it('the same read-only result is warned at 2 and blocked at 5; a changed result restarts counting', () => {
    const guard = new LoopGuard({ mode: 'interactive' });
    const call = read('library.search', { q: 'Dune' });
    expect(step(guard, call, ok('[1]')).notices).toEqual([]);
    expect(step(guard, call, ok('[1]')).notices[0]).toMatchObject({
      level: 'warn',
      code: 'LOOP_SAME_RESULT',
      count: 2,
    });
    expect(step(guard, call, ok('[1, 2]')).notices.filter((n) => n.code === 'LOOP_SAME_RESULT')).toEqual([]);
    for (let i = 2; i <= 5; i++) step(guard, call, ok('[1,2]'));
    expect(guard.before(call)).toMatchObject({ action: 'block', code: 'LOOP_SAME_RESULT', count: 5 });
    expect(guard.before(read('library.search', { q: 'Dune 2' })).action).toBe('allow');
  });

  it('identical calls in a row get a notice at 3', () => {
    const guard = new LoopGuard({ mode: 'interactive' });
    const call: GuardCall = { tool: 'update_plan', input: { steps: ['a'] }, kind: 'internal' };
    expect(step(guard, call, ok()).notices).toEqual([]);
    expect(step(guard, call, ok()).notices).toEqual([]);
    expect(step(guard, call, ok()).notices).toEqual([
      expect.objectContaining({ level: 'notice', code: 'LOOP_IDENTICAL_CALLS', count: 3 }),
    ]);
    expect(step(guard, { ...call, input: { steps: ['b'] } }, ok()).notices).toEqual([]);
  });

  it('identical calls that keep returning the same result stop a background run at 5', () => {
    const guard = new LoopGuard({ mode: 'background' });
    const call = exec('subscription.refresh', { id: 7 });
    const levels = Array.from({ length: 5 }, () =>
      step(guard, call, ok('refreshed')).notices.map((n) => `${n.level}:${n.code}`),
    );
    expect(levels).toEqual([
      [],
      [],
      ['notice:LOOP_IDENTICAL_CALLS'],
      ['notice:LOOP_IDENTICAL_CALLS'],
      ['stop:LOOP_IDENTICAL_CALLS'],
    ]);
    expect(guard.stopped).toMatchObject({ code: 'LOOP_IDENTICAL_CALLS', count: 5 });
  });

  it('status/wait/list/read actions poll without identical-call notices', () => {
    const guard = new LoopGuard({ mode: 'background' });
    const poll: GuardCall = { tool: 'delegate', input: { action: 'status', id: 'c1' }, kind: 'internal' };
    const all = Array.from({ length: 10 }, () => step(guard, poll, ok('running')).notices).flat();
    expect(all).toEqual([]);
    expect(guard.stopped).toBeNull();
  });

  it('a 2-step cycle A,B,A,B is detected', () => {
    const guard = new LoopGuard({ mode: 'interactive' });
    const a = read('downloads.list', { page: 1 });
    const b = read('library.search', { q: 'x' });
    expect(step(guard, a, ok('A')).notices).toEqual([]);
    expect(step(guard, b, ok('B')).notices).toEqual([]);
    expect(codes(step(guard, a, ok('A')).notices)).not.toContain('warn:LOOP_CYCLE');
    const fourth = step(guard, b, ok('B')).notices;
    expect(fourth).toContainEqual(expect.objectContaining({ level: 'warn', code: 'LOOP_CYCLE', count: 2 }));
    expect(fourth.find((n) => n.code === 'LOOP_CYCLE')?.message).toMatch(/cycle of 2 calls/);
  });

  it('a 3-step cycle A,B,C,A,B,C is detected; a changed result breaks it', () => {
    const guard = new LoopGuard({ mode: 'interactive' });
    const calls = [read('a'), read('b'), read('c')];
    const notices = [...calls, ...calls].map((c) => step(guard, c, ok(c.tool)).notices);
    expect(
      notices
        .slice(0, 5)
        .flat()
        .filter((n) => n.code === 'LOOP_CYCLE'),
    ).toEqual([]);
    expect(notices[5]).toContainEqual(expect.objectContaining({ code: 'LOOP_CYCLE', count: 2 }));
    expect(notices[5]?.find((n) => n.code === 'LOOP_CYCLE')?.message).toMatch(/cycle of 3 calls/);

    const fresh = new LoopGuard({ mode: 'interactive' });
    const changed = [...calls, ...calls].flatMap((c, i) => step(fresh, c, ok(`${c.tool}${i}`)).notices);
    expect(changed.filter((n) => n.code === 'LOOP_CYCLE')).toEqual([]);
  });

  it('a cycle that keeps repeating stops a background run at 5 laps but only warns an interactive one', () => {
    const run = (mode: 'interactive' | 'background') => {
      const guard = new LoopGuard({ mode });
      const levels: string[] = [];
      for (let lap = 0; lap < 5; lap++)
        for (const c of [exec('a'), exec('b')])
          levels.push(
            ...step(guard, c, ok(c.tool))
              .notices.filter((n) => n.code === 'LOOP_CYCLE')
              .map((n) => n.level),
          );
      return { levels, stopped: guard.stopped };
    };
    expect(run('background').levels.at(-1)).toBe('stop');
    expect(run('background').stopped).toMatchObject({ code: 'LOOP_CYCLE', count: 5 });
    expect(run('interactive').levels).not.toContain('stop');
    expect(run('interactive').stopped).toBeNull();
  });

  it('searches and subagent launches are capped at 50 per run, checked before the batch (an allowed batch may cross)', () => {
    const guard = new LoopGuard({ mode: 'interactive' });
    const search = (i: number): GuardCall => ({ tool: 'search_tools', input: { search: `q${i}` }, kind: 'internal' });
    const delegate = (i: number): GuardCall => ({ tool: 'delegate', input: { task: `t${i}` }, kind: 'internal' });
    for (let i = 0; i < 48; i++) expect(guard.beforeBatch([search(i)])).toEqual([{ action: 'allow' }]);
    // 48 used: a batch of 3 is allowed and crosses to 51
    expect(guard.beforeBatch([search(48), search(49), search(50), read('x')]).map((d) => d.action)).toEqual([
      'allow',
      'allow',
      'allow',
      'allow',
    ]);
    expect(guard.beforeBatch([search(51), read('x')])).toEqual([
      expect.objectContaining({ action: 'block', code: 'LOOP_SEARCH_CAP' }),
      { action: 'allow' },
    ]);
    expect(
      guard.beforeBatch(Array.from({ length: 50 }, (_, i) => delegate(i))).every((d) => d.action === 'allow'),
    ).toBe(true);
    expect(guard.beforeBatch([{ tool: 'delegate', input: { action: 'status', id: 't1' }, kind: 'internal' }])).toEqual([
      { action: 'allow' },
    ]);
    expect(guard.beforeBatch([delegate(50)])[0]).toMatchObject({
      action: 'block',
      code: 'LOOP_SUBAGENT_CAP',
      count: 50,
    });

    const background = new LoopGuard({ mode: 'channel', config: { maxSearches: 1 } });
    expect(background.beforeBatch([search(0)])[0]?.action).toBe('allow');
    expect(background.beforeBatch([search(1)])[0]).toMatchObject({ action: 'stop', code: 'LOOP_SEARCH_CAP' });
  });

  it('interactive runs warn and block single calls; background and channel runs stop', () => {
    for (const mode of ['interactive', 'background', 'channel'] as const) {
      const guard = new LoopGuard({ mode });
      const call = exec('download.submit', { id: 1 });
      for (let i = 0; i < 5; i++) step(guard, call, failed);
      const decision = guard.before(call);
      expect(decision).toMatchObject({
        action: mode === 'interactive' ? 'block' : 'stop',
        code: 'LOOP_SAME_CALL_FAILING',
      });
      expect(guard.stopped === null).toBe(mode === 'interactive');
      expect(guard.before(read('other')).action).toBe(mode === 'interactive' ? 'allow' : 'stop');
    }
  });

  it('a successful write resets the failure counters: the retry is a new experiment', () => {
    const guard = new LoopGuard({ mode: 'interactive' });
    const test = read('organize.check', { id: 1 });
    for (let i = 0; i < 5; i++) step(guard, test, failed);
    expect(guard.before(test).action).toBe('block');
    step(guard, exec('organize.fix', { id: 1 }), ok('fixed'));
    expect(guard.before(test).action).toBe('allow');
    expect(step(guard, test, failed).notices).toEqual([]); // counting restarts at 1
    expect(codes(step(guard, test, failed).notices)).toEqual(['warn:LOOP_SAME_CALL_FAILING']);
    // a read that succeeds does not reset other calls' failures
    const other = exec('download.submit', { id: 2 });
    for (let i = 0; i < 5; i++) step(guard, other, failed);
    step(guard, read('library.search'), ok('[]'));
    expect(guard.before(other).action).toBe('block');
  });

  it('an unknown or pending outcome is neither failure nor success and is never changed by a stop', () => {
    const guard = new LoopGuard({ mode: 'background' });
    const call = exec('download.submit', { id: 1 });
    const unknown: GuardOutcome = { status: 'unknown', resultText: 'outcome unknown' };
    const before = structuredClone(unknown);
    for (let i = 0; i < 4; i++) expect(step(guard, call, failed).decision.action).toBe('allow');
    step(guard, call, unknown);
    expect(unknown).toEqual(before);
    expect(Object.values(guard.toJSON().sameCallFailures)).toEqual([4]);
    step(guard, call, failed);
    expect(guard.before(call)).toMatchObject({ action: 'stop', code: 'LOOP_SAME_CALL_FAILING' });
    expect(unknown.status).toBe('unknown');
  });

  it('state round-trips through JSON (crash resume) and invalid state is refused', () => {
    const guard = new LoopGuard({ mode: 'interactive' });
    const call = exec('download.submit', { id: 1 });
    for (let i = 0; i < 4; i++) step(guard, call, failed);
    guard.beforeBatch([{ tool: 'search_tools', input: {}, kind: 'internal' }]);
    guard.afterReply('Let me check the queue.', false);
    const stored = JSON.parse(JSON.stringify(guard)) as unknown;
    const resumed = LoopGuard.fromJSON(stored, { mode: 'interactive' });
    expect(resumed.toJSON()).toEqual(guard.toJSON());
    expect(resumed.toJSON()).toMatchObject({ searches: 1, continuations: 1 });
    step(resumed, call, failed);
    expect(resumed.before(call)).toMatchObject({ action: 'block', count: 5 });
    expect(() => LoopGuard.fromJSON({ version: 2 }, { mode: 'interactive' })).toThrow(LoopGuardStateError);
    expect(() => LoopGuard.fromJSON({ ...(stored as object), searches: -1 }, { mode: 'interactive' })).toThrow(
      /LOOP_GUARD_STATE_INVALID|searches/,
    );
  });

  it('continuation prompts after replies that announce an action: at most 2 per run, then exhausted', () => {
    const guard = new LoopGuard({ mode: 'interactive' });
    expect(guard.afterReply('The movie is in your library.', false)).toEqual({ action: 'none' });
    expect(guard.afterReply('接下来我会检查下载队列。', false)).toMatchObject({
      action: 'continue',
      count: 1,
      prompt: expect.stringMatching(/继续/),
    });
    expect(guard.afterReply('Let me search the library.', true)).toEqual({ action: 'none' });
    expect(guard.afterReply('Next I will check the downloader.', false)).toMatchObject({
      action: 'continue',
      count: 2,
      prompt: expect.stringMatching(/called no tool/),
    });
    expect(guard.afterReply('Let me check the queue again.', false)).toEqual({ action: 'exhausted', count: 2 });
  });

  it('refused calls in a row stop the run in every mode at 5; a call that runs resets the count; resume() lifts the stop and keeps the counts', () => {
    for (const mode of ['interactive', 'background'] as const) {
      const guard = new LoopGuard({ mode });
      const call = exec('download.submit', { torrent: 'a' });
      for (let i = 0; i < 4; i++) expect(guard.refused(call)).toBeUndefined();
      step(guard, read('inventory.query'), ok()); // allowed: resets the streak of refusals
      for (let i = 0; i < 4; i++) expect(guard.refused(call)).toBeUndefined();
      expect(guard.refused(call)).toMatchObject({ level: 'stop', code: 'LOOP_BLOCKED_REPEATEDLY', count: 5 });
      expect(guard.stopped?.code).toBe('LOOP_BLOCKED_REPEATEDLY');
      const restored = LoopGuard.fromJSON(JSON.parse(JSON.stringify(guard.toJSON())), { mode });
      expect(restored.stopped?.code).toBe('LOOP_BLOCKED_REPEATEDLY');
      restored.resume();
      expect(restored.stopped).toBeNull();
      expect(restored.before(read('inventory.query'))).toEqual({ action: 'allow' });
    }
    expect(
      new LoopGuard({ mode: 'interactive', config: { blockedCallsStopAt: 0 } }).refused(exec('x')),
    ).toBeUndefined();
  });

  it('a state stored before refusals were counted still loads', () => {
    const state = new LoopGuard({ mode: 'interactive' }).toJSON() as unknown as Record<string, unknown>;
    delete state.blockedInARow;
    expect(LoopGuard.fromJSON(state, { mode: 'interactive' }).toJSON().blockedInARow).toBe(0);
  });

  it('what a run stores stays bounded: the signatures seen last are remembered, older ones forgotten', () => {
    const guard = new LoopGuard({ mode: 'interactive' });
    for (let i = 0; i < 500; i++) step(guard, read('library.lookup', { id: i }), ok(`result ${i}`));
    for (let i = 0; i < 500; i++) step(guard, exec('download.submit', { id: i }), failed);
    const state = guard.toJSON();
    expect(Object.keys(state.sameResults)).toHaveLength(DEFAULT_LOOP_GUARD_CONFIG.cycleWindow);
    expect(Object.keys(state.sameCallFailures)).toHaveLength(DEFAULT_LOOP_GUARD_CONFIG.cycleWindow);
    expect(state.history).toHaveLength(DEFAULT_LOOP_GUARD_CONFIG.cycleWindow);
    expect(JSON.stringify(state).length).toBeLessThan(16_384);
    // A recent call repeated is still caught; the most recent one of each rule is the one kept last.
    expect(codes(step(guard, exec('download.submit', { id: 499 }), failed).notices)).toEqual([
      'warn:LOOP_SAME_CALL_FAILING',
    ]);
    expect(Object.keys(guard.toJSON().sameCallFailures).at(-1)).toContain('download.submit');
  });
});
