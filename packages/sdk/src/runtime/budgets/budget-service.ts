// The spending budgets as the host sees them: the settings (options plus runtime changes), their change by an
// administrator (audited; runs held at a cap are woken), and what a person has spent (docs/budgets.md).
import { requireAdministrator, resolveRole } from '../../authorization/roles';
import { parseActor } from '../../core/actor';
import type { BudgetCounters, BudgetPeriod } from '../../core/budget-records';
import { isMediaAgentError } from '../../core/errors';
import type { JsonValue } from '../../core/records';
import type { Clock } from '../../ports/clock';
import type { IdGenerator } from '../../ports/id-generator';
import type { IdentityResolver } from '../../ports/identity';
import type { Logger } from '../../ports/logger';
import type { StorageAdapter } from '../../ports/storage-adapter';
import { BUDGET_REACHED_KIND } from './budget-reached';
import { BudgetSettingsError } from './budget-errors';
import { capsFor } from './caps-for';
import { SpendLedger } from './spend-ledger';
import {
  mergeSpending,
  mergeSpendingOptions,
  type SpendCaps,
  type SpendingBudgets,
  type SpendingOptions,
  spendingProblem,
} from './spending-settings';

/** Settings key of the changes made at runtime (merged over the options). */
const SETTINGS_KEY = 'budgets.spending';
/** Capability id the audit rows of budget changes carry. */
const AUDIT_CAPABILITY = 'host.budgets.update';
/**
 * How long the settings read from storage are used before they are read again (ms of real time): the longest a
 * change made by another process goes unseen here. A change made through this service is seen at once.
 */
const SPENDING_SETTINGS_REFRESH_MS = 2_000;

/** Dependencies of {@link BudgetService}. @public */
export interface BudgetServiceDeps {
  /** Storage (counters, reservations, the runtime changes, audit rows). */
  storage: StorageAdapter;
  /** Time. */
  clock: Clock;
  /** Audit row ids. */
  ids: IdGenerator;
  /** Roles: which caps a person gets, and who may change them. */
  identity: IdentityResolver;
  /** The settings from the options (`runs.spending`, `runs.daily`). */
  options: SpendingBudgets;
  /** Logger. */
  logger: Logger;
  /** Called after runs held at a cap were made due (the host wakes its workers). */
  onWake?: () => void;
}

/**
 * What one person may still spend: their caps and counters, and the household's, for the periods containing a
 * time.
 * @public
 */
export interface SpendReport {
  /** The actor. */
  subject: string;
  /** Their caps (role, then personal override). */
  caps: SpendCaps;
  /** Their counters (calls in flight counted at their reservation). */
  used: Record<BudgetPeriod, BudgetCounters>;
  /** The household's caps. */
  householdCaps: SpendCaps;
  /** The household's counters. */
  householdUsed: Record<BudgetPeriod, BudgetCounters>;
}

/**
 * The spending budgets per person and for the household (docs/budgets.md): `host.budgets`.
 * @public
 */
export class BudgetService {
  /** Reservations against the budgets (what the run loop charges). */
  readonly ledger: SpendLedger;
  readonly #deps: BudgetServiceDeps;
  /** The settings in force as last read (or being read), and when the read started (`performance.now()`). */
  #cached: { settings: Promise<SpendingBudgets>; at: number } | undefined;
  /** Bumped by every change made here: a read started before a change is not kept after it. */
  #generation = 0;

  /** @param deps - storage, clock, ids, identity, the settings from the options, logger */
  constructor(deps: BudgetServiceDeps) {
    this.#deps = deps;
    this.ledger = new SpendLedger({
      storage: deps.storage,
      clock: deps.clock,
      settings: () => this.settings(),
      roleOf: (subject) => resolveRole(deps.identity, subject),
      // A reservation refused under cached settings is checked again under the stored ones (a cap raised by
      // another process a moment ago does not hold a run until the period ends).
      freshSettings: () => {
        this.#invalidate();
        return this.settings();
      },
    });
  }

  /**
   * The settings in force: the options with the changes made by {@link BudgetService.update} merged over them.
   *
   * @remarks
   * Read from storage at most once every 2 seconds (every model call's reservation asks for them): a change made
   * through this service's {@link BudgetService.update} is seen by the next call; one made by another process
   * (another host on the same store) is seen at most 2 seconds after it committed — and at once by a reservation
   * that the cached settings would refuse (it is checked again under the stored ones). Concurrent callers share
   * one read; a failed read is not kept.
   */
  settings(): Promise<SpendingBudgets> {
    const now = performance.now();
    const cached = this.#cached;
    if (cached && now - cached.at < SPENDING_SETTINGS_REFRESH_MS) return cached.settings;
    const generation = this.#generation;
    const read = this.#read();
    const entry = { settings: read, at: now };
    this.#cached = entry;
    read.then(
      () => {
        // A change made here while the read was in flight: the next call reads again.
        if (generation !== this.#generation && this.#cached === entry) this.#cached = undefined;
      },
      () => {
        if (this.#cached === entry) this.#cached = undefined;
      },
    );
    return read;
  }

  async #read(): Promise<SpendingBudgets> {
    const stored = (await this.#deps.storage.settings.get(SETTINGS_KEY)) as SpendingOptions | undefined;
    return stored ? mergeSpending(this.#deps.options, stored) : this.#deps.options;
  }

  /** Forgets the settings read, so the next call reads them again (after a change made here). */
  #invalidate(): void {
    this.#generation++;
    this.#cached = undefined;
  }

  /**
   * Changes the budgets at runtime (administrators only): `change` is merged over the settings in force and kept
   * in storage (this process uses it at its next reservation, other processes on the same store within 2 seconds:
   * see {@link BudgetService.settings}); an audit row records who changed
   * what (`capabilityId` `host.budgets.update`); runs held at a cap are made due at once, so a raised cap
   * resumes them at the step they were held at (one whose cap still has no room waits again).
   * @param actor - who changes them (`user:<id>` with role `admin`)
   * @param change - roles, people and household caps to change (`null` removes a cap)
   * @returns the settings in force after the change
   * @throws `ADMIN_FORBIDDEN` (audited as `capability.refused`), `BUDGET_SETTINGS_INVALID`, `ACTOR_INVALID` —
   *   nothing changed
   */
  async update(actor: string, change: SpendingOptions): Promise<SpendingBudgets> {
    const { storage, identity, clock, ids } = this.#deps;
    parseActor(actor);
    const audit = (outcome: string, reason: string | null) => ({
      id: ids.next('aud'),
      seq: 0,
      at: clock.now(),
      action: outcome === 'succeeded' ? ('capability.invoke' as const) : ('capability.refused' as const),
      actor,
      capabilityId: AUDIT_CAPABILITY,
      invocationId: ids.next('inv'),
      runId: null,
      taskId: null,
      outcome,
      approvalId: null,
      grantId: null,
      idempotencyKey: null,
      inputSummary: summary(change),
      reason,
    });
    try {
      await requireAdministrator(identity, actor, 'change the spending budgets');
    } catch (error) {
      if (isMediaAgentError(error) && error.code === 'ADMIN_FORBIDDEN')
        await storage.audit.append(audit('denied', 'ADMIN_FORBIDDEN'));
      throw error;
    }
    const problem = spendingProblem(change);
    if (problem) throw new BudgetSettingsError('BUDGET_SETTINGS_INVALID', `spending budgets: ${problem}`, {});
    try {
      await storage.transaction(async (s) => {
        const stored = ((await s.settings.get(SETTINGS_KEY)) as SpendingOptions | undefined) ?? {};
        await s.settings.set(SETTINGS_KEY, mergeSpendingOptions(stored, change) as unknown as JsonValue);
        await s.audit.append(audit('succeeded', null));
      });
    } finally {
      // Also when the commit failed: whether it happened is unknown, the next call reads what is stored.
      this.#invalidate();
    }
    await this.wakeHeld();
    return this.settings();
  }

  /**
   * What `subject` has spent and may spend in the periods containing `at`.
   * @param subject - an actor (`user:alice`)
   * @param at - a time in ms (default now)
   * @throws `ACTOR_INVALID`
   */
  async usage(subject: string, at?: number): Promise<SpendReport> {
    parseActor(subject);
    const caps = capsFor(await this.settings(), subject, await resolveRole(this.#deps.identity, subject));
    const used = await this.ledger.usage(subject, at);
    return {
      subject,
      caps: caps.person,
      used: used.person,
      householdCaps: caps.household,
      householdUsed: used.household,
    };
  }

  /**
   * Makes every run held at a spending cap (`waiting` with an open `budget_reached` decision) due at once; each
   * checks its cap again when a worker takes it.
   * @returns how many runs were made due
   */
  async wakeHeld(): Promise<number> {
    const { storage, logger } = this.#deps;
    let woken = 0;
    const held = await storage.decisions.list({ kind: BUDGET_REACHED_KIND, status: 'open' });
    for (const runId of new Set(held.filter((d) => d.subjectType === 'run').map((d) => d.subjectId))) {
      const run = await storage.runs.get(runId);
      if (run?.status !== 'waiting' || run.endedAt !== null) continue;
      if (await storage.runs.patch(runId, { notBefore: 0 })) woken++;
    }
    if (woken > 0) {
      logger.info('runs held at a spending cap were made due', { count: woken });
      this.#deps.onWake?.();
    }
    return woken;
  }
}

function summary(change: unknown): string {
  const text = JSON.stringify(change) ?? 'null';
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}
