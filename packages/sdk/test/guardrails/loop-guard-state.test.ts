import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  emptyLoopGuardState,
  LoopGuardStateError,
  parseLoopGuardState,
  type LoopGuardState,
} from '../../src/runtime/guardrails/loop-guard-state';

const stateArb: fc.Arbitrary<LoopGuardState> = fc.record({
  version: fc.constant(1 as const),
  sameCallFailures: fc.dictionary(fc.string(), fc.nat()),
  progressSinceFailure: fc.array(fc.string()),
  toolFailures: fc.dictionary(fc.string(), fc.nat()),
  sameResults: fc.dictionary(fc.string(), fc.record({ fingerprint: fc.string(), count: fc.nat() })),
  streak: fc.option(fc.record({ key: fc.string(), count: fc.nat() }), { nil: null }),
  history: fc.array(fc.record({ key: fc.string(), poll: fc.boolean() })),
  searches: fc.nat(),
  subagents: fc.nat(),
  continuations: fc.nat(),
  stopped: fc.option(
    fc.record({
      code: fc.constantFrom('LOOP_CYCLE' as const, 'LOOP_SEARCH_CAP' as const),
      reason: fc.string(),
      count: fc.nat(),
    }),
    { nil: null },
  ),
  blockedInARow: fc.nat(),
});

describe('loop guard state', () => {
  it('the empty state is a valid state with nothing counted', () => {
    const s = emptyLoopGuardState();
    expect(parseLoopGuardState(s)).toEqual(s);
    expect(s).toMatchObject({
      searches: 0,
      subagents: 0,
      continuations: 0,
      stopped: null,
      streak: null,
      blockedInARow: 0,
    });
    expect(emptyLoopGuardState()).not.toBe(s);
  });

  it('a JSON round trip of any state parses back to it, sharing nothing with the input', () => {
    fc.assert(
      fc.property(stateArb, (state) => {
        const stored = JSON.parse(JSON.stringify(state)) as LoopGuardState;
        const parsed = parseLoopGuardState(stored);
        expect(parsed).toEqual(stored);
        if (parsed.history.length > 0) expect(parsed.history[0]).not.toBe(stored.history[0]);
        expect(parsed.sameResults).not.toBe(stored.sameResults);
      }),
    );
  });

  it('an older state without blockedInARow counts 0 refusals', () => {
    const { blockedInARow: _, ...older } = emptyLoopGuardState();
    expect(parseLoopGuardState(older).blockedInARow).toBe(0);
  });

  it('names what is wrong', () => {
    const bad = (patch: Record<string, unknown>) => () => parseLoopGuardState({ ...emptyLoopGuardState(), ...patch });
    expect(() => parseLoopGuardState(null)).toThrow(/not an object/);
    expect(() => parseLoopGuardState([])).toThrow(LoopGuardStateError);
    expect(bad({ version: 2 })).toThrow(/unsupported version 2/);
    expect(bad({ toolFailures: { t: -1 } })).toThrow(/toolFailures must map keys to counts/);
    expect(bad({ searches: 1.5 })).toThrow(/searches must be a non-negative integer/);
    expect(bad({ progressSinceFailure: [1] })).toThrow(/progressSinceFailure/);
    expect(bad({ sameResults: { k: { fingerprint: 1, count: 1 } } })).toThrow(/sameResults/);
    expect(bad({ streak: { key: 'k' } })).toThrow(/streak/);
    expect(bad({ history: [{ key: 'k' }] })).toThrow(/history/);
    expect(bad({ stopped: { code: 'NOT_A_CODE', reason: '', count: 0 } })).toThrow(/stopped/);
    expect(bad({ blockedInARow: 'x' })).toThrow(/blockedInARow/);
    try {
      bad({ version: 0 })();
    } catch (error) {
      expect((error as LoopGuardStateError).code).toBe('LOOP_GUARD_STATE_INVALID');
    }
  });
});
