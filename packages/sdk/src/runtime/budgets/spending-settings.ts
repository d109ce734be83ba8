// The settings of the spending budgets: caps per period, per role, per person and for the household, their
// defaults, and how options and runtime changes merge into them (docs/budgets.md).
import type { ActorRole } from '../../core/actor';
import type { BudgetAmounts, BudgetPeriod } from '../../core/budget-records';
import type { DailyBudgets } from '../run-budgets';

/**
 * The caps of one period, each in its unit: `runs` (runs started), `modelCalls` (model calls), `tokens` (model
 * input + output tokens), `costUsd` (USD). `null`: no cap.
 * @public
 */
export type PeriodCaps = { [K in keyof BudgetAmounts]: number | null };

/** Caps per UTC day and per UTC calendar month. @public */
export interface SpendCaps {
  /** Per UTC day. */
  day: PeriodCaps;
  /** Per UTC calendar month. */
  month: PeriodCaps;
}

/** Some caps of some periods (what is left out is inherited). @public */
export interface SpendCapsPatch {
  /** Per UTC day. */
  day?: Partial<PeriodCaps>;
  /** Per UTC calendar month. */
  month?: Partial<PeriodCaps>;
}

/**
 * The spending budgets with defaults applied: each person's caps come from their role (`admin` or `user`, from
 * the host's identity resolver; API keys and system actors are `user`), overridden field by field by
 * `people[actor]`; every person's spending also counts against `household`.
 * @public
 */
export interface SpendingBudgets {
  /** Caps of every person of a role. */
  roles: Record<ActorRole, SpendCaps>;
  /** Overrides per actor (`user:alice`, `apikey:kids`, `system:job`), on top of the role's caps. */
  people: Record<string, SpendCapsPatch>;
  /** Caps of everyone together. */
  household: SpendCaps;
}

/**
 * The `spending` option, and what {@link BudgetService.update} takes: every field optional, merged over the
 * current settings (a person's override is merged over their previous override; `null` removes a cap).
 * @public
 */
export interface SpendingOptions {
  /** Caps of every person of a role. */
  roles?: Partial<Record<ActorRole, SpendCapsPatch>>;
  /** Overrides per actor. */
  people?: Record<string, SpendCapsPatch>;
  /** Caps of everyone together. */
  household?: SpendCapsPatch;
}

const NONE: PeriodCaps = Object.freeze({ runs: null, modelCalls: null, tokens: null, costUsd: null });

/**
 * The defaults: an ordinary user 20 runs and 2 USD a day, 30 USD a month; an administrator 40 runs and 4 USD a
 * day, 60 USD a month; the household 50 runs and 5 USD a day (the `daily` option's defaults), 100 USD a month.
 * Model calls and tokens have no cap. One person alone never reaches the household's daily caps.
 * @public
 */
export const DEFAULT_SPENDING_BUDGETS: Readonly<SpendingBudgets> = Object.freeze({
  roles: Object.freeze({
    user: Object.freeze({
      day: Object.freeze({ ...NONE, runs: 20, costUsd: 2 }),
      month: Object.freeze({ ...NONE, costUsd: 30 }),
    }),
    admin: Object.freeze({
      day: Object.freeze({ ...NONE, runs: 40, costUsd: 4 }),
      month: Object.freeze({ ...NONE, costUsd: 60 }),
    }),
  }),
  people: Object.freeze({}),
  household: Object.freeze({
    day: Object.freeze({ ...NONE, runs: 50, costUsd: 5 }),
    month: Object.freeze({ ...NONE, costUsd: 100 }),
  }),
}) as Readonly<SpendingBudgets>;

const PERIODS: readonly BudgetPeriod[] = ['day', 'month'];
const AMOUNTS: ReadonlyArray<keyof BudgetAmounts> = ['runs', 'modelCalls', 'tokens', 'costUsd'];

/** `caps` with `patch` applied field by field. */
export function applyCaps(caps: SpendCaps, patch: SpendCapsPatch | undefined): SpendCaps {
  return {
    day: { ...caps.day, ...definedOf(patch?.day) },
    month: { ...caps.month, ...definedOf(patch?.month) },
  };
}

/** Two patches as one (`then` wins field by field). */
export function mergePatches(first: SpendCapsPatch | undefined, then: SpendCapsPatch | undefined): SpendCapsPatch {
  const out: SpendCapsPatch = {};
  for (const p of PERIODS) {
    const merged = { ...definedOf(first?.[p]), ...definedOf(then?.[p]) };
    if (Object.keys(merged).length > 0) out[p] = merged;
  }
  return out;
}

function definedOf(caps: Partial<PeriodCaps> | undefined): Partial<PeriodCaps> {
  const out: Partial<PeriodCaps> = {};
  for (const k of AMOUNTS) if (caps?.[k] !== undefined) out[k] = caps[k];
  return out;
}

/**
 * `settings` with `change` merged over it (a pure function).
 * @param settings - the current settings
 * @param change - what changes
 */
export function mergeSpending(settings: SpendingBudgets, change: SpendingOptions): SpendingBudgets {
  const people: Record<string, SpendCapsPatch> = { ...settings.people };
  for (const [actor, patch] of Object.entries(change.people ?? {})) people[actor] = mergePatches(people[actor], patch);
  return {
    roles: {
      admin: applyCaps(settings.roles.admin, change.roles?.admin),
      user: applyCaps(settings.roles.user, change.roles?.user),
    },
    people,
    household: applyCaps(settings.household, change.household),
  };
}

/**
 * The settings from the options: the defaults, the `daily` option as the household's daily run and cost caps
 * (`agentMaxRunsPerDay`, `agentMaxCostUsdPerDay`), then the `spending` option over them.
 * @param spending - the `runs.spending` option
 * @param daily - the `runs.daily` option as given (only what the host set overrides the household's defaults)
 */
export function resolveSpending(spending: SpendingOptions | undefined, daily?: Partial<DailyBudgets>): SpendingBudgets {
  const fromDaily: SpendCapsPatch = {
    day: {
      ...(daily?.agentMaxRunsPerDay !== undefined ? { runs: daily.agentMaxRunsPerDay } : {}),
      ...(daily?.agentMaxCostUsdPerDay !== undefined ? { costUsd: daily.agentMaxCostUsdPerDay } : {}),
    },
  };
  const base = mergeSpending(DEFAULT_SPENDING_BUDGETS as SpendingBudgets, { household: fromDaily });
  return mergeSpending(base, spending ?? {});
}

/**
 * Why `change` is not a valid {@link SpendingOptions}, or null: unknown fields, roles other than `admin` and
 * `user`, people keys that are not `user:`, `apikey:` or `system:` actors, caps that are not `null` or a
 * non-negative finite number (`runs`, `modelCalls`, `tokens`: integers).
 * @param change - the value to check
 * @returns a message naming the field, or null
 */
export function spendingProblem(change: unknown): string | null {
  if (!isObject(change)) return 'must be an object';
  const extra = Object.keys(change).find((k) => !['roles', 'people', 'household'].includes(k));
  if (extra) return `unknown field ${JSON.stringify(extra)}`;
  const c = change as Record<string, unknown>;
  if (c.roles !== undefined) {
    if (!isObject(c.roles)) return 'roles must be an object';
    for (const [role, patch] of Object.entries(c.roles)) {
      if (role !== 'admin' && role !== 'user') return `roles: unknown role ${JSON.stringify(role)} (admin or user)`;
      const problem = patchProblem(patch);
      if (problem) return `roles.${role}: ${problem}`;
    }
  }
  if (c.people !== undefined) {
    if (!isObject(c.people)) return 'people must be an object keyed by actor';
    for (const [actor, patch] of Object.entries(c.people)) {
      if (!/^(user|apikey|system):.+/.test(actor))
        return `people: ${JSON.stringify(actor)} is not a user:, apikey: or system: actor`;
      const problem = patchProblem(patch);
      if (problem) return `people[${JSON.stringify(actor)}]: ${problem}`;
    }
  }
  if (c.household !== undefined) {
    const problem = patchProblem(c.household);
    if (problem) return `household: ${problem}`;
  }
  return null;
}

function patchProblem(patch: unknown): string | null {
  if (!isObject(patch)) return 'must be an object with day and/or month';
  for (const [period, caps] of Object.entries(patch)) {
    if (period !== 'day' && period !== 'month') return `unknown period ${JSON.stringify(period)} (day or month)`;
    if (!isObject(caps)) return `${period} must be an object`;
    for (const [name, value] of Object.entries(caps)) {
      if (!(AMOUNTS as readonly string[]).includes(name))
        return `${period}: unknown cap ${JSON.stringify(name)} (runs, modelCalls, tokens, costUsd)`;
      if (value === null) continue;
      const ok =
        typeof value === 'number' &&
        Number.isFinite(value) &&
        value >= 0 &&
        (name === 'costUsd' || Number.isInteger(value));
      if (!ok)
        return `${period}.${name} must be null or a non-negative ${name === 'costUsd' ? 'number' : 'integer'}; got ${String(value)}`;
    }
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Two changes as one (`then` wins field by field): what is stored after two runtime updates.
 * @param first - the earlier change
 * @param then - the later change
 */
export function mergeSpendingOptions(first: SpendingOptions, then: SpendingOptions): SpendingOptions {
  const out: SpendingOptions = {};
  const roles: Partial<Record<ActorRole, SpendCapsPatch>> = {};
  for (const role of ['admin', 'user'] as const) {
    if (first.roles?.[role] === undefined && then.roles?.[role] === undefined) continue;
    roles[role] = mergePatches(first.roles?.[role], then.roles?.[role]);
  }
  if (Object.keys(roles).length > 0) out.roles = roles;
  const people: Record<string, SpendCapsPatch> = { ...(first.people ?? {}) };
  for (const [actor, patch] of Object.entries(then.people ?? {})) people[actor] = mergePatches(people[actor], patch);
  if (Object.keys(people).length > 0) out.people = people;
  if (first.household !== undefined || then.household !== undefined)
    out.household = mergePatches(first.household, then.household);
  return out;
}
