// The pure rules behind a recorded trajectory and a fork comparison: the recorded oracle, the checks of a `recorded`
// part, the bounds, the comparison rows and the shared fork point.
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/core/run-records';
import { compareForkRows, forkComparisonRow, formatForkComparison } from '../../src/testing/eval/compare-forks';
import { judgeRecordedOutcome } from '../../src/testing/eval/recorded-oracle';
import { ORACLE_FAILURE_CODES } from '../../src/testing/eval/scenario';
import { parseTrajectory, TRAJECTORY_MAX_BYTES } from '../../src/testing/eval/trajectory';
import {
  recordingProblems,
  TRAJECTORY_RECORDED_MAX_BYTES,
  TRAJECTORY_RECORDED_MAX_CALLS,
} from '../../src/testing/eval/trajectory-recording';

describe('judgeRecordedOutcome (the recorded oracle)', () => {
  it('passes a run whose goal report says succeeded, whatever else', () => {
    expect(
      judgeRecordedOutcome({ status: 'succeeded', report: { status: 'succeeded', summary: 's' } }),
    ).toBeUndefined();
  });

  it.each([
    [{ status: 'failed', report: { status: 'failed', summary: 'dl-1 stalled' } }, 'goal_failed'],
    [{ status: 'waiting', report: { status: 'waiting', summary: 'downloading' } }, 'goal_waiting'],
    [{ status: 'running', report: null }, 'goal_waiting'],
    [{ status: 'failed', report: null, error: { code: 'PROVIDER_AUTH', message: 'no key' } }, 'run_failed'],
    [{ status: 'cancelled', report: null }, 'run_failed'],
    [{ status: 'budget_exceeded', report: null }, 'run_failed'],
  ])('fails %o with %s, a registered code', (outcome, code) => {
    const failure = judgeRecordedOutcome(outcome);
    expect(failure?.code).toBe(code);
    expect(ORACLE_FAILURE_CODES).toContain(code);
  });

  it('names the run error in the reason of run_failed', () => {
    expect(
      judgeRecordedOutcome({ status: 'failed', report: null, error: { code: 'PROVIDER_AUTH', message: 'no key' } })
        ?.reason,
    ).toContain('PROVIDER_AUTH: no key');
  });
});

const recording = (results: unknown[]) => ({
  run: {
    id: 'run_1',
    goal: 'g',
    mode: 'execute',
    origin: 'interactive',
    startedBy: 'user:admin',
    createdAt: 1,
    status: 'failed',
    error: null,
    report: { status: 'failed', summary: 's' },
  },
  capabilities: [{ id: 'catalog.lookup', kind: 'read', input: { type: 'object' }, output: { type: 'object' } }],
  results,
  plans: [],
  facts: null,
  steering: [{ beforeTurn: 1, text: 'change', actor: 'user:admin' }],
  approvals: [],
});
const call = { capability: 'catalog.lookup', input: { query: 'Dune' } };
const result = { capability: 'catalog.lookup', input: { query: 'Dune' }, status: 'succeeded', output: { hits: [] } };

describe('recordingProblems (the checks of a recorded part)', () => {
  it('accepts a well-formed part whose results follow the calls', () => {
    expect(recordingProblems(recording([result]), [call])).toEqual([]);
  });

  it.each([
    ['not an object', [], /must be an object/],
    ['a result too few', recording([]), /has 0 entries for 1 calls/],
    ['a result for another capability', recording([{ ...result, capability: 'task.inspect' }]), /is for task\.inspect/],
    [
      'a result for another input',
      recording([{ ...result, input: { query: 'Arrival' } }]),
      /its input is not the input/,
    ],
    ['an unknown status', recording([{ ...result, status: 'done' }]), /needs a "capability" and a "status"/],
    ['a steering without a turn', { ...recording([result]), steering: [{ text: 'x' }] }, /"beforeTurn"/],
    ['an approval without a decision', { ...recording([result]), approvals: [{ planId: 'p' }] }, /"decision"/],
    ['a run without a goal', { ...recording([result]), run: { ...recording([]).run, goal: '' } }, /run\.goal/],
    [
      'authorization that is not records',
      { ...recording([result]), authorization: { grants: [1], policies: [], automation: null } },
      /recorded\.authorization/,
    ],
  ])('refuses %s', (_name, value, reason) => {
    expect(recordingProblems(value, [call]).join('\n')).toMatch(reason);
  });
});

describe('parseTrajectory of recorded trajectories (scenario "recorded", its own bounds)', () => {
  const base = { scenario: 'recorded', turns: [{ calls: [call] }], recorded: recording([result]) };

  it('accepts one, and refuses a recorded part on another scenario or a recorded scenario without one', () => {
    expect(parseTrajectory(JSON.stringify(base)).recorded?.run.id).toBe('run_1');
    expect(() => parseTrajectory(JSON.stringify({ ...base, scenario: 'dedup_existing' }))).toThrow(
      /"recorded" is for scenario "recorded" only/,
    );
    expect(() => parseTrajectory(JSON.stringify({ ...base, recorded: undefined }))).toThrow(
      /scenario "recorded" needs a "recorded" part/,
    );
    expect(() => parseTrajectory(JSON.stringify({ ...base, recorded: recording([]) }))).toThrow(
      /EVAL_TRAJECTORY_INVALID|has 0 entries for 1 calls/,
    );
  });

  it('allows a recorded trajectory more calls and bytes than a written one, up to its own bounds', () => {
    const n = 40; // more than the 32 of a written trajectory
    const many = {
      ...base,
      turns: Array.from({ length: n }, () => ({ calls: [call] })),
      recorded: recording(Array.from({ length: n }, () => result)),
    };
    expect(parseTrajectory(JSON.stringify(many)).turns).toHaveLength(n);
    expect(() => parseTrajectory(JSON.stringify({ ...many, scenario: 'dedup_existing', recorded: undefined }))).toThrow(
      /more than the 32 allowed/,
    );
    const tooMany = TRAJECTORY_RECORDED_MAX_CALLS + 1;
    expect(() =>
      parseTrajectory(
        JSON.stringify({
          ...base,
          turns: Array.from({ length: tooMany }, () => ({ calls: [call] })),
          recorded: recording(Array.from({ length: tooMany }, () => result)),
        }),
      ),
    ).toThrow(new RegExp(`more than the ${TRAJECTORY_RECORDED_MAX_CALLS} allowed`));
    const big = { ...base, description: 'x'.repeat(TRAJECTORY_MAX_BYTES) };
    expect(parseTrajectory(JSON.stringify(big)).scenario).toBe('recorded');
    expect(() =>
      parseTrajectory(JSON.stringify({ ...big, description: 'x'.repeat(TRAJECTORY_RECORDED_MAX_BYTES) })),
    ).toThrow(new RegExp(`more than the ${TRAJECTORY_RECORDED_MAX_BYTES} allowed`));
  });
});

const run = (over: Partial<RunRecord> & { forkedFrom?: { runId: string; atSeq: number } }): RunRecord =>
  ({
    id: 'run_2',
    goal: 'g',
    mode: 'execute',
    status: 'succeeded',
    step: 'finalize',
    startedBy: 'user:admin',
    origin: 'interactive',
    parentRunId: null,
    depth: 0,
    runtimeState: null,
    sessionId: null,
    capabilityAllowlist: null,
    budgets: {},
    usage: { toolCalls: 3, inputTokens: 100, outputTokens: 20, costUsd: 0.5, modelCalls: 2 },
    checklist: null,
    report: { status: 'succeeded', summary: 'in the library' },
    finalText: null,
    error: null,
    abortRequested: false,
    abortReason: null,
    wakeRequested: false,
    leaseOwner: null,
    leaseExpiresAt: null,
    notBefore: null,
    createdAt: 1_000,
    updatedAt: 9_000,
    startedAt: 2_000,
    endedAt: 7_000,
    ...over,
  }) as RunRecord;

describe('fork comparison rows', () => {
  it('take the model from the forked event, else the runtime state, else the one model of the usage', () => {
    const forked = { fromRunId: 'run_1', atSeq: 8, model: 'model-b', effectsAfter: [] };
    expect(forkComparisonRow(run({}), forked)).toMatchObject({
      model: 'model-b',
      forkedFrom: { runId: 'run_1', atSeq: 8 },
      goalStatus: 'succeeded',
      costUsd: 0.5,
      durationMs: 5_000,
    });
    expect(forkComparisonRow(run({ runtimeState: { model_override: 'model-c' } }), null).model).toBe('model-c');
    const byModel = { 'scripted/model-a': { inputTokens: 1, outputTokens: 1, costUsd: 0, modelCalls: 1 } };
    const usage = { toolCalls: 0, inputTokens: 1, outputTokens: 1, costUsd: 0, modelCalls: 1, byModel };
    expect(forkComparisonRow(run({ usage }), null)).toMatchObject({ model: 'model-a', forkedFrom: null, byModel });
    expect(forkComparisonRow(run({ report: null, endedAt: null }), null)).toMatchObject({
      model: null,
      goalStatus: null,
      durationMs: 7_000,
    });
  });

  it('share a fork point, or warn for each run that is not a fork or forks another point', () => {
    const a = forkComparisonRow(run({ id: 'run_2', forkedFrom: { runId: 'run_1', atSeq: 8 } }), null);
    const b = forkComparisonRow(run({ id: 'run_3', forkedFrom: { runId: 'run_1', atSeq: 8 } }), null);
    const other = forkComparisonRow(run({ id: 'run_4', forkedFrom: { runId: 'run_1', atSeq: 12 } }), null);
    const plain = forkComparisonRow(run({ id: 'run_1' }), null);
    expect(compareForkRows([a, b])).toMatchObject({ forkPoint: { runId: 'run_1', atSeq: 8 }, warnings: [] });
    const mixed = compareForkRows([a, other, plain]);
    expect(mixed.forkPoint).toBeNull();
    expect(mixed.warnings).toEqual(['run_4 was forked from run_1 at 12, not from run_1 at 8', 'run_1 is not a fork']);
    expect(formatForkComparison(mixed)).toMatch(/^runs that do not share a fork point/);
    expect(formatForkComparison(compareForkRows([a, b]))).toMatch(/^forks of run_1 at 8\n/);
  });
});
