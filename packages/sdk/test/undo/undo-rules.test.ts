// The pure rules of host.undo (src/runtime/undo/undo-rules.ts): target shape, order, what each ledger entry means,
// who may undo, the inverse's scope and the outcome.
import { describe, expect, it } from 'vitest';
import {
  effectPerformer,
  inverseTaskId,
  isInverseCall,
  mayUndo,
  parseUndoTarget,
  undoOrder,
  undoPlanOf,
  undoStatus,
} from '../../src/runtime/undo/undo-rules';
import { undoFailedDecision } from '../../src/runtime/undo/undo-decision';

describe('parseUndoTarget', () => {
  it('takes exactly one of invocationId or runId', () => {
    expect(parseUndoTarget({ invocationId: 'inv_1' })).toEqual({ invocationId: 'inv_1' });
    expect(parseUndoTarget({ runId: 'run_1' })).toEqual({ runId: 'run_1' });
  });
  it.each([
    [null, /no object/],
    ['inv_1', /no object/],
    [[], /no object/],
    [{}, /neither/],
    [{ invocationId: 'a', runId: 'b' }, /both/],
    [{ invocationId: 'a', planId: 'p' }, /unknown field planId/],
    [{ invocationId: '' }, /non-empty string/],
    [{ runId: '   ' }, /non-empty string/],
    [{ runId: 7 }, /non-empty string/],
    [{ runId: 'x'.repeat(201) }, /at most 200/],
  ])('refuses %j with UNDO_REQUEST_INVALID', (value, message) => {
    expect(() => parseUndoTarget(value)).toThrow(message);
    try {
      parseUndoTarget(value);
    } catch (error) {
      expect(error).toMatchObject({ code: 'UNDO_REQUEST_INVALID' });
    }
  });
});

describe('undoOrder', () => {
  it('is newest claim first, ties by key descending, and leaves its input alone', () => {
    const entries = [
      { key: 'a', claimedAt: 1 },
      { key: 'b', claimedAt: 3 },
      { key: 'c', claimedAt: 2 },
      { key: 'd', claimedAt: 3 },
    ];
    expect(undoOrder(entries).map((e) => e.key)).toEqual(['d', 'b', 'c', 'a']);
    expect(entries.map((e) => e.key)).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('undoPlanOf', () => {
  const inverse = { capability: 'files.restore', input: (o: unknown) => o };
  const registered: Record<string, { kind: 'read' | 'execute'; inverse?: typeof inverse }> = {
    'files.move': { kind: 'execute', inverse },
    'files.delete': { kind: 'execute' },
    'files.list': { kind: 'read' },
    'files.restore': { kind: 'execute' },
    'files.broken': { kind: 'execute', inverse: { capability: 'files.gone', input: (o: unknown) => o } },
  };
  const lookup = (id: string) => registered[id];
  const entry = (capabilityId: string, state: string, taskId: string | null = null) =>
    ({ capabilityId, state, taskId, scopeId: taskId ?? 'run_1' }) as Parameters<typeof undoPlanOf>[0];

  it('undoes succeeded and pending calls whose capability declares a registered inverse', () => {
    expect(undoPlanOf(entry('files.move', 'succeeded'), lookup)).toMatchObject({
      kind: 'undo',
      inverseCapabilityId: 'files.restore',
    });
    expect(undoPlanOf(entry('files.move', 'pending'), lookup)).toMatchObject({ kind: 'undo' });
  });
  it('skips failed calls, reads and inverses of an earlier undo', () => {
    expect(undoPlanOf(entry('files.move', 'failed'), lookup)).toEqual({ kind: 'skip', why: 'not_applied' });
    expect(undoPlanOf(entry('files.list', 'succeeded'), lookup)).toEqual({ kind: 'skip', why: 'read' });
    expect(undoPlanOf(entry('files.restore', 'succeeded', inverseTaskId('k')), lookup)).toEqual({
      kind: 'skip',
      why: 'inverse_call',
    });
  });
  it('lists unknown outcomes, running calls, unregistered capabilities and missing inverses as not undoable', () => {
    const reason = (capabilityId: string, state: string) => {
      const plan = undoPlanOf(entry(capabilityId, state), lookup);
      return plan.kind === 'not_undoable' ? plan.reason : plan.kind;
    };
    expect(reason('files.move', 'unknown')).toBe('outcome_unknown');
    expect(reason('files.move', 'running')).toBe('in_progress');
    expect(reason('files.vanished', 'succeeded')).toBe('capability_unknown');
    expect(reason('files.delete', 'succeeded')).toBe('no_inverse');
    expect(reason('files.broken', 'succeeded')).toBe('inverse_not_registered');
  });
});

describe('who may undo', () => {
  it('a person undoes their own effects; a run’s effects are its owner’s; administrators undo anyone’s', () => {
    expect(effectPerformer('user:alice', undefined)).toBe('user:alice');
    expect(effectPerformer('agent:run_1', 'user:alice')).toBe('user:alice');
    expect(effectPerformer('agent:run_gone', undefined)).toBe('agent:run_gone');
    expect(effectPerformer('apikey:ci', undefined)).toBe('apikey:ci');
    expect(mayUndo('user:alice', 'user:alice', false)).toBe(true);
    expect(mayUndo('user:alice', 'user:bob', false)).toBe(false);
    expect(mayUndo('user:alice', 'user:admin', true)).toBe(true);
    expect(mayUndo('apikey:ci', 'user:bob', false)).toBe(false);
  });
});

describe('the inverse scope', () => {
  it('is a stable task id per undone entry, short enough for any key, and marks the inverse call', () => {
    const long = `download.submit:v1:${'r'.repeat(200)}:${'a'.repeat(64)}`;
    expect(inverseTaskId(long)).toBe(inverseTaskId(long));
    expect(inverseTaskId(long)).not.toBe(inverseTaskId(`${long}x`));
    expect(inverseTaskId(long)).toMatch(/^undo:[0-9a-f]{64}$/);
    expect(isInverseCall({ taskId: inverseTaskId(long), scopeId: inverseTaskId(long) })).toBe(true);
    expect(isInverseCall({ taskId: null, scopeId: 'run_1' })).toBe(false);
    expect(isInverseCall({ taskId: 'nightly', scopeId: 'nightly' })).toBe(false);
  });
});

describe('undoStatus', () => {
  it('names the outcome', () => {
    expect(undoStatus('failed', 3, 1)).toBe('failed');
    expect(undoStatus('denied', 0, 0)).toBe('denied');
    expect(undoStatus(undefined, 2, 1)).toBe('partial');
    expect(undoStatus(undefined, 0, 1)).toBe('partial');
    expect(undoStatus(undefined, 2, 0)).toBe('undone');
    expect(undoStatus(undefined, 0, 0)).toBe('nothing_to_undo');
  });
});

describe('undoFailedDecision', () => {
  const step = {
    invocationId: 'inv_2',
    capabilityId: 'files.tag',
    idempotencyKey: 'files.tag:v1:run_1:abc',
    inverseCapabilityId: 'files.untag',
    status: 'failed' as const,
    result: null,
    error: { code: 'UNDO_INVERSE_INVALID', message: 'input(output) threw' },
  };
  it('is about the run when there is one, else the invocation, one per undone effect', () => {
    const onRun = undoFailedDecision({
      undoId: 'undo_1',
      target: { invocationId: 'inv_2' },
      actor: 'user:admin',
      step,
      runId: 'run_1',
      notAttempted: [],
    });
    expect(onRun).toMatchObject({
      kind: 'undo_failed',
      subject: { type: 'run', id: 'run_1' },
      raisedBy: 'system:undo',
      dedupeKey: 'undo_failed:files.tag:v1:run_1:abc',
      evidence: { undoId: 'undo_1', error: { code: 'UNDO_INVERSE_INVALID' }, notAttemptedCount: 0 },
    });
    const alone = undoFailedDecision({
      undoId: 'undo_1',
      target: { invocationId: 'inv_2' },
      actor: 'user:admin',
      step,
      runId: null,
      notAttempted: [
        { invocationId: 'inv_1', capabilityId: 'files.move', idempotencyKey: 'k', inverseCapabilityId: 'r' },
      ],
    });
    expect(alone.subject).toEqual({ type: 'invocation', id: 'inv_2' });
    expect(alone.reason).toMatch(/1 older effect\(s\) were not undone/);
  });
});
