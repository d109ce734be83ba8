// Reservations against the spending budgets, in storage: reserve before a model call, settle after it, release
// when it failed (docs/budgets.md).
import type { ActorRole } from '../../core/actor';
import {
  type BudgetAmounts,
  type BudgetCounters,
  type BudgetPeriod,
  type BudgetReservation,
  HOUSEHOLD_SUBJECT,
} from '../../core/budget-records';
import type { Clock } from '../../ports/clock';
import type { BudgetCounterKey, StorageAdapter, StorageSession } from '../../ports/storage-adapter';
import { periodStart } from './budget-periods';
import { capsFor } from './caps-for';
import { checkSpend, type SpendBreach } from './cap-check';
import type { SpendCaps, SpendingBudgets } from './spending-settings';

/** What the ledger needs. */
export interface SpendLedgerDeps {
  /** Where counters and reservations are kept. */
  storage: StorageAdapter;
  /** Time (the periods). */
  clock: Clock;
  /** The spending budgets as they are now (options and runtime changes). */
  settings: () => Promise<SpendingBudgets>;
  /** The role of a subject (API keys and system actors are `user`). */
  roleOf: (subject: string) => Promise<ActorRole>;
  /**
   * The settings read from storage now, past any cache of `settings`: a reservation refused under cached
   * settings is checked once more under these (a cap another process raised a moment ago). Default: `settings`.
   */
  freshSettings?: () => Promise<SpendingBudgets>;
}

/** What {@link SpendLedger.reserve} answers. */
export type ReserveOutcome =
  | { ok: true; reservation: BudgetReservation; replayed: boolean }
  | { ok: false; breach: SpendBreach };

const ZERO: BudgetAmounts = Object.freeze({ runs: 0, modelCalls: 0, tokens: 0, costUsd: 0 });

const minus = (a: BudgetAmounts, b: BudgetAmounts): BudgetAmounts => ({
  runs: a.runs - b.runs,
  modelCalls: a.modelCalls - b.modelCalls,
  tokens: a.tokens - b.tokens,
  costUsd: a.costUsd - b.costUsd,
});

const amountsOf = (r: BudgetAmounts): BudgetAmounts => ({
  runs: r.runs,
  modelCalls: r.modelCalls,
  tokens: r.tokens,
  costUsd: r.costUsd,
});

/**
 * The counters a reservation touches, always in this order — the household's day and month, then the subject's
 * day and month — so concurrent transactions lock them in one order and never deadlock.
 */
function touched(subject: string, day: number, month: number): Array<[string, BudgetPeriod, number]> {
  return [
    [HOUSEHOLD_SUBJECT, 'day', day],
    [HOUSEHOLD_SUBJECT, 'month', month],
    [subject, 'day', day],
    [subject, 'month', month],
  ];
}

/**
 * Reservations against the spending budgets of a subject and of the household.
 *
 * @remarks
 * {@link SpendLedger.reserve} runs in one storage transaction: it reads (and, on PostgreSQL, locks) the four
 * counters the reservation touches, checks every cap that applies, and inserts the reservation with its amounts
 * added — so concurrent reservations, in this process or others on the same database, see each other and the
 * caps are never passed by more than what real usage adds over a reservation's worst case. A key reserved
 * before is not charged again.
 */
export class SpendLedger {
  /** @param deps - storage, clock, settings, roles */
  constructor(private readonly deps: SpendLedgerDeps) {}

  /**
   * Reserves `amounts` for `subject` under `key`, unless a cap would be passed.
   * @param input - the key, the subject (the run's owner), the run, the amounts; `settled` stores it settled at
   *   once (a run's start: nothing is in flight)
   * @returns the reservation (`replayed` when the key was reserved or settled before: nothing was charged now),
   *   or the first cap it would pass (nothing was written)
   */
  async reserve(input: {
    key: string;
    subject: string;
    runId: string;
    amounts: BudgetAmounts;
    settled?: boolean;
  }): Promise<ReserveOutcome> {
    const caps = await this.capsOf(input.subject);
    const outcome = await this.deps.storage.transaction((s) => this.reserveIn(s, input, caps));
    if (outcome.ok || !this.deps.freshSettings) return outcome;
    // Refused under settings that may be a moment old: once more under the settings as stored now.
    const fresh = capsFor(await this.deps.freshSettings(), input.subject, await this.deps.roleOf(input.subject));
    return this.deps.storage.transaction((s) => this.reserveIn(s, input, fresh));
  }

  /**
   * The caps that apply to `subject`'s spending: its own (by person, else by role) and the household's.
   * @param subject - an actor
   * @internal
   */
  async capsOf(subject: string): Promise<{ person: SpendCaps; household: SpendCaps }> {
    return capsFor(await this.deps.settings(), subject, await this.deps.roleOf(subject));
  }

  /**
   * {@link SpendLedger.reserve} inside a transaction the caller opened (its commit makes the reservation count).
   * @param s - the caller's transaction
   * @param input - as for {@link SpendLedger.reserve}
   * @param caps - the caps that apply ({@link SpendLedger.capsOf}), or null to record a cost already spent that no
   *   cap limits (nothing is checked, the counters are not read)
   * @internal
   */
  async reserveIn(
    s: StorageSession,
    input: Parameters<SpendLedger['reserve']>[0],
    caps: { person: SpendCaps; household: SpendCaps } | null,
  ): Promise<ReserveOutcome> {
    const now = this.deps.clock.now();
    const day = periodStart('day', now);
    const month = periodStart('month', now);
    const reservation: BudgetReservation = {
      key: input.key,
      subject: input.subject,
      runId: input.runId,
      state: input.settled ? 'settled' : 'reserved',
      day,
      month,
      ...amountsOf(input.amounts),
      createdAt: now,
      updatedAt: now,
    };
    // Nothing to check: the record is inserted at once (a key never seen, the common case, is one statement), and
    // read only when the insert found its key stored.
    if (!caps && (await s.budgetUsage.reserve(reservation))) return this.#charged(s, input, reservation);
    const counters = caps ? await lockAll(s, input.subject, day, month) : undefined;
    const existing = await s.budgetUsage.reservation(input.key);
    if (existing && existing.state !== 'released') return { ok: true, reservation: existing, replayed: true };
    const [hd, hm, pd, pm] = counters ?? [];
    const breach =
      caps &&
      checkSpend({ person: { day: pd!, month: pm! }, household: { day: hd!, month: hm! } }, caps, input.amounts, now);
    if (breach) return { ok: false, breach };
    if (existing) reservation.createdAt = existing.createdAt;
    // A key released before (its call failed) is reserved again: the resend is a new charge.
    const stored = existing
      ? await s.budgetUsage.updateReservation(input.key, 'released', {
          state: reservation.state,
          ...amountsOf(input.amounts),
          updatedAt: now,
        })
      : await s.budgetUsage.reserve(reservation);
    if (!stored) {
      const winner = await s.budgetUsage.reservation(input.key);
      if (winner) return { ok: true, reservation: winner, replayed: true };
    }
    return this.#charged(s, input, reservation);
  }

  /** Adds a reservation just stored to the four counters it touches. */
  async #charged(
    s: StorageSession,
    input: { subject: string; amounts: BudgetAmounts },
    reservation: BudgetReservation,
  ): Promise<ReserveOutcome> {
    await addAll(s, touched(input.subject, reservation.day, reservation.month), input.amounts);
    return { ok: true, reservation, replayed: false };
  }

  /**
   * Settles a reservation to what the call really cost: the counters it was charged to (its day and month) get
   * the difference. A reservation already settled or released changes nothing.
   * @returns whether it settled now
   */
  settle(key: string, spent: BudgetAmounts): Promise<boolean> {
    return this.#close(key, 'settled', spent);
  }

  /**
   * Releases a reservation whose call failed before it cost anything: its amounts are taken off the counters.
   * A reservation already settled or released changes nothing.
   * @returns whether it was released now
   */
  release(key: string): Promise<boolean> {
    return this.#close(key, 'released', ZERO);
  }

  /**
   * The counters of `subject` and of the household for the periods containing `at`.
   * @param subject - an actor
   * @param at - a time (ms; default now)
   */
  async usage(
    subject: string,
    at = this.deps.clock.now(),
  ): Promise<{ person: Record<BudgetPeriod, BudgetCounters>; household: Record<BudgetPeriod, BudgetCounters> }> {
    const s = this.deps.storage;
    const day = periodStart('day', at);
    const month = periodStart('month', at);
    const keys = touched(subject, day, month);
    const [hd, hm, pd, pm] =
      s.budgetUsage.getEach && distinct(keys)
        ? await s.budgetUsage.getEach(keys.map(keyOf))
        : await Promise.all(keys.map(([who, period, start]) => s.budgetUsage.get(who, period, start)));
    return { person: { day: pd!, month: pm! }, household: { day: hd!, month: hm! } };
  }

  /**
   * {@link SpendLedger.settle} inside a transaction the caller opened.
   * @returns whether it settled (when the caller's transaction commits)
   * @internal
   */
  settleIn(s: StorageSession, key: string, spent: BudgetAmounts): Promise<boolean> {
    return this.#closeIn(s, key, 'settled', spent);
  }

  /**
   * {@link SpendLedger.release} inside a transaction the caller opened.
   * @returns whether it was released (when the caller's transaction commits)
   * @internal
   */
  releaseIn(s: StorageSession, key: string): Promise<boolean> {
    return this.#closeIn(s, key, 'released', ZERO);
  }

  #close(key: string, state: 'settled' | 'released', spent: BudgetAmounts): Promise<boolean> {
    return this.deps.storage.transaction((s) => this.#closeIn(s, key, state, spent));
  }

  async #closeIn(
    s: StorageSession,
    key: string,
    state: 'settled' | 'released',
    spent: BudgetAmounts,
  ): Promise<boolean> {
    const { clock } = this.deps;
    {
      const r = await s.budgetUsage.reservation(key);
      if (r?.state !== 'reserved') return false;
      if (
        !(await s.budgetUsage.updateReservation(key, 'reserved', {
          state,
          ...amountsOf(spent),
          updatedAt: clock.now(),
        }))
      )
        return false;
      await addAll(s, touched(r.subject, r.day, r.month), minus(spent, r));
      return true;
    }
  }
}

/**
 * Reads (and locks, where the store locks rows) the four counters, in the fixed order: in one statement where the
 * store has one for it.
 */
function lockAll(s: StorageSession, subject: string, day: number, month: number): Promise<BudgetCounters[]> {
  const keys = touched(subject, day, month);
  if (s.budgetUsage.getEach && distinct(keys)) return s.budgetUsage.getEach(keys.map(keyOf));
  return keys.reduce<Promise<BudgetCounters[]>>(
    async (acc, [who, period, start]) => [...(await acc), await s.budgetUsage.get(who, period, start)],
    Promise.resolve([]),
  );
}

/** Adds `delta` to the counters of `keys`, in their order: in one statement where the store has one for it. */
async function addAll(s: StorageSession, keys: Array<[string, BudgetPeriod, number]>, delta: BudgetAmounts) {
  if (s.budgetUsage.addEach && distinct(keys)) {
    await s.budgetUsage.addEach(keys.map(keyOf), delta);
    return;
  }
  for (const [subject, period, start] of keys) await s.budgetUsage.add(subject, period, start, delta);
}

const keyOf = ([subject, period, start]: [string, BudgetPeriod, number]): BudgetCounterKey => ({
  subject,
  period,
  start,
});

/** Whether the counters are four different ones (a subject spending under the household's own name would not be). */
const distinct = (keys: Array<[string, BudgetPeriod, number]>): boolean => keys[0]![0] !== keys[2]![0];
