// The spending rules as pure functions: periods, caps per person, the cap check, the worst case of a call, the
// settings and their changes (docs/budgets.md).
import { describe, expect, it } from 'vitest';
import type { BudgetCounters } from '../../src/core/budget-records';
import { periodEnd, periodStart } from '../../src/runtime/budgets/budget-periods';
import { checkSpend } from '../../src/runtime/budgets/cap-check';
import { capsFor } from '../../src/runtime/budgets/caps-for';
import { modelCallKey, runStartKey } from '../../src/runtime/budgets/reservation-key';
import {
  DEFAULT_SPENDING_BUDGETS,
  mergeSpending,
  mergeSpendingOptions,
  resolveSpending,
  spendingProblem,
} from '../../src/runtime/budgets/spending-settings';
import { spentOf, worstCaseOf } from '../../src/runtime/budgets/worst-case';

const counters = (subject: string, period: 'day' | 'month', used: Partial<BudgetCounters> = {}): BudgetCounters => ({
  subject,
  period,
  start: 0,
  runs: 0,
  modelCalls: 0,
  tokens: 0,
  costUsd: 0,
  ...used,
});
const usage = (person: Partial<BudgetCounters> = {}, household: Partial<BudgetCounters> = {}) => ({
  person: { day: counters('user:alice', 'day', person), month: counters('user:alice', 'month', person) },
  household: { day: counters('household', 'day', household), month: counters('household', 'month', household) },
});
const call = { runs: 0, modelCalls: 1, tokens: 1000, costUsd: 0.01 };
const NOW = Date.UTC(2026, 10, 30, 12);

describe('spending rules', () => {
  it('periods: a UTC day ends at the next UTC midnight, a month at the first of the next month (December rolls into January)', () => {
    expect(periodStart('day', NOW)).toBe(Date.UTC(2026, 10, 30));
    expect(periodEnd('day', NOW)).toBe(Date.UTC(2026, 11, 1));
    expect(periodStart('month', NOW)).toBe(Date.UTC(2026, 10, 1));
    expect(periodEnd('month', NOW)).toBe(Date.UTC(2026, 11, 1));
    expect(periodEnd('month', Date.UTC(2026, 11, 31, 23))).toBe(Date.UTC(2027, 0, 1));
  });

  it("a person's caps are their role's, overridden field by field by their own entry; another person's entry never applies", () => {
    const settings = mergeSpending(DEFAULT_SPENDING_BUDGETS, { people: { 'user:alice': { day: { costUsd: 0.5 } } } });
    expect(capsFor(settings, 'user:alice', 'user').person.day).toEqual({
      runs: 20,
      modelCalls: null,
      tokens: null,
      costUsd: 0.5,
    });
    expect(capsFor(settings, 'user:bob', 'user').person.day.costUsd).toBe(2);
    expect(capsFor(settings, 'user:root', 'admin').person.day.runs).toBe(40);
    expect(capsFor(settings, 'apikey:kids', 'user').person).toEqual(DEFAULT_SPENDING_BUDGETS.roles.user);
    expect(capsFor(settings, 'user:alice', 'user').household).toEqual(DEFAULT_SPENDING_BUDGETS.household);
  });

  it('the check admits what fits exactly and refuses the first cap passed, naming whose, which period and amount, limit, used and requested', () => {
    const caps = {
      person: {
        day: { runs: null, modelCalls: 3, tokens: null, costUsd: 0.05 },
        month: DEFAULT_SPENDING_BUDGETS.roles.user.month,
      },
      household: DEFAULT_SPENDING_BUDGETS.household,
    };
    expect(checkSpend(usage({ modelCalls: 2, costUsd: 0.04 }), caps, call, NOW)).toBeNull();
    expect(checkSpend(usage({ modelCalls: 3 }), caps, call, NOW)).toEqual({
      scope: 'person',
      subject: 'user:alice',
      period: 'day',
      budget: 'modelCalls',
      limit: 3,
      used: 3,
      requested: 1,
      resetsAt: Date.UTC(2026, 11, 1),
    });
    expect(checkSpend(usage({ costUsd: 0.045 }), caps, call, NOW)).toMatchObject({ budget: 'costUsd', used: 0.045 });
    expect(checkSpend(usage({}, { costUsd: 4.995 }), caps, call, NOW)).toMatchObject({
      scope: 'household',
      subject: 'household',
      period: 'day',
      budget: 'costUsd',
      limit: 5,
    });
    // A zero amount is never refused (a run's start asks for no model call; a call for no run).
    expect(
      checkSpend(
        usage({ runs: 99 }),
        { ...caps, person: { ...caps.person, day: { ...caps.person.day, runs: 1 } } },
        call,
        NOW,
      ),
    ).toBeNull();
  });

  it("the worst case of a call is its estimated input plus its max output tokens, priced with the model's price (0 USD unpriced); the settlement is the reported usage", () => {
    expect(worstCaseOf(1000, 500, { input: 2, output: 10 })).toEqual({
      runs: 0,
      modelCalls: 1,
      tokens: 1500,
      costUsd: (1000 * 2 + 500 * 10) / 1e6,
    });
    expect(worstCaseOf(10.2, 1, undefined)).toEqual({ runs: 0, modelCalls: 1, tokens: 12, costUsd: 0 });
    expect(spentOf({ inputTokens: 40, outputTokens: 2, costUsd: 0.001 })).toEqual({
      runs: 0,
      modelCalls: 1,
      tokens: 42,
      costUsd: 0.001,
    });
  });

  it('reservation keys are deterministic per run, turn and attempt, and one per run for its start', () => {
    expect(modelCallKey('run-1', 4, 0)).toBe('run-1:call:4:0');
    expect(modelCallKey('run-1', 4, 1)).not.toBe(modelCallKey('run-1', 4, 0));
    expect(runStartKey('run-1')).toBe('run-1:start');
  });

  it("the daily option is the household's daily run and cost caps; the spending option wins over it; defaults stay when neither is set", () => {
    expect(resolveSpending(undefined).household.day).toEqual({ runs: 50, modelCalls: null, tokens: null, costUsd: 5 });
    expect(resolveSpending(undefined, { agentMaxRunsPerDay: 3 }).household.day).toMatchObject({ runs: 3, costUsd: 5 });
    expect(
      resolveSpending({ household: { day: { runs: 7 } } }, { agentMaxRunsPerDay: 3, agentMaxCostUsdPerDay: 1 })
        .household.day,
    ).toMatchObject({ runs: 7, costUsd: 1 });
    expect(resolveSpending({ roles: { user: { month: { tokens: 10 } } } }).roles.user.month.tokens).toBe(10);
  });

  it('changes merge over earlier changes field by field, and null removes a cap', () => {
    const stored = mergeSpendingOptions(
      { people: { 'user:alice': { day: { costUsd: 1, runs: 2 } } } },
      { people: { 'user:alice': { day: { costUsd: null } } }, household: { month: { costUsd: 9 } } },
    );
    expect(stored).toEqual({
      people: { 'user:alice': { day: { costUsd: null, runs: 2 } } },
      household: { month: { costUsd: 9 } },
    });
    expect(capsFor(mergeSpending(DEFAULT_SPENDING_BUDGETS, stored), 'user:alice', 'user').person.day).toMatchObject({
      costUsd: null,
      runs: 2,
    });
  });

  it('malformed settings are named: unknown fields, roles, periods and caps, non-actor people keys, negative or fractional counts', () => {
    expect(spendingProblem({ household: { day: { runs: 5 } } })).toBeNull();
    expect(spendingProblem(null)).toMatch(/object/);
    expect(spendingProblem({ houshold: {} })).toMatch(/unknown field "houshold"/);
    expect(spendingProblem({ roles: { owner: {} } })).toMatch(/unknown role "owner"/);
    expect(spendingProblem({ people: { alice: {} } })).toMatch(/not a user:, apikey: or system: actor/);
    expect(spendingProblem({ people: { 'agent:run-1': {} } })).toMatch(/not a user:/);
    expect(spendingProblem({ household: { week: {} } })).toMatch(/unknown period "week"/);
    expect(spendingProblem({ household: { day: { dollars: 1 } } })).toMatch(/unknown cap "dollars"/);
    expect(spendingProblem({ household: { day: { runs: -1 } } })).toMatch(
      /day.runs must be null or a non-negative integer/,
    );
    expect(spendingProblem({ household: { day: { runs: 1.5 } } })).toMatch(/integer/);
    expect(spendingProblem({ household: { day: { costUsd: Number.NaN } } })).toMatch(/costUsd/);
    expect(spendingProblem({ household: { day: { costUsd: 0.25 } } })).toBeNull();
  });
});
