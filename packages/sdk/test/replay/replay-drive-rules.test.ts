// The replay drive's pure rules: when a run not ended is replayed far enough, and when a recorded approval decision
// is played (after the steering that preceded it).
import { describe, expect, it } from 'vitest';
import { decisionDue, reachedStoredState } from '../../src/runtime/replay/replay-drive';

const turns = [{ calls: [] }, { calls: [] }];
const done = { playedTurns: 2, steeringLeft: 0, approvalsLeft: 0 };

describe('reachedStoredState', () => {
  it('holds when both wait in the same step with every turn, steering message and decision played', () => {
    expect(
      reachedStoredState(
        { status: 'waiting', step: 'goal_settled', turns },
        { status: 'waiting', step: 'goal_settled' },
        done,
      ),
    ).toBe(true);
    // An older recording without its step: the status is enough.
    expect(reachedStoredState({ status: 'waiting', turns }, { status: 'waiting', step: 'drive' }, done)).toBe(true);
  });

  it('does not hold for an ended stored run, another state, or anything left to play', () => {
    const stored = { status: 'waiting' as const, step: 'goal_settled', turns };
    const waiting = { status: 'waiting' as const, step: 'goal_settled' as const };
    expect(reachedStoredState({ ...stored, status: 'succeeded' }, waiting, done)).toBe(false);
    expect(reachedStoredState(stored, { ...waiting, status: 'running' }, done)).toBe(false);
    expect(reachedStoredState(stored, { ...waiting, step: 'drive' }, done)).toBe(false);
    expect(reachedStoredState(stored, waiting, { ...done, playedTurns: 1 })).toBe(false);
    expect(reachedStoredState(stored, waiting, { ...done, steeringLeft: 1 })).toBe(false);
    expect(reachedStoredState(stored, waiting, { ...done, approvalsLeft: 1 })).toBe(false);
  });
});

describe('decisionDue', () => {
  it('a decision that preceded any steering is due at once, even while the run still runs', () => {
    expect(decisionDue({ afterSteering: 0 }, 0, 'running')).toBe(true);
    expect(decisionDue({}, 0, 'running')).toBe(true);
  });

  it('a decision that came after steering waits for as many applied messages and for the run to wait', () => {
    expect(decisionDue({ afterSteering: 1 }, 0, 'waiting')).toBe(false);
    expect(decisionDue({ afterSteering: 1 }, 1, 'running')).toBe(false);
    expect(decisionDue({ afterSteering: 1 }, 1, 'waiting')).toBe(true);
    expect(decisionDue({ afterSteering: 1 }, 2, 'waiting')).toBe(true);
  });
});
