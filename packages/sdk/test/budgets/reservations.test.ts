// Reservations against the spending budgets on a real SQLite file: reserve before a call, settle to the real
// usage, release a failed call, and a key reserved again is not charged twice (docs/budgets.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/index';
import { SqliteStorage } from '../../src/sqlite';
import { SpendLedger } from '../../src/runtime/budgets/spend-ledger';
import {
  mergeSpending,
  DEFAULT_SPENDING_BUDGETS,
  type SpendingOptions,
} from '../../src/runtime/budgets/spending-settings';

const NOW = Date.UTC(2026, 10, 30, 12);
const call = (tokens: number, costUsd: number) => ({ runs: 0, modelCalls: 1, tokens, costUsd });

let dir: string;
let storage: SqliteStorage;
let clock: ManualClock;
function ledger(change: SpendingOptions = {}) {
  const settings = mergeSpending(DEFAULT_SPENDING_BUDGETS, change);
  return new SpendLedger({ storage, clock, settings: async () => settings, roleOf: async () => 'user' });
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'media-agent-budgets-'));
  storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
  await storage.migrate();
  clock = new ManualClock(NOW);
});
afterEach(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('budget reservations (SQLite file)', () => {
  it("a reservation counts its worst case at once against the person's and the household's day and month; settling replaces it with the real usage", async () => {
    const l = ledger();
    const r = await l.reserve({
      key: 'run-1:call:1:0',
      subject: 'user:alice',
      runId: 'run-1',
      amounts: call(5000, 0.05),
    });
    expect(r).toMatchObject({ ok: true, replayed: false, reservation: { state: 'reserved', tokens: 5000 } });
    const during = await l.usage('user:alice');
    for (const c of [during.person.day, during.person.month, during.household.day, during.household.month])
      expect(c).toMatchObject({ modelCalls: 1, tokens: 5000, costUsd: 0.05 });
    expect(await l.settle('run-1:call:1:0', call(1200, 0.012))).toBe(true);
    const after = await l.usage('user:alice');
    expect(after.person.day).toMatchObject({ modelCalls: 1, tokens: 1200 });
    expect(after.person.day.costUsd).toBeCloseTo(0.012, 9);
    expect(after.household.month.costUsd).toBeCloseTo(0.012, 9);
    expect((await storage.budgetUsage.reservation('run-1:call:1:0'))?.state).toBe('settled');
    // Settling again (a retried settlement) changes nothing.
    expect(await l.settle('run-1:call:1:0', call(9999, 9))).toBe(false);
    expect((await l.usage('user:alice')).person.day.tokens).toBe(1200);
  });

  it('a failed call is released: its reservation leaves nothing on the counters (no leaked reservation, BerriAI/litellm#36926)', async () => {
    const l = ledger();
    await l.reserve({ key: 'k', subject: 'user:alice', runId: 'run-1', amounts: call(5000, 0.05) });
    expect(await l.release('k')).toBe(true);
    expect(await l.release('k')).toBe(false);
    const u = await l.usage('user:alice');
    expect(u.person.day).toMatchObject({ modelCalls: 0, tokens: 0, costUsd: 0 });
    expect(u.household.day).toMatchObject({ modelCalls: 0, tokens: 0, costUsd: 0 });
    expect((await storage.budgetUsage.reservation('k'))?.state).toBe('released');
  });

  it('reserving again under the same key (a retry, or a crash-resume of the same call) charges nothing more, even after it settled', async () => {
    const l = ledger();
    await l.reserve({ key: 'run-1:call:3:0', subject: 'user:alice', runId: 'run-1', amounts: call(1000, 0.01) });
    const again = await l.reserve({
      key: 'run-1:call:3:0',
      subject: 'user:alice',
      runId: 'run-1',
      amounts: call(1000, 0.01),
    });
    expect(again).toMatchObject({ ok: true, replayed: true });
    expect((await l.usage('user:alice')).person.day.modelCalls).toBe(1);
    await l.settle('run-1:call:3:0', call(300, 0.003));
    expect(
      await l.reserve({ key: 'run-1:call:3:0', subject: 'user:alice', runId: 'run-1', amounts: call(1000, 0.01) }),
    ).toMatchObject({
      ok: true,
      replayed: true,
    });
    expect((await l.usage('user:alice')).person.day).toMatchObject({ modelCalls: 1, tokens: 300 });
    // A released key (its call failed) that is sent again is a new charge.
    await l.reserve({ key: 'run-1:call:4:0', subject: 'user:alice', runId: 'run-1', amounts: call(1000, 0.01) });
    await l.release('run-1:call:4:0');
    expect(
      await l.reserve({ key: 'run-1:call:4:0', subject: 'user:alice', runId: 'run-1', amounts: call(1000, 0.01) }),
    ).toMatchObject({
      ok: true,
      replayed: false,
    });
    expect((await l.usage('user:alice')).person.day.modelCalls).toBe(2);
  });

  it('calls in flight count: concurrent reservations whose sum passes the cap are admitted only up to it (BerriAI/litellm#34732, garrytan/gbrain#4365)', async () => {
    const l = ledger({ people: { 'user:alice': { day: { costUsd: 0.05 } } } });
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        l.reserve({ key: `run-${i}:call:1:0`, subject: 'user:alice', runId: `run-${i}`, amounts: call(1000, 0.01) }),
      ),
    );
    expect(outcomes.filter((o) => o.ok)).toHaveLength(5);
    const refused = outcomes.find((o) => !o.ok);
    expect(refused).toMatchObject({ ok: false, breach: { scope: 'person', budget: 'costUsd', limit: 0.05 } });
    expect((await l.usage('user:alice')).person.day.costUsd).toBeCloseTo(0.05, 9);
    // Nothing was written for the refused ones.
    expect(await storage.budgetUsage.reservations()).toHaveLength(5);
  });

  it("one person's spending never uses another's budget; the household total counts both", async () => {
    const l = ledger({ roles: { user: { day: { modelCalls: 2 } } } });
    for (let i = 0; i < 2; i++)
      expect((await l.reserve({ key: `a-${i}`, subject: 'user:alice', runId: 'a', amounts: call(1, 0) })).ok).toBe(
        true,
      );
    expect((await l.reserve({ key: 'a-2', subject: 'user:alice', runId: 'a', amounts: call(1, 0) })).ok).toBe(false);
    expect((await l.reserve({ key: 'b-0', subject: 'user:bob', runId: 'b', amounts: call(1, 0) })).ok).toBe(true);
    expect((await l.usage('user:bob')).person.day.modelCalls).toBe(1);
    expect((await l.usage('user:bob')).household.day.modelCalls).toBe(3);
  });

  it('the next period starts from zero: a cap reached today has room tomorrow, and this month keeps counting', async () => {
    const l = ledger({ people: { 'user:alice': { day: { modelCalls: 1 } } } });
    expect((await l.reserve({ key: 'a-0', subject: 'user:alice', runId: 'a', amounts: call(1, 0) })).ok).toBe(true);
    expect((await l.reserve({ key: 'a-1', subject: 'user:alice', runId: 'a', amounts: call(1, 0) })).ok).toBe(false);
    clock.advance(86_400_000);
    expect((await l.reserve({ key: 'a-1', subject: 'user:alice', runId: 'a', amounts: call(1, 0) })).ok).toBe(true);
    expect((await l.usage('user:alice')).person.month.modelCalls).toBe(1); // 1 December: a new month too
    expect((await l.usage('user:alice', NOW)).person.month.modelCalls).toBe(1);
  });
});
