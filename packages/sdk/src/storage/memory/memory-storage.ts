import { StorageClosedError } from '../errors';
import type { AuditRecord } from '../../core/records';
import { SerialQueue } from '../serial-queue';
import { STORAGE_SCHEMA_VERSION, type StorageAdapter, type StorageSession } from '../../ports/storage-adapter';
import { MemoryTables, type SyncSession, type Undo } from './memory-tables';
import { memoryLedgerRepository } from './ledger-repository';
import { memoryApprovalRepository } from './approval-repository';
import { memoryGrantRepository } from './grant-repository';
import { memoryPlanRepository } from './plan-repository';
import { memoryPolicyRevisionRepository } from './policy-revision-repository';
import { memoryAuditRepository } from './audit-repository';
import { memorySettingsRepository } from './settings-repository';
import { memoryRunRepository } from './run-repository';
import { memoryRunEventRepository } from './run-event-repository';
import { memoryRunMessageRepository } from './run-message-repository';
import { memoryInboxRepository } from './inbox-repository';
import { memoryGrantUsageRepository } from './grant-usage-repository';
import { memoryBudgetUsageRepository } from './budget-usage-repository';
import { memoryDecisionRepository } from './decision-repository';
import { memoryMaintenanceRepository } from './maintenance-repository';
import { memoryScheduleRepository } from './schedule-repository';
import { memoryIntentRepository } from './intent-repository';
import { memoryOutboxRepository } from './outbox-repository';
import { READ_METHODS, REPOSITORY_NAMES as REPOSITORIES } from '../repository-methods';

/**
 * In-memory {@link StorageAdapter} for tests and short-lived hosts. Same semantics as the
 * durable adapters (transactions roll back on error, compare-and-set writes, stored values are
 * copies), nothing survives the process.
 *
 * @remarks
 * A repository call on the adapter runs at once when no transaction is running or waiting, else after
 * them, in call order. `appendAuditBatched` appends at once on the same terms (nothing here is durable,
 * so there is nothing to batch).
 * @public
 */
export class MemoryStorage implements StorageAdapter {
  /** {@inheritDoc StorageAdapter.kind} */
  readonly kind = 'memory';
  readonly #tables = new MemoryTables();
  readonly #queue = new SerialQueue();
  #version = 0;
  #closed = false;
  /** The repositories, synchronous; every write registers its undo in `#undo`. */
  readonly #core: SyncSession;
  /** The session handed to transactions: `#core` with promises. */
  readonly #session: StorageSession;

  /** {@inheritDoc StorageSession.ledger} */
  readonly ledger: StorageSession['ledger'];
  /** {@inheritDoc StorageSession.approvals} */
  readonly approvals: StorageSession['approvals'];
  /** {@inheritDoc StorageSession.grants} */
  readonly grants: StorageSession['grants'];
  /** {@inheritDoc StorageSession.plans} */
  readonly plans: StorageSession['plans'];
  /** {@inheritDoc StorageSession.policies} */
  readonly policies: StorageSession['policies'];
  /** {@inheritDoc StorageSession.audit} */
  readonly audit: StorageSession['audit'];
  /** {@inheritDoc StorageSession.settings} */
  readonly settings: StorageSession['settings'];
  /** {@inheritDoc StorageSession.runs} */
  readonly runs: StorageSession['runs'];
  /** {@inheritDoc StorageSession.events} */
  readonly events: StorageSession['events'];
  /** {@inheritDoc StorageSession.messages} */
  readonly messages: StorageSession['messages'];
  /** {@inheritDoc StorageSession.inbox} */
  readonly inbox: StorageSession['inbox'];
  /** {@inheritDoc StorageSession.decisions} */
  readonly decisions: StorageSession['decisions'];
  /** {@inheritDoc StorageSession.grantUsage} */
  readonly grantUsage: StorageSession['grantUsage'];
  /** {@inheritDoc StorageSession.budgetUsage} */
  readonly budgetUsage: StorageSession['budgetUsage'];
  /** {@inheritDoc StorageSession.maintenance} */
  readonly maintenance: StorageSession['maintenance'];
  /** {@inheritDoc StorageSession.schedules} */
  readonly schedules: StorageSession['schedules'];
  /** {@inheritDoc StorageSession.intents} */
  readonly intents: StorageSession['intents'];
  /** {@inheritDoc StorageSession.outbox} */
  readonly outbox: StorageSession['outbox'];

  /** Creates an empty store (call `migrate()` before use, as with the durable adapters). */
  constructor() {
    this.#core = this.#createCore();
    const session: Record<string, unknown> = {};
    const direct: Record<string, unknown> = {};
    for (const name of REPOSITORIES) {
      const repo = this.#core[name] as unknown as Record<string, (...args: unknown[]) => unknown>;
      const inTx: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
      const onAdapter: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
      for (const method of Object.keys(repo)) {
        const fn = repo[method]!;
        inTx[method] = (...args) => {
          try {
            return Promise.resolve(fn(...args));
          } catch (error) {
            return Promise.reject(error);
          }
        };
        onAdapter[method] = READ_METHODS.has(method)
          ? (...args) => this.#directRead(() => fn(...args))
          : (...args) => this.#direct(() => fn(...args));
      }
      session[name] = inTx;
      direct[name] = onAdapter;
    }
    this.#session = session as unknown as StorageSession;
    const on = direct as unknown as StorageSession;
    this.ledger = on.ledger;
    this.approvals = on.approvals;
    this.grants = on.grants;
    this.plans = on.plans;
    this.policies = on.policies;
    this.audit = on.audit;
    this.settings = on.settings;
    this.runs = on.runs;
    this.events = on.events;
    this.messages = on.messages;
    this.inbox = on.inbox;
    this.decisions = on.decisions;
    this.grantUsage = on.grantUsage;
    this.budgetUsage = on.budgetUsage;
    this.maintenance = on.maintenance;
    this.schedules = on.schedules;
    this.intents = on.intents;
    this.outbox = on.outbox;
  }

  /** {@inheritDoc StorageAdapter.migrate} */
  async migrate(): Promise<void> {
    this.#assertOpen();
    this.#version = STORAGE_SCHEMA_VERSION;
  }

  /** {@inheritDoc StorageAdapter.schemaVersion} */
  async schemaVersion(): Promise<number> {
    this.#assertOpen();
    return this.#version;
  }

  /** {@inheritDoc StorageAdapter.transaction} */
  transaction<T>(fn: (session: StorageSession) => Promise<T>): Promise<T> {
    return this.#queue.run(async () => {
      this.#assertOpen();
      const undo: Undo[] = [];
      this.#tables.undo = undo;
      try {
        return await fn(this.#session);
      } catch (error) {
        for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
        throw error;
      } finally {
        this.#tables.undo = null;
      }
    });
  }

  /** {@inheritDoc StorageAdapter.appendAuditBatched} */
  appendAuditBatched(record: AuditRecord): Promise<void> {
    return this.#direct(() => {
      this.#core.audit.append(record);
    });
  }

  /** {@inheritDoc StorageAdapter.close} */
  async close(): Promise<void> {
    this.#closed = true;
  }

  /**
   * One repository call on the adapter, as its own transaction: at once when nothing is running or
   * waiting (no promise hop), else after everything queued before it.
   */
  #direct<T>(work: () => T): Promise<T> {
    if (this.#queue.idle) {
      try {
        return Promise.resolve(this.#atomically(work));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.#queue.run(() => this.#atomically(work));
  }

  /** One repository read on the adapter: as {@link MemoryStorage.#direct}, without an undo log (a read writes nothing). */
  #directRead<T>(work: () => T): Promise<T> {
    if (this.#queue.idle) {
      try {
        this.#assertOpen();
        return Promise.resolve(work());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.#queue.run(() => {
      this.#assertOpen();
      return work();
    });
  }

  /** Runs `work` synchronously with its own undo log: if it throws, none of its writes are kept. */
  #atomically<T>(work: () => T): T {
    this.#assertOpen();
    const undo: Undo[] = [];
    this.#tables.undo = undo;
    try {
      return work();
    } catch (error) {
      for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
      throw error;
    } finally {
      this.#tables.undo = null;
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new StorageClosedError();
  }

  #createCore(): SyncSession {
    const t = this.#tables;
    const audit = memoryAuditRepository(t);
    return {
      ledger: memoryLedgerRepository(t),
      approvals: memoryApprovalRepository(t),
      grants: memoryGrantRepository(t),
      plans: memoryPlanRepository(t),
      policies: memoryPolicyRevisionRepository(t),
      audit,
      settings: memorySettingsRepository(t),
      runs: memoryRunRepository(t),
      events: memoryRunEventRepository(t),
      messages: memoryRunMessageRepository(t),
      inbox: memoryInboxRepository(t),
      grantUsage: memoryGrantUsageRepository(t),
      budgetUsage: memoryBudgetUsageRepository(t),
      decisions: memoryDecisionRepository(t),
      maintenance: memoryMaintenanceRepository(t, audit.append),
      schedules: memoryScheduleRepository(t),
      intents: memoryIntentRepository(t),
      outbox: memoryOutboxRepository(t),
    };
  }
}
