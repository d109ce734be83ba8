import { describe, expect, it } from 'vitest';
import { checkDecisionFilter } from '../../src/runtime/decisions/decision-filter';

describe('checkDecisionFilter', () => {
  it('accepts no filter and every known field', () => {
    expect(() => checkDecisionFilter(undefined)).not.toThrow();
    expect(() => checkDecisionFilter(null)).not.toThrow();
    expect(() => checkDecisionFilter({})).not.toThrow();
    expect(() =>
      checkDecisionFilter({ status: 'awaiting_user', subjectId: 'd1', kind: 'k', rootCause: 'r' }),
    ).not.toThrow();
    expect(() => checkDecisionFilter({ status: undefined })).not.toThrow();
  });

  it('refuses what would silently list nothing', () => {
    const refused = (filter: unknown, message: RegExp) =>
      expect(() => checkDecisionFilter(filter)).toThrow(
        expect.objectContaining({ code: 'DECISION_INVALID', message: expect.stringMatching(message) }),
      );
    refused('open', /must be an object/);
    refused(['open'], /must be an object/);
    refused({ staus: 'open' }, /unknown decision filter field "staus"/);
    refused({ kind: 3 }, /kind must be a string/);
    refused({ status: 'opened' }, /unknown decision status "opened"/);
  });
});
