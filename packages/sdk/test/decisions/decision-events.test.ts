import { describe, expect, it } from 'vitest';
import { decisionEventData, decisionStream } from '../../src/runtime/decisions/decision-events';
import { decisionRecord } from './decision-fixtures';

describe('decision events', () => {
  it('go to the run a decision is about, else to a stream named by the decision', () => {
    expect(decisionStream(decisionRecord({ subjectType: 'run', subjectId: 'run_7' }))).toBe('run_7');
    expect(decisionStream(decisionRecord({ id: 'dec_9', subjectType: 'download' }))).toBe('dec_9');
  });

  it('carry the decision’s facts and the actor; the run only when there is one', () => {
    const d = decisionRecord({ status: 'awaiting_user', revision: 3 });
    expect(decisionEventData(d, 'user:ann')).toEqual({
      decisionId: 'dec_1',
      kind: 'download_failed',
      status: 'awaiting_user',
      subjectType: 'download',
      subjectId: 'd1',
      revision: 3,
      actor: 'user:ann',
    });
    expect(decisionEventData(d, 'system:auto-recover', 'run_2')).toMatchObject({ runId: 'run_2' });
    expect(decisionEventData(d, 'user:ann', '')).not.toHaveProperty('runId');
  });
});
