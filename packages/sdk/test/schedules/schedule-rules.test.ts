// The pure rules of schedules: the host option, the budgets (defaults, caps, run budgets), the definition checks and
// the access rules.
import { describe, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost } from '../../src/index';
import {
  DEFAULT_SCHEDULE_DAILY_CAPS,
  DEFAULT_SCHEDULE_OPTIONS,
  checkScheduleBudgets,
  resolveScheduleOptions,
  scheduleDailyCaps,
  scheduleRunBudgets,
} from '../../src/operations';
import {
  forbiddenScheduleCapabilities,
  listedScheduleOwner,
  mayCreateScheduleFor,
  mayManageSchedule,
} from '../../src/runtime/schedules/schedule-access';
import {
  checkScheduleChange,
  checkScheduleCreate,
  sameScheduleDefinition,
} from '../../src/runtime/schedules/schedule-definition';
import type { CapabilityDescriptor } from '../../src/index';

const NOW = Date.UTC(2026, 5, 1, 12);
const RULES = { minIntervalMs: 60_000 };

describe('the schedules option', () => {
  it('defaults to enabled, 1 s polls, 60 s grace, 60 s minimum interval, 20 per poll', () => {
    expect(resolveScheduleOptions()).toEqual({
      enabled: true,
      pollMs: 1_000,
      graceMs: 60_000,
      minIntervalMs: 60_000,
      maxPerPoll: 20,
    });
    expect(resolveScheduleOptions({ enabled: false, minIntervalMs: 1_000, graceMs: 0 })).toEqual({
      ...DEFAULT_SCHEDULE_OPTIONS,
      enabled: false,
      minIntervalMs: 1_000,
      graceMs: 0,
    });
  });

  it.each<[unknown, string]>([
    ['fast', 'schedules'],
    [{ enabled: 'yes' }, 'schedules.enabled'],
    [{ pollMs: 0 }, 'schedules.pollMs'],
    [{ pollMs: 1.5 }, 'schedules.pollMs'],
    [{ graceMs: -1 }, 'schedules.graceMs'],
    [{ minIntervalMs: 0 }, 'schedules.minIntervalMs'],
    [{ maxPerPoll: 1001 }, 'schedules.maxPerPoll'],
    [{ maxPerPoll: Number.NaN }, 'schedules.maxPerPoll'],
    [{ pollMS: 5 }, 'schedules.pollMS'],
  ])('refuses %j with OPTIONS_INVALID naming %s', (value, option) => {
    expect(() => resolveScheduleOptions(value)).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option } }),
    );
  });

  it('is refused by createAgentHost with the path, and a misspelt name with the one meant', () => {
    const make = (schedules: unknown) => () =>
      createAgentHost({ logger: new ConsoleLogger('silent'), schedules: schedules as never });
    expect(make({ minIntervalMs: -5 })).toThrow(
      expect.objectContaining({ details: { option: 'schedules.minIntervalMs' } }),
    );
    expect(make({ pollMS: 5 })).toThrow(/did you mean schedules\.pollMs/);
    expect(make({ pollMs: 250 })).not.toThrow();
  });
});

describe('schedule budgets', () => {
  it('gives 48 runs and 1 USD a day by default; null removes a cap', () => {
    expect(DEFAULT_SCHEDULE_DAILY_CAPS).toEqual({ maxRunsPerDay: 48, maxCostUsdPerDay: 1 });
    expect(scheduleDailyCaps({})).toEqual({ maxRunsPerDay: 48, maxCostUsdPerDay: 1 });
    expect(scheduleDailyCaps(null)).toEqual({ maxRunsPerDay: 48, maxCostUsdPerDay: 1 });
    expect(scheduleDailyCaps({ maxRunsPerDay: 3, maxCostUsdPerDay: null })).toEqual({
      maxRunsPerDay: 3,
      maxCostUsdPerDay: null,
    });
    expect(scheduleDailyCaps({ maxRunsPerDay: 0 })).toEqual({ maxRunsPerDay: 0, maxCostUsdPerDay: 1 });
  });

  it("gives each run only the schedule's run budgets (the host's fill the rest)", () => {
    expect(scheduleRunBudgets({ maxRunsPerDay: 5, maxToolCalls: 10, maxCostUsdPerRun: null })).toEqual({
      maxToolCalls: 10,
      maxCostUsdPerRun: null,
    });
    expect(scheduleRunBudgets({})).toEqual({});
  });

  it('checks every field and refuses what is not a non-negative finite number (or null where it means no cap)', () => {
    expect(checkScheduleBudgets({ maxRunsPerDay: null, maxToolCalls: 0, maxCostUsdPerDay: 0.25 })).toEqual({
      maxRunsPerDay: null,
      maxToolCalls: 0,
      maxCostUsdPerDay: 0.25,
    });
    for (const [budgets, field] of [
      [[], 'budgets'],
      [{ maxDurationSec: null }, 'budgets.maxDurationSec'],
      [{ maxTokensPerRun: -1 }, 'budgets.maxTokensPerRun'],
      [{ maxCostUsdPerRun: Number.NaN }, 'budgets.maxCostUsdPerRun'],
      [{ maxRunsPerDay: 2.5 }, 'budgets.maxRunsPerDay'],
      [{ toString: 1 }, 'budgets.toString'],
    ] as const)
      expect(() => checkScheduleBudgets(budgets)).toThrow(
        expect.objectContaining({ code: 'SCHEDULE_INVALID', details: expect.objectContaining({ field }) }),
      );
  });
});

describe('schedule definitions', () => {
  const base = { actor: 'user:alice', cron: '0 3 * * *', goal: 'g' };

  it('applies the defaults (UTC, execute, skip, no allowlist, no budgets, active)', () => {
    expect(checkScheduleCreate(base, RULES, NOW)).toEqual({
      actor: 'user:alice',
      owner: 'user:alice',
      clientKey: null,
      paused: false,
      definition: {
        cron: '0 3 * * *',
        everyMs: null,
        timezone: 'UTC',
        goal: 'g',
        mode: 'execute',
        capabilityAllowlist: null,
        budgets: {},
        missed: 'skip',
      },
    });
  });

  it('refuses a cron expression with a year that has passed (no next tick)', () => {
    expect(() => checkScheduleCreate({ ...base, cron: '0 0 0 1 1 * 2020' }, RULES, NOW)).toThrow(/never ticks/);
  });

  it('compares definitions without regard to allowlist order or budget key order', () => {
    const a = checkScheduleCreate(
      { ...base, capabilityAllowlist: ['a', 'b'], budgets: { maxToolCalls: 1, maxRunsPerDay: 2 } },
      RULES,
      NOW,
    ).definition;
    const b = checkScheduleCreate(
      { ...base, capabilityAllowlist: ['b', 'a'], budgets: { maxRunsPerDay: 2, maxToolCalls: 1 } },
      RULES,
      NOW,
    ).definition;
    expect(sameScheduleDefinition(a, b)).toBe(true);
    expect(sameScheduleDefinition(a, { ...b, missed: 'catch_up_one' })).toBe(false);
  });

  it('merges a change: cron replaces an interval and the reverse; only a timing change reports timingChanged', () => {
    const current = checkScheduleCreate(base, RULES, NOW).definition;
    expect(checkScheduleChange({ everyMs: 120_000 }, current, RULES, NOW)).toEqual({
      definition: { ...current, cron: null, everyMs: 120_000 },
      timingChanged: true,
    });
    expect(checkScheduleChange({ goal: 'other', missed: 'catch_up_one' }, current, RULES, NOW)).toEqual({
      definition: { ...current, goal: 'other', missed: 'catch_up_one' },
      timingChanged: false,
    });
    expect(checkScheduleChange({ timezone: 'Asia/Tokyo' }, current, RULES, NOW).timingChanged).toBe(true);
    expect(() => checkScheduleChange({ everyMs: 1_000 }, current, RULES, NOW)).toThrow(
      expect.objectContaining({ code: 'SCHEDULE_INVALID', details: expect.objectContaining({ field: 'everyMs' }) }),
    );
  });
});

describe('schedule access', () => {
  const schedule = { owner: 'user:alice' };

  it('lets the owner, an administrator and the host manage a schedule; nobody else', () => {
    expect(mayManageSchedule(schedule, 'user:alice', 'user')).toBe(true);
    expect(mayManageSchedule(schedule, 'user:admin', 'admin')).toBe(true);
    expect(mayManageSchedule(schedule, undefined, 'user')).toBe(true);
    expect(mayManageSchedule(schedule, 'user:bob', 'user')).toBe(false);
    expect(mayManageSchedule(schedule, 'apikey:ci', 'admin')).toBe(false); // only a person is ever an administrator
  });

  it('lets a person create for themselves, an administrator for anyone', () => {
    expect(mayCreateScheduleFor('user:alice', 'user:alice', 'user')).toBe(true);
    expect(mayCreateScheduleFor('system:nightly', 'user:admin', 'admin')).toBe(true);
    expect(mayCreateScheduleFor('user:bob', 'user:alice', 'user')).toBe(false);
  });

  it('lists an ordinary user only their own, an administrator whatever owner was asked for', () => {
    expect(listedScheduleOwner('user:alice', 'user', undefined)).toBe('user:alice');
    expect(listedScheduleOwner('user:alice', 'user', 'user:bob')).toBeNull();
    expect(listedScheduleOwner('user:admin', 'admin', 'user:bob')).toBe('user:bob');
    expect(listedScheduleOwner('user:admin', 'admin', undefined)).toBeUndefined();
    expect(listedScheduleOwner(undefined, 'user', undefined)).toBeUndefined();
  });

  it('forbids unknown, admin-only (for a non-administrator) and, in plan_only, execute and approve capabilities', () => {
    const caps: Record<string, Pick<CapabilityDescriptor, 'id' | 'kind' | 'adminOnly'>> = {
      read: { id: 'read', kind: 'read' },
      admin: { id: 'admin', kind: 'read', adminOnly: true },
      exec: { id: 'exec', kind: 'execute' },
      approve: { id: 'approve', kind: 'approve' },
      propose: { id: 'propose', kind: 'propose' },
    };
    const describe = (id: string) => caps[id] as CapabilityDescriptor | undefined;
    const ids = ['read', 'admin', 'exec', 'approve', 'propose', 'ghost'];
    expect(forbiddenScheduleCapabilities(ids, 'execute', 'user', describe)).toEqual([
      { id: 'admin', reason: 'admin_only' },
      { id: 'ghost', reason: 'unknown' },
    ]);
    expect(forbiddenScheduleCapabilities(ids, 'plan_only', 'admin', describe)).toEqual([
      { id: 'exec', reason: 'mode' },
      { id: 'approve', reason: 'mode' },
      { id: 'ghost', reason: 'unknown' },
    ]);
  });
});
