// The retention rules (resolveRetention, retentionCriteria), the maintenance schedule's options and its next fire
// time (croner): pure functions, and their refusal at createAgentHost naming the path.
import { describe, expect, it } from 'vitest';
import { createAgentHost } from '../../src/index';
import {
  DEFAULT_MAINTENANCE_SCHEDULE,
  DEFAULT_RETENTION,
  nextFireTime,
  RETENTION_KINDS,
  resolveMaintenanceOptions,
  resolveRetention,
  retentionCriteria,
} from '../../src/operations';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1, 12);

describe('resolveRetention', () => {
  it('defaults keep a NAS small and the run reports forever', () => {
    const r = resolveRetention(undefined);
    expect(r).toEqual(DEFAULT_RETENTION);
    expect(r.runs).toEqual({ maxAgeDays: 90, maxCount: 0 });
    expect(r.runReports).toEqual({ maxAgeDays: 0, maxCount: 0 });
    expect(r.audit.maxAgeDays).toBe(730);
    for (const k of ['approvals', 'plans', 'decisions', 'grantUsage'] as const) expect(r[k].maxAgeDays).toBe(180);
    expect(r.ledger).toEqual({ maxAgeDays: 0, maxCount: 0 });
    expect(r.scheduleTicks).toEqual({ maxAgeDays: 90, maxCount: 0 });
    expect(Object.keys(r).sort()).toEqual([...RETENTION_KINDS].sort());
  });

  it('a bare number is maxAgeDays; a rule replaces the default as a whole; 0 keeps forever', () => {
    const r = resolveRetention({ audit: 365, decisions: { maxCount: 1000 }, runs: 0, plans: { maxAgeDays: 0.5 } });
    expect(r.audit).toEqual({ maxAgeDays: 365, maxCount: 0 });
    expect(r.decisions).toEqual({ maxAgeDays: 0, maxCount: 1000 });
    expect(r.runs).toEqual({ maxAgeDays: 0, maxCount: 0 });
    expect(r.plans.maxAgeDays).toBe(0.5);
    expect(r.approvals).toEqual(DEFAULT_RETENTION.approvals);
  });

  it('ledgerRetentionMs keeps its meaning: it sets the ledger age limit when retention.ledger is absent', () => {
    expect(resolveRetention(undefined, 7 * DAY).ledger).toEqual({ maxAgeDays: 7, maxCount: 0 });
    expect(resolveRetention({ ledger: 30 }, 0).ledger.maxAgeDays).toBe(30);
    expect(() => resolveRetention({ ledger: 30 }, DAY)).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option: 'retention.ledger' } }),
    );
  });

  it.each<[unknown, string]>([
    [{ runs: -1 }, 'retention.runs'],
    [{ runs: Number.NaN }, 'retention.runs'],
    [{ audit: { maxAgeDays: -5 } }, 'retention.audit.maxAgeDays'],
    [{ audit: { maxAgeDays: Number.POSITIVE_INFINITY } }, 'retention.audit.maxAgeDays'],
    [{ audit: { maxAgeDays: '30' } }, 'retention.audit.maxAgeDays'],
    [{ plans: { maxCount: 1.5 } }, 'retention.plans.maxCount'],
    [{ plans: { maxCount: Number.NaN } }, 'retention.plans.maxCount'],
    [{ plans: { maxAge: 3 } }, 'retention.plans.maxAge'],
    [{ plans: '30' }, 'retention.plans'],
    [{ events: 30 }, 'retention.events'],
    [{ history: 30 }, 'retention.history'],
    ['90', 'retention'],
    [{ plans: { maxCount: 1e300 } }, 'retention.plans.maxCount'],
    [{ plans: { maxCount: 2 ** 63 } }, 'retention.plans.maxCount'],
    [{ plans: { maxCount: 2 ** 31 } }, 'retention.plans.maxCount'],
    [{ audit: { maxAgeDays: 1e12 } }, 'retention.audit.maxAgeDays'],
    [{ audit: 36_501 }, 'retention.audit'],
    [{ grantUsage: { maxCount: 10 } }, 'retention.grantUsage.maxCount'],
    [{ scheduleTicks: -1 }, 'retention.scheduleTicks'],
    [{ scheduleTicks: { maxCount: 2.5 } }, 'retention.scheduleTicks.maxCount'],
    [{ scheduleTicks: { maxAgeDays: 36_501 } }, 'retention.scheduleTicks.maxAgeDays'],
    [{ scheduleTicks: { keep: 1 } }, 'retention.scheduleTicks.keep'],
  ])('refuses %j with OPTIONS_INVALID naming %s', (options, option) => {
    expect(() => resolveRetention(options)).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option } }),
    );
  });

  it('accepts the largest limits (100 years, 2^31 − 1 items) and grantUsage by age; messages show the real type', () => {
    const r = resolveRetention({
      audit: { maxAgeDays: 36_500, maxCount: 2 ** 31 - 1 },
      grantUsage: { maxAgeDays: 30, maxCount: 0 },
    });
    expect(r.audit).toEqual({ maxAgeDays: 36_500, maxCount: 2 ** 31 - 1 });
    expect(r.grantUsage).toEqual({ maxAgeDays: 30, maxCount: 0 });
    expect(() => resolveRetention({ grantUsage: { maxCount: 10 } })).toThrow(/per day and per budget period/);
    expect(() => resolveRetention({ audit: { maxCount: '5' } })).toThrow(/got "5" \(a string\)/);
    expect(() => resolveRetention({ audit: { maxCount: null } })).toThrow(/got null$/);
    expect(() => resolveRetention({ audit: null })).toThrow(/got null$/);
  });

  it('scheduleTicks takes a bare number of days and a per-schedule maxCount; 0 keeps the records forever', () => {
    expect(resolveRetention({ scheduleTicks: 30 }).scheduleTicks).toEqual({ maxAgeDays: 30, maxCount: 0 });
    expect(resolveRetention({ scheduleTicks: { maxCount: 500 } }).scheduleTicks).toEqual({
      maxAgeDays: 0,
      maxCount: 500,
    });
    const off = resolveRetention({ scheduleTicks: 0 }).scheduleTicks;
    expect(off).toEqual({ maxAgeDays: 0, maxCount: 0 });
    expect(retentionCriteria(off, NOW)).toBeUndefined();
  });

  it('createAgentHost refuses a bad retention before anything is built, naming the path', () => {
    expect(() => createAgentHost({ retention: { audit: { maxAgeDays: -1 } } })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option: 'retention.audit.maxAgeDays' } }),
    );
    expect(() => createAgentHost({ retention: { history: 30 } as never })).toThrow(/retentionDays/);
    expect(() => createAgentHost({ maintenance: { schedule: { hour: 24 } } })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option: 'maintenance.schedule.hour' } }),
    );
  });
});

describe('retentionCriteria', () => {
  it('turns days into a cut-off on the given clock, counts into keepNewest; kept-forever kinds give none', () => {
    expect(retentionCriteria({ maxAgeDays: 90, maxCount: 0 }, NOW)).toEqual({ now: NOW, before: NOW - 90 * DAY });
    expect(retentionCriteria({ maxAgeDays: 0, maxCount: 10 }, NOW)).toEqual({ now: NOW, keepNewest: 10 });
    expect(retentionCriteria({ maxAgeDays: 1, maxCount: 5 }, NOW)).toEqual({
      now: NOW,
      before: NOW - DAY,
      keepNewest: 5,
    });
    expect(retentionCriteria({ maxAgeDays: 0, maxCount: 0 }, NOW)).toBeUndefined();
  });
});

describe('maintenance options and the next fire time', () => {
  it('defaults to daily at 04:00 local time, polled every minute; false turns it off', () => {
    expect(resolveMaintenanceOptions(undefined)).toEqual({ schedule: DEFAULT_MAINTENANCE_SCHEDULE, pollMs: 60_000 });
    expect(resolveMaintenanceOptions({ schedule: false }).schedule).toBe(false);
    expect(
      resolveMaintenanceOptions({ schedule: { hour: 2, minute: 30, timezone: 'Europe/Berlin' }, pollMs: 5 }),
    ).toEqual({ schedule: { hour: 2, minute: 30, timezone: 'Europe/Berlin' }, pollMs: 5 });
  });

  it.each<[unknown, string]>([
    [{ schedule: { hour: -1 } }, 'maintenance.schedule.hour'],
    [{ schedule: { hour: 4.5 } }, 'maintenance.schedule.hour'],
    [{ schedule: { hour: 4, minute: 60 } }, 'maintenance.schedule.minute'],
    [{ schedule: { hour: 4, timezone: 'Nowhere/Atlantis' } }, 'maintenance.schedule.timezone'],
    [{ schedule: { hour: 4, second: 1 } }, 'maintenance.schedule.second'],
    [{ schedule: 'daily' }, 'maintenance.schedule'],
    [{ pollMs: 0 }, 'maintenance.pollMs'],
    [{ every: 1 }, 'maintenance.every'],
  ])('refuses %j naming %s', (options, option) => {
    expect(() => resolveMaintenanceOptions(options)).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option } }),
    );
  });

  it('fires daily at the hour in the time zone, strictly after the given time, across daylight saving time', () => {
    const berlin = { hour: 4, timezone: 'Europe/Berlin' };
    // 2026-03-28 05:00 UTC is after 04:00 in Berlin (UTC+1): next is the 29th, the day clocks go to UTC+2.
    expect(new Date(nextFireTime(berlin, Date.UTC(2026, 2, 28, 5))).toISOString()).toBe('2026-03-29T02:00:00.000Z');
    expect(new Date(nextFireTime(berlin, Date.UTC(2026, 2, 29, 2))).toISOString()).toBe('2026-03-30T02:00:00.000Z');
    const utc = { hour: 4, minute: 15, timezone: 'UTC' };
    expect(nextFireTime(utc, Date.UTC(2026, 0, 1, 4, 14))).toBe(Date.UTC(2026, 0, 1, 4, 15));
    expect(nextFireTime(utc, Date.UTC(2026, 0, 1, 4, 15))).toBe(Date.UTC(2026, 0, 2, 4, 15));
  });
});
