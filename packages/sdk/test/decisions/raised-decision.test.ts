import { describe, expect, it } from 'vitest';
import { raisedDecisionRecord, type RaiseDecisionInput } from '../../src/runtime/decisions/raised-decision';
import { registryOf } from './decision-fixtures';

const recheckInput = {
  type: 'object',
  properties: { downloadId: { type: 'string' } },
  required: ['downloadId'],
  additionalProperties: false,
};

function context(overrides: { maxInputBytes?: number } = {}) {
  let ids = 0;
  return {
    capabilities: registryOf(['download.recheck'], { input: recheckInput }),
    maxInputBytes: overrides.maxInputBytes ?? 1000,
    now: () => 42,
    nextId: () => `dec_${++ids}`,
    taken: () => ids,
  };
}

const input = (overrides: Partial<RaiseDecisionInput> = {}): RaiseDecisionInput => ({
  kind: 'download_failed',
  subject: { type: 'download', id: 'd1' },
  reason: 'failed twice',
  raisedBy: 'system:host',
  ...overrides,
});

describe('raisedDecisionRecord', () => {
  it('builds an open record at revision 1 with the default keys', () => {
    const ctx = context();
    expect(raisedDecisionRecord(input({ evidence: { tries: 2 } }), ctx)).toEqual({
      id: 'dec_1',
      kind: 'download_failed',
      dedupeKey: 'download_failed:download:d1',
      subjectType: 'download',
      subjectId: 'd1',
      rootCause: 'download_failed:d1',
      status: 'open',
      reason: 'failed twice',
      evidence: { tries: 2 },
      options: [],
      raisedBy: 'system:host',
      resolvedBy: null,
      resolution: null,
      revision: 1,
      createdAt: 42,
      updatedAt: 42,
      resolvedAt: null,
    });
  });

  it('keeps given keys and copies the options and evidence', () => {
    const options = [
      { id: 'recheck', label: 'Recheck', capabilityId: 'download.recheck', input: { downloadId: 'd1' } },
    ];
    const evidence = { nested: { a: 1 } };
    const record = raisedDecisionRecord(input({ options, evidence, dedupeKey: 'k', rootCause: 'r' }), context());
    expect(record).toMatchObject({ dedupeKey: 'k', rootCause: 'r', options });
    expect(record.options[0]).not.toBe(options[0]);
    expect(record.evidence).toEqual(evidence);
    expect(record.evidence).not.toBe(evidence);
  });

  it('takes no id for an invalid decision', () => {
    const ctx = context();
    expect(() => raisedDecisionRecord(input({ kind: 'Bad Kind' }), ctx)).toThrow(/kind must match/);
    expect(ctx.taken()).toBe(0);
  });

  it('refuses each malformed field with DECISION_INVALID', () => {
    const cases: [Partial<RaiseDecisionInput> | null, RegExp][] = [
      [{ kind: 'x'.repeat(65) }, /kind/],
      [{ subject: { type: '', id: 'd1' } }, /subject/],
      [{ subject: { type: 'download', id: 'x'.repeat(201) } }, /subject/],
      [{ reason: '   ' }, /reason/],
      [{ reason: 'x'.repeat(2001) }, /reason/],
      [{ evidence: [] as never }, /evidence must be a JSON object/],
      [{ evidence: { big: 'x'.repeat(1000) } }, /larger than 1000 bytes/],
      [{ options: Array.from({ length: 21 }, (_, i) => ({ id: `o${i}`, label: 'l' })) }, /at most 20/],
      [{ options: [{ id: 'a b', label: 'l' }] }, /every option needs an id/],
      [
        {
          options: [
            { id: 'a', label: 'l' },
            { id: 'a', label: 'm' },
          ],
        },
        /option id a is used twice/,
      ],
      [{ options: [{ id: 'a', label: '' }] }, /option a needs a label/],
      [{ options: [{ id: 'a', label: 'l', capabilityId: 'nope' }] }, /not registered/],
      [
        { options: [{ id: 'a', label: 'l', capabilityId: 'download.recheck', input: {} }] },
        /its input is not valid for download\.recheck/,
      ],
      [{ dedupeKey: '' }, /dedupeKey must be/],
      [{ rootCause: 'x'.repeat(501) }, /rootCause must be/],
    ];
    for (const [patch, message] of cases) {
      const thrown = (() => {
        try {
          raisedDecisionRecord(input(patch ?? {}), context());
        } catch (error) {
          return error as { code?: string; message: string };
        }
        return undefined;
      })();
      expect(thrown?.code, String(message)).toBe('DECISION_INVALID');
      expect(thrown?.message).toMatch(message);
    }
  });

  it('refuses a non-object and an unknown raiser', () => {
    expect(() => raisedDecisionRecord(null as never, context())).toThrow(/must be an object/);
    expect(() => raisedDecisionRecord(input({ raisedBy: 'nobody' }), context())).toThrow(
      expect.objectContaining({ code: 'ACTOR_INVALID' }),
    );
  });

  it('counts evidence in UTF-8 bytes, not characters', () => {
    // 4 characters of 3 bytes each: 12 bytes plus the JSON around them
    const evidence = { t: '界界界界' };
    const bytes = new TextEncoder().encode(JSON.stringify(evidence)).length;
    expect(() => raisedDecisionRecord(input({ evidence }), context({ maxInputBytes: bytes }))).not.toThrow();
    expect(() => raisedDecisionRecord(input({ evidence }), context({ maxInputBytes: bytes - 1 }))).toThrow(/larger/);
  });
});
