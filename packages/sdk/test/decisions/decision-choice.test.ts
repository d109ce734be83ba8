import { describe, expect, it } from 'vitest';
import { MediaAgentError } from '../../src/core/errors';
import type { DecisionRefusedChoice } from '../../src/core/run-records';
import {
  capabilityExecution,
  choiceExecution,
  chosenDecision,
  dismissedDecision,
  executedDecision,
  thrownInvocationResult,
} from '../../src/runtime/decisions/decision-choice';
import { decisionRecord } from './decision-fixtures';

describe('a person’s choice', () => {
  it('resolves the decision by the chooser, the execution not recorded yet; notes are cut to 2000', () => {
    const d = chosenDecision(decisionRecord(), 'recheck', 'user:ann', 'x'.repeat(2500), 50);
    expect(d).toMatchObject({ status: 'resolved', resolvedBy: 'user:ann', resolvedAt: 50 });
    expect(d.resolution?.optionId).toBe('recheck');
    expect(d.resolution?.execution).toBeNull();
    expect(d.resolution?.note).toHaveLength(2000);
    expect(chosenDecision(decisionRecord(), 'a', 'user:ann', 42, 50).resolution?.note).toBeNull();
  });

  it('a dismissal closes it with no option and nothing executed', () => {
    expect(dismissedDecision(decisionRecord(), 'user:admin', undefined, 60)).toMatchObject({
      status: 'dismissed',
      resolvedBy: 'user:admin',
      resolvedAt: 60,
      resolution: { optionId: null, note: null, execution: { kind: 'none' } },
    });
  });
});

describe('executing the chosen option', () => {
  it('records the result’s parts that are present', () => {
    expect(
      capabilityExecution('download.recheck', {
        status: 'succeeded',
        output: { ok: true },
        invocationId: 'inv_1',
        idempotencyKey: 'k',
      } as never),
    ).toEqual({
      kind: 'capability',
      capabilityId: 'download.recheck',
      status: 'succeeded',
      output: { ok: true },
      invocationId: 'inv_1',
      idempotencyKey: 'k',
    });
    const failed = thrownInvocationResult(new Error('socket closed'));
    expect(failed).toEqual({
      status: 'failed',
      error: { code: 'DRIVER_FAILED', message: 'socket closed' },
      invocationId: '',
    });
    expect(capabilityExecution('c', failed)).toEqual({
      kind: 'capability',
      capabilityId: 'c',
      status: 'failed',
      error: { code: 'DRIVER_FAILED', message: 'socket closed' },
    });
    expect(thrownInvocationResult(new MediaAgentError('ADMIN_FORBIDDEN', 'no')).error?.code).toBe('ADMIN_FORBIDDEN');
  });

  it('a success is recorded on the resolution', () => {
    const d = chosenDecision(decisionRecord(), 'a', 'user:ann', undefined, 5);
    const { next, change } = executedDecision(d, { kind: 'none' }, undefined);
    expect(change).toBe('executed');
    expect(next).toMatchObject({ status: 'resolved', resolution: { optionId: 'a', execution: { kind: 'none' } } });
  });

  it('a denied or failed choice goes back to a person, replacing an earlier refusal', () => {
    const earlier = { optionId: 'a', actor: 'user:bob', at: 1 } as unknown as DecisionRefusedChoice;
    const d = chosenDecision(
      decisionRecord({ evidence: { keep: 1, deniedChoice: earlier as never } }),
      'a',
      'user:ann',
      undefined,
      5,
    );
    const refused = (status: 'denied' | 'failed'): DecisionRefusedChoice => ({
      kind: 'capability',
      capabilityId: 'c',
      status,
      optionId: 'a',
      actor: 'user:ann',
      at: 6,
    });
    const denied = executedDecision(d, { kind: 'none' }, refused('denied'));
    expect(denied.change).toBe('choice_denied');
    expect(denied.next).toMatchObject({
      status: 'awaiting_user',
      resolvedBy: null,
      resolvedAt: null,
      resolution: null,
    });
    expect(denied.next.evidence).toEqual({ keep: 1, deniedChoice: refused('denied') });
    const failed = executedDecision(d, { kind: 'none' }, refused('failed'));
    expect(failed.change).toBe('choice_failed');
    expect(failed.next.evidence).toEqual({ keep: 1, failedChoice: refused('failed') });
  });

  it('a chooser is told the execution, or the refusal kept in the evidence', () => {
    const resolved = decisionRecord({
      status: 'resolved',
      resolution: { optionId: 'a', note: null, execution: { kind: 'none' } },
    });
    expect(choiceExecution(resolved)).toEqual({ kind: 'none' });
    expect(choiceExecution({ ...resolved, resolution: { optionId: 'a', note: null, execution: null } })).toBeNull();
    const denied = { status: 'denied' };
    const failed = { status: 'failed' };
    expect(
      choiceExecution(
        decisionRecord({ status: 'awaiting_user', evidence: { deniedChoice: denied, failedChoice: failed } }),
      ),
    ).toEqual(denied);
    expect(choiceExecution(decisionRecord({ status: 'awaiting_user', evidence: { failedChoice: failed } }))).toEqual(
      failed,
    );
    expect(choiceExecution(decisionRecord({ status: 'awaiting_user', evidence: null }))).toBeNull();
  });
});
