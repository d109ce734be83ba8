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
  selectForPrune,
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
});
