import { describe, expect, it } from 'vitest';
import {
  noGrantSuggestion,
  recoverSuggestion,
  withRecheckOption,
} from '../../src/runtime/decisions/recovery-suggestions';
import { decisionRecord, registryOf } from './decision-fixtures';

describe('recovery suggestions', () => {
  it('offers a ready recheck of a download decision when download.recheck is registered', () => {
    const d = decisionRecord({ options: [{ id: 'ignore', label: 'Ignore' }] });
    expect(withRecheckOption(d, registryOf(['download.recheck']))).toEqual([
      { id: 'ignore', label: 'Ignore' },
      {
        id: 'recheck',
        label: 'Force a recheck of download d1',
        capabilityId: 'download.recheck',
        input: { downloadId: 'd1', action: 'recheck' },
      },
    ]);
  });

  it('offers nothing new for another subject, without the capability, or when a recheck is offered', () => {
    const d = decisionRecord();
    expect(withRecheckOption({ ...d, subjectType: 'release' }, registryOf(['download.recheck']))).toBe(d.options);
    expect(withRecheckOption(d, registryOf([]))).toBe(d.options);
    const offered = decisionRecord({ options: [{ id: 'recheck', label: 'mine' }] });
    expect(withRecheckOption(offered, registryOf(['download.recheck']))).toBe(offered.options);
  });

  it('tells a person what to do when no grant allows a recovery', () => {
    expect(noGrantSuggestion({ kind: 'identity_ambiguous', subjectId: 'x' })).toMatch(/identity\.resolve/);
    expect(noGrantSuggestion({ kind: 'download_stalled', subjectId: 'd9' })).toMatch(/recheck of download d9/);
  });

  it('names a denial first, then each outcome', () => {
    expect(recoverSuggestion('failed', true)).toMatch(/was denied/);
    const texts = ['failed', 'timed_out', 'over_budget', 'no_action', 'run_failed'].map((o) =>
      recoverSuggestion(o, false),
    );
    expect(new Set(texts).size).toBe(5);
    expect(texts[1]).toMatch(/did not move again/);
    expect(texts[4]).toMatch(/without a verified recovery/);
  });
});
