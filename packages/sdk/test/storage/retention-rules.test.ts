import { describe, expect, it } from 'vitest';
import {
  auditPrefixLength,
  budgetPeriodEnd,
  isApprovalLive,
  isApprovalPrunable,
  isLedgerEntryLive,
  isLedgerEntryPrunable,
  isPlanPrunable,
  isRunPrunable,
  ledgerEntryBlocksRun,
  runIdOfActor,
  scheduleTickFloor,
  scheduleTicksKept,
  selectForPrune,
  selectScheduleTicks,
} from '../../src/storage/retention-rules';

const notLive = { liveLedgerEntry: false, openDecision: false, activeChild: false };

describe('retention rules', () => {
  it('isRunPrunable: terminal with an end time, not pruned (runs), not live', () => {
    expect(isRunPrunable({ status: 'succeeded', endedAt: 1 }, notLive)).toBe(true);
    expect(isRunPrunable({ status: 'running', endedAt: 1 }, notLive)).toBe(false);
    expect(isRunPrunable({ status: 'failed', endedAt: null }, notLive)).toBe(false);
    expect(isRunPrunable({ status: 'failed', endedAt: 1, prunedAt: 2 }, notLive)).toBe(false);
    expect(isRunPrunable({ status: 'failed', endedAt: 1, prunedAt: 2 }, notLive, 'runReports')).toBe(true);
    for (const fact of ['liveLedgerEntry', 'openDecision', 'activeChild'] as const)
      expect(isRunPrunable({ status: 'cancelled', endedAt: 1 }, { ...notLive, [fact]: true })).toBe(false);
  });

  it('approvals: live until decided or expired; never while a live ledger entry names them', () => {
    expect(isApprovalLive({ status: 'approved', expiresAt: 10 }, 10)).toBe(true);
    expect(isApprovalLive({ status: 'approved', expiresAt: 9 }, 10)).toBe(false);
    expect(isApprovalPrunable({ status: 'requested', expiresAt: 9 }, 10, false)).toBe(true);
    expect(isApprovalPrunable({ status: 'requested', expiresAt: 10 }, 10, false)).toBe(false);
    expect(isApprovalPrunable({ status: 'consumed', expiresAt: 99 }, 10, false)).toBe(true);
    expect(isApprovalPrunable({ status: 'consumed', expiresAt: 99 }, 10, true)).toBe(false);
  });

  it('plans: kept while any approval row remains or the creating run (agent:<runId>) is not terminal', () => {
    expect(runIdOfActor('agent:run-1')).toBe('run-1');
    expect(runIdOfActor('user:alice')).toBeUndefined();
    expect(isPlanPrunable(false, false)).toBe(true);
    expect(isPlanPrunable(true, false)).toBe(false);
    expect(isPlanPrunable(false, true)).toBe(false);
  });

  it('ledger: settled entries of a live run stay; pending keeps approvals live but does not block its run', () => {
    expect(isLedgerEntryPrunable({ state: 'succeeded', settledAt: 1 })).toBe(true);
    expect(isLedgerEntryPrunable({ state: 'succeeded', settledAt: 1 }, true)).toBe(false);
    expect(isLedgerEntryPrunable({ state: 'pending', settledAt: 1 })).toBe(false);
    expect(isLedgerEntryLive({ state: 'pending' })).toBe(true);
    expect(ledgerEntryBlocksRun({ state: 'pending' })).toBe(false);
    expect(ledgerEntryBlocksRun({ state: 'running' })).toBe(true);
    expect(ledgerEntryBlocksRun({ state: 'unknown' })).toBe(true);
  });

  it('budgetPeriodEnd: the next UTC day, or the first day of the next UTC month (December rolls over)', () => {
    expect(budgetPeriodEnd('day', Date.UTC(2027, 0, 31))).toBe(Date.UTC(2027, 1, 1));
    expect(budgetPeriodEnd('month', Date.UTC(2027, 1, 1))).toBe(Date.UTC(2027, 2, 1));
    expect(budgetPeriodEnd('month', Date.UTC(2027, 11, 1))).toBe(Date.UTC(2028, 0, 1));
  });

  it('selectForPrune: older than before and beyond the newest keepNewest, oldest first, ties by key', () => {
    const items = [
      { age: 3, key: 'c' },
      { age: 1, key: 'b' },
      { age: 1, key: 'a' },
      { age: 5, key: 'd' },
    ];
    expect(selectForPrune(items, { now: 9 }).map((i) => i.key)).toEqual(['a', 'b', 'c', 'd']);
    expect(selectForPrune(items, { now: 9, before: 3 }).map((i) => i.key)).toEqual(['a', 'b']);
    expect(selectForPrune(items, { now: 9, keepNewest: 3 }).map((i) => i.key)).toEqual(['a']);
    expect(selectForPrune(items, { now: 9, keepNewest: 9 })).toEqual([]);
  });

  it('auditPrefixLength: a prefix older than min(before, now), before the newest keepNewest non-checkpoint rows', () => {
    const row = (seq: number, at: number, checkpoint = false) => ({ seq, at, checkpoint });
    const rows = [row(1, 1), row(2, 2), row(3, 9), row(4, 1), row(5, 2, true)];
    expect(auditPrefixLength(rows, { now: 5 })).toBe(2);
    expect(auditPrefixLength(rows, { now: 50 })).toBe(5);
    expect(auditPrefixLength(rows, { now: 50, keepNewest: 1 })).toBe(3);
    expect(auditPrefixLength(rows, { now: 50, keepNewest: 9 })).toBe(0);
  });

  it('scheduleTickFloor: the start of the UTC day before the one of now', () => {
    const day = 86_400_000;
    expect(scheduleTickFloor(Date.UTC(2026, 2, 29, 1, 30))).toBe(Date.UTC(2026, 2, 28));
    expect(scheduleTickFloor(Date.UTC(2026, 2, 29))).toBe(Date.UTC(2026, 2, 28));
    expect(scheduleTickFloor(Date.UTC(2026, 2, 29) - 1)).toBe(Date.UTC(2026, 2, 28) - day);
  });

  it('selectScheduleTicks: per schedule (code-point order) all but the newest kept, before the floor, handled before `before`', () => {
    const day = 86_400_000;
    const now = 100 * day + 5;
    const tick = (scheduleId: string, tickAt: number, handledAt = tickAt + 1) => ({ scheduleId, tickAt, handledAt });
    const ticks = [
      tick('b', 3 * day),
      tick('b', 1 * day),
      tick('b', 2 * day, 50 * day),
      tick('\u{1F3AC}', day),
      tick('\u{1F3AC}', 2 * day),
      tick('\uFFFD', day),
      tick('\uFFFD', 2 * day),
      tick('a', 99.5 * day),
      tick('a', 99 * day),
      tick('a', 10 * day),
      tick('lone', day),
    ];
    const keys = (criteria: Parameters<typeof selectScheduleTicks>[1]) =>
      selectScheduleTicks(ticks, criteria).map((k) => `${k.scheduleId}@${k.tickAt / day}`);
    // 'a' keeps 99.5 (its newest) and 99 (now's previous UTC day); U+FFFD sorts before U+1F3AC by code point, not UTF-16 unit.
    expect(keys({ now })).toEqual(['a@10', 'b@1', 'b@2', '\uFFFD@1', '\u{1F3AC}@1']);
    expect(keys({ now, before: 40 * day })).toEqual(['a@10', 'b@1', '\uFFFD@1', '\u{1F3AC}@1']);
    expect(keys({ now, keepNewest: 2 })).toEqual(['a@10', 'b@1']);
    expect(scheduleTicksKept({ now, keepNewest: 0 })).toBe(1);
    expect(scheduleTicksKept({ now, keepNewest: Number.NaN })).toBe(1);
    expect(scheduleTicksKept({ now, keepNewest: 3.7 })).toBe(3);
  });
});
