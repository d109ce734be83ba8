// The rule that decides whether a model call is reserved (its own commit) before it is sent.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSpend } from '../../src/runtime/budgets/cap-check';
import { reservationNeeded } from '../../src/runtime/budgets/reservation-needed';
import type { SpendCaps } from '../../src/runtime/budgets/spending-settings';

const none = { runs: null, modelCalls: null, tokens: null, costUsd: null };
const caps = (person: Partial<SpendCaps['day']> = {}, household: Partial<SpendCaps['day']> = {}) => ({
  person: { day: { ...none, ...person }, month: { ...none } },
  household: { day: { ...none, ...household }, month: { ...none } },
});
const call = (tokens: number, costUsd: number) => ({ runs: 0, modelCalls: 1, tokens, costUsd });

describe('reservationNeeded', () => {
  it('is false when no cap limits an amount the call costs: an unpriced model under cost caps only', () => {
    expect(reservationNeeded(caps({ runs: 40, costUsd: 4 }, { runs: 50, costUsd: 5 }), call(9000, 0))).toBe(false);
    expect(reservationNeeded(caps(), call(9000, 0.2))).toBe(false);
  });

  it('is true when a cap limits the cost, the tokens or the model calls of the call', () => {
    expect(reservationNeeded(caps({ costUsd: 4 }), call(9000, 0.01))).toBe(true);
    expect(reservationNeeded(caps({}, { tokens: 1_000_000 }), call(9000, 0))).toBe(true);
    expect(reservationNeeded(caps({ modelCalls: 100 }), call(0, 0))).toBe(true);
  });

  it('never skips a reservation that checkSpend could refuse (property)', () => {
    const cap = fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: null });
    const period = fc.record({ runs: cap, modelCalls: cap, tokens: cap, costUsd: cap });
    const used = fc.double({ min: 0, max: 200, noNaN: true });
    const counters = fc.record({ runs: used, modelCalls: used, tokens: used, costUsd: used });
    fc.assert(
      fc.property(
        period,
        period,
        counters,
        fc.nat(50),
        fc.double({ min: 0, max: 50, noNaN: true }),
        (p, h, c, tokens, cost) => {
          const limits = { person: { day: p, month: { ...none } }, household: { day: h, month: { ...none } } };
          const worst = call(tokens, cost);
          const usage = {
            person: { day: { subject: 'user:a', ...c }, month: { subject: 'user:a', ...c } },
            household: { day: { subject: 'household', ...c }, month: { subject: 'household', ...c } },
          } as never;
          if (!reservationNeeded(limits, worst)) expect(checkSpend(usage, limits, worst, 0)).toBeNull();
        },
      ),
    );
  });
});
