/** The pure rules of forks (docs/forks.md): fork points, effects after a point, the lineage, the note, the duplicate rule. */
import { describe, expect, it } from 'vitest';
import { duplicateEffect } from '../../src/capabilities/duplicate-effect';
import type { PriorEffect } from '../../src/capabilities/invocation';
import type { LedgerEntry } from '../../src/core/records';
import type { RunEventRecord } from '../../src/core/run-records';
import { FORK_NOTE_PREFIX, forkNote } from '../../src/runtime/fork/fork-note';
import { closedPrefixes, forkPointAt, forkPoints, nearestForkPoints } from '../../src/runtime/fork/fork-points';
import { forkStateOf, modelOverrideOf } from '../../src/runtime/fork/fork-state';
import {
  cappedOutput,
  effectsAfter,
  FORKED_OUTPUT_MAX_CHARS,
  lineageEffects,
} from '../../src/runtime/fork/forked-effects';

const user = (content: string) => ({ role: 'user', content });
const asks = (...ids: string[]) => ({
  role: 'assistant',
  content: [{ type: 'text', text: 'x' }, ...ids.map((id) => ({ type: 'tool_call', id, name: 't', input: {} }))],
});
const result = (id: string) => ({ role: 'tool', toolCallId: id, name: 't', content: '{}' });
const event = (seq: number, type: string, data: object, messageCount?: number): RunEventRecord => ({
  globalSeq: seq,
  runId: 'run_1',
  seq,
  type,
  at: 1000 + seq,
  data: data as never,
  ...(messageCount !== undefined ? { messageCount } : {}),
});

describe('closedPrefixes', () => {
  it('is true exactly where every tool call asked for so far has its result', () => {
    const messages = [user('goal'), asks('a', 'b'), result('a'), result('b'), asks('c'), result('c')];
    expect(closedPrefixes(messages)).toEqual([true, true, false, false, true, false, true]);
  });
  it('treats text-only assistant messages and unknown shapes as closed', () => {
    expect(closedPrefixes([user('g'), { role: 'assistant', content: 'hi' }, 'junk' as never, null as never])).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
  });
});

describe('forkPoints', () => {
  const messages = [
    user('goal'),
    asks('a'),
    result('a'),
    { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
  ];
  const events = [
    event(1, 'run_status', { status: 'queued' }),
    event(2, 'run_status', { status: 'running' }),
    event(3, 'tool_call', { capabilityId: 'download.submit', phase: 'started' }, 2),
    event(4, 'tool_call', { capabilityId: 'download.submit', phase: 'pending' }, 3),
    event(5, 'text_delta', { text: 'done' }),
    event(6, 'run_status', { status: 'waiting' }, 4),
    event(7, 'run_status', { status: 'waiting' }, 9), // more messages than stored: not a point
  ];
  it('lists only events with a messageCount whose prefix is closed, with labels', () => {
    expect(forkPoints(events, messages)).toEqual([
      { seq: 4, at: 1004, messageCount: 3, label: 'after tool download.submit (pending)' },
      { seq: 6, at: 1006, messageCount: 4, label: 'after the run became waiting' },
    ]);
  });
  it('finds the point at a seq and the nearest ones around any value', () => {
    const points = forkPoints(events, messages);
    expect(forkPointAt(points, 4)?.messageCount).toBe(3);
    expect(forkPointAt(points, 3)).toBeUndefined();
    expect(forkPointAt(points, 4.5)).toBeUndefined();
    expect(forkPointAt(points, '4')).toBeUndefined();
    expect(nearestForkPoints(points, 3)).toEqual({ before: null, after: 4 });
    expect(nearestForkPoints(points, 5)).toEqual({ before: 4, after: 6 });
    expect(nearestForkPoints(points, 100)).toEqual({ before: 6, after: null });
    expect(nearestForkPoints(points, Number.NaN)).toEqual({ before: null, after: 4 });
    expect(nearestForkPoints([], 1)).toEqual({ before: null, after: null });
  });
});

const entry = (over: Partial<LedgerEntry>): LedgerEntry => ({
  key: 'k',
  capabilityId: 'download.submit',
  capabilityVersion: 1,
  scopeId: 'run_1',
  callId: null,
  argsHash: 'h',
  state: 'pending',
  token: 't',
  actor: 'agent:run_1',
  invocationId: 'inv_1',
  runId: 'run_1',
  taskId: null,
  approvalId: null,
  grantId: null,
  bytes: 0,
  output: { ok: true },
  error: null,
  inputSummary: '{}',
  attempts: 1,
  claimedAt: 0,
  updatedAt: 0,
  settledAt: null,
  ...over,
});

describe('effectsAfter', () => {
  const events = [
    event(2, 'run_status', { status: 'running' }),
    event(3, 'tool_call', { callId: 'c1', capabilityId: 'download.plan', phase: 'started' }, 2),
    event(4, 'tool_call', { callId: 'c1', capabilityId: 'download.plan', phase: 'succeeded' }, 3),
    event(5, 'tool_call', { callId: 'c2', capabilityId: 'download.submit', phase: 'started' }, 4),
    event(6, 'tool_call', { callId: 'c2', capabilityId: 'download.submit', phase: 'pending' }, 5),
  ];
  it('lists the entries whose call was opened after atSeq (by the started event), else claimed after it', () => {
    const entries = [
      entry({ key: 'plan', callId: 'c1', capabilityId: 'download.plan', state: 'succeeded', claimedAt: 1003 }),
      entry({ key: 'submit', callId: 'c2', claimedAt: 1005 }),
      entry({
        key: 'direct',
        callId: null,
        state: 'failed',
        output: null,
        error: { code: 'X', message: 'no' },
        claimedAt: 1010,
      }),
      entry({ key: 'early', callId: null, claimedAt: 1 }),
    ];
    expect(effectsAfter('run_1', entries, events, 4).map((e) => e.key)).toEqual(['submit', 'direct']);
    expect(effectsAfter('run_1', entries, events, 2).map((e) => e.key)).toEqual(['plan', 'submit', 'direct']);
    const [submit, direct] = effectsAfter('run_1', entries, events, 4);
    expect(submit).toEqual({
      key: 'submit',
      capabilityId: 'download.submit',
      argsHash: 'h',
      outcome: 'pending',
      invocationId: 'inv_1',
      output: { ok: true },
      runId: 'run_1',
    });
    expect(direct).toMatchObject({ outcome: 'failed', error: { code: 'X', message: 'no' } });
    expect(direct).not.toHaveProperty('output');
  });
  it('caps a large output to a preview', () => {
    const big = { text: 'x'.repeat(FORKED_OUTPUT_MAX_CHARS) };
    expect(cappedOutput(big)).toEqual({
      truncated: true,
      preview: JSON.stringify(big).slice(0, FORKED_OUTPUT_MAX_CHARS),
    });
    expect(cappedOutput({ a: 1 })).toEqual({ a: 1 });
  });
});

describe('lineageEffects', () => {
  it('keeps the effects that may have taken place, then the inherited ones, each key once', () => {
    const inherited: PriorEffect[] = [
      { key: 'g1', capabilityId: 'download.submit', argsHash: 'h0', outcome: 'succeeded', runId: 'run_0' },
      { key: 'a', capabilityId: 'download.submit', argsHash: 'h', outcome: 'pending', runId: 'run_0' },
    ];
    const out = lineageEffects(
      'run_1',
      [
        entry({ key: 'a' }),
        entry({ key: 'b', state: 'failed' }),
        entry({ key: 'c', state: 'unknown' }),
        entry({ key: 'd', state: 'running' }),
      ],
      inherited,
    );
    expect(out.map((e) => `${e.key}:${e.runId}`)).toEqual(['a:run_1', 'c:run_1', 'd:run_1', 'g1:run_0']);
  });
});

describe('duplicateEffect (the never-effect duplicate rule)', () => {
  const prior: PriorEffect[] = [
    { key: 'k1', capabilityId: 'download.submit', argsHash: 'h', outcome: 'pending', runId: 'run_1' },
    { key: 'k2', capabilityId: 'organize.execute', argsHash: 'o', outcome: 'failed', runId: 'run_1' },
  ];
  const call = { capabilityId: 'download.submit', replay: 'never' as const, argsHash: 'h' };
  it('refuses a never effect repeated with the same arguments, unless a person approved it', () => {
    expect(duplicateEffect(call, 'grant', prior)?.key).toBe('k1');
    expect(duplicateEffect(call, 'human', prior)?.key).toBe('k1');
    expect(duplicateEffect(call, 'approval', prior)).toBeUndefined();
  });
  it('lets everything else through', () => {
    expect(duplicateEffect({ ...call, argsHash: 'other' }, 'grant', prior)).toBeUndefined();
    expect(duplicateEffect({ ...call, replay: 'reconcile' }, 'grant', prior)).toBeUndefined();
    expect(duplicateEffect({ ...call, replay: 'safe' }, 'grant', prior)).toBeUndefined();
    expect(
      duplicateEffect({ capabilityId: 'organize.execute', replay: 'never', argsHash: 'o' }, 'grant', prior),
    ).toBeUndefined();
    expect(duplicateEffect(call, 'grant', undefined)).toBeUndefined();
    expect(duplicateEffect(call, 'grant', [])).toBeUndefined();
    for (const outcome of ['succeeded', 'unknown', 'running'] as const)
      expect(duplicateEffect(call, 'grant', [{ ...prior[0]!, outcome }])?.key).toBe('k1');
  });
});

describe('forkNote', () => {
  it('names the origin, each effect with its key and outcome, and what to do', () => {
    const note = forkNote({
      fromRunId: 'run_1',
      atSeq: 8,
      effects: [
        {
          key: 'k1',
          capabilityId: 'download.submit',
          argsHash: 'h',
          outcome: 'pending',
          invocationId: 'i',
          output: { id: 'dl-1' },
          runId: 'run_1',
        },
        {
          key: 'k2',
          capabilityId: 'organize.execute',
          argsHash: 'o',
          outcome: 'failed',
          invocationId: 'j',
          error: { code: 'E', message: 'disk' },
          runId: 'run_0',
        },
      ],
      goalChanged: true,
    });
    expect(note.startsWith(FORK_NOTE_PREFIX)).toBe(true);
    expect(note).toContain('forked from run run_1 at event 8');
    expect(note).toContain('- download.submit (pending) by run run_1, ledger key k1; output {"id":"dl-1"}');
    expect(note).toContain('- organize.execute (failed) by run run_0, ledger key k2; error E: disk');
    expect(note).toContain('changed the goal');
    expect(forkNote({ fromRunId: 'run_1', atSeq: 2, effects: [] })).toContain('performed no side effect');
  });
});

describe('fork state', () => {
  it('reads a fork state and a model override, anything malformed as none', () => {
    const lineage = [{ key: 'k', capabilityId: 'c', argsHash: 'h', outcome: 'pending', runId: 'r' }];
    expect(forkStateOf({ fromRunId: 'r', atSeq: 3, lineage: [...lineage, { key: 1 }] })).toEqual({
      fromRunId: 'r',
      atSeq: 3,
      lineage,
    });
    expect(forkStateOf(undefined)).toBeUndefined();
    expect(forkStateOf({ fromRunId: 'r' })).toBeUndefined();
    expect(forkStateOf([])).toBeUndefined();
    expect(modelOverrideOf('m')).toBe('m');
    expect(modelOverrideOf('')).toBeUndefined();
    expect(modelOverrideOf(3)).toBeUndefined();
  });
});
