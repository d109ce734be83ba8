import { describe, expect, it } from 'vitest';
import {
  continuesHolderJob,
  intentEntity,
  intentFor,
  intentHolds,
  intentJoin,
  isIntentHolder,
  joinMessage,
} from '../../src/capabilities/intent-join';
import type { IntentRecord } from '../../src/core/intent-records';

const T = 1_700_000_000_000;
const HOLD = { holdMs: 6 * 3_600_000, directHoldMs: 15 * 60_000 };
const held = (o: Partial<IntentRecord> = {}): IntentRecord => ({
  key: 'tmdb:1|download',
  mediaEntityId: 'tmdb:1',
  effectClass: 'download',
  holderRunId: 'run-a',
  holderActor: 'user:alice',
  capabilityId: 'download.plan',
  planId: 'plan-1',
  createdAt: T,
  expiresAt: T + HOLD.holdMs,
  ...o,
});

describe('intent rules (capabilities/intent-join.ts)', () => {
  it('the entity is the target’s, else the named plan’s; none without either', () => {
    expect(intentEntity({ mediaEntityId: 'tmdb:1' }, undefined)).toBe('tmdb:1');
    expect(intentEntity({ planId: 'p' }, { mediaEntityId: 'tmdb:2' })).toBe('tmdb:2');
    expect(intentEntity({ mediaEntityId: 'tmdb:1', planId: 'p' }, { mediaEntityId: 'tmdb:2' })).toBe('tmdb:1');
    expect(intentEntity({ planId: 'p' }, { mediaEntityId: null })).toBeUndefined();
    expect(intentEntity({ planId: 'p' }, undefined)).toBeUndefined();
    expect(intentEntity({}, { mediaEntityId: 'tmdb:2' })).toBeUndefined();
    expect(intentEntity({ mediaEntityId: '' }, undefined)).toBeUndefined();
  });

  it('a run holds for holdMs, a caller outside runs for directHoldMs; the plan a call executes is recorded', () => {
    const call = { capabilityId: 'download.submit', mediaEntityId: 'tmdb:1', effectClass: 'download', planId: 'p' };
    expect(intentFor({ runId: 'run-a', lineage: ['run-a'], actor: 'user:alice' }, call, T, HOLD)).toEqual(
      held({ capabilityId: 'download.submit', planId: 'p' }),
    );
    expect(
      intentFor({ runId: undefined, lineage: [], actor: 'user:bob' }, { ...call, planId: undefined }, T, HOLD),
    ).toEqual(
      held({
        holderRunId: null,
        holderActor: 'user:bob',
        capabilityId: 'download.submit',
        planId: null,
        expiresAt: T + HOLD.directHoldMs,
      }),
    );
  });

  it('the holder is the same run or its subagent; outside runs the same actor; anyone else joins', () => {
    const run = held();
    expect(isIntentHolder(run, { runId: 'run-a', lineage: ['run-a'], actor: 'user:alice' })).toBe(true);
    expect(isIntentHolder(run, { runId: 'sub', lineage: ['sub', 'run-a'], actor: 'user:alice' })).toBe(true);
    expect(isIntentHolder(run, { runId: 'run-b', lineage: ['run-b'], actor: 'user:alice' })).toBe(false);
    // The same person's direct call while their run holds it joins too.
    expect(isIntentHolder(run, { runId: undefined, lineage: [], actor: 'user:alice' })).toBe(false);
    const direct = held({ holderRunId: null, holderActor: 'user:bob' });
    expect(isIntentHolder(direct, { runId: undefined, lineage: [], actor: 'user:bob' })).toBe(true);
    expect(isIntentHolder(direct, { runId: undefined, lineage: [], actor: 'user:carol' })).toBe(false);
    expect(isIntentHolder(direct, { runId: 'run-b', lineage: ['run-b'], actor: 'user:bob' })).toBe(false);
  });

  it('executing the holder’s own plan continues its job; any other plan, or none, does not', () => {
    expect(continuesHolderJob(held(), 'plan-1')).toBe(true);
    expect(continuesHolderJob(held(), 'plan-2')).toBe(false);
    expect(continuesHolderJob(held(), undefined)).toBe(false);
    expect(continuesHolderJob(held({ planId: null }), 'plan-1')).toBe(false);
  });

  it('a hold lapses at its expiry instant', () => {
    expect(intentHolds(held(), T + HOLD.holdMs - 1)).toBe(true);
    expect(intentHolds(held(), T + HOLD.holdMs)).toBe(false);
  });

  it('the join carries the run status, what a waiting run waits for, and the plan; the message names run and person', () => {
    const join = intentJoin(held(), { status: 'waiting', report: { status: 'waiting', summary: 'download 40% done' } });
    expect(join).toEqual({
      runId: 'run-a',
      actor: 'user:alice',
      planId: 'plan-1',
      runStatus: 'waiting',
      waitingFor: 'download 40% done',
      effectClass: 'download',
      mediaEntityId: 'tmdb:1',
      capabilityId: 'download.plan',
      expiresAt: T + HOLD.holdMs,
    });
    expect(joinMessage('download.plan', join)).toBe(
      'already in progress by run run-a (for alice): waiting (download 40% done), plan plan-1. download.plan did not run and no second download job was created for tmdb:1; tell the person it is under way (follow it with task.inspect) instead of starting another.',
    );
    const running = intentJoin(held({ planId: null }), { status: 'running', report: null });
    expect(running.waitingFor).toBeUndefined();
    expect(joinMessage('download.plan', running)).toMatch(
      /^already in progress by run run-a \(for alice\): running\. /,
    );
    const direct = intentJoin(held({ holderRunId: null, holderActor: 'apikey:ci' }), undefined);
    expect(direct.runStatus).toBeNull();
    expect(joinMessage('download.submit', direct)).toMatch(
      /^already in progress by apikey:ci \(a direct request, outside runs\): requested directly, plan plan-1\. /,
    );
  });
});
