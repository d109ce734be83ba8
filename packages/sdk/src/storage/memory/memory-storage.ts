import { StorageClosedError, StorageError } from '../errors';
import type {
  ApprovalRecord,
  AuditRecord,
  GrantRecord,
  JsonValue,
  LedgerEntry,
  LedgerState,
  PlanRecord,
  PolicyRevisionRecord,
} from '../records';
import type { DecisionRecord, InboxRecord, RunEventRecord, RunMessageRecord, RunRecord } from '../run-records';
import { TERMINAL_RUN_STATUSES } from '../run-records';
import { SerialQueue } from '../serial-queue';
import { STORAGE_SCHEMA_VERSION, type StorageAdapter, type StorageSession } from '../storage-adapter';

type TableName = 'ledger' | 'approvals' | 'grants' | 'plans' | 'policies' | 'audit' | 'settings' | 'runs' | 'inbox' | 'decisions';
const TABLES: readonly TableName[] = ['ledger', 'approvals', 'grants', 'plans', 'policies', 'audit', 'settings', 'runs', 'inbox', 'decisions'];
type Undo = () => void;

/** Binary (code-unit) order, as SQL `ORDER BY` on text with the default collation. */
const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `patch` without its undefined fields (an undefined field means "leave as is", as in SQL adapters). */
function definedFields<T extends object>(patch: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * In-memory {@link StorageAdapter} for tests and short-lived hosts. Same semantics as the
 * durable adapters (transactions roll back on error, compare-and-set writes, stored values are
 * copies), nothing survives the process.
 * @public
 */
export class MemoryStorage implements StorageAdapter {
  /** {@inheritDoc StorageAdapter.kind} */
  readonly kind = 'memory';
  readonly #tables = new Map<TableName, Map<string, unknown>>();
  readonly #queue = new SerialQueue();
  #auditSeq = 0;
  readonly #auditIds = new Set<string>();
  #version = 0;
  #closed = false;
  #undo: Undo[] | null = null;
  /** `scopeId NUL callId` → ledger key (scope and call id never change after insertion). */
  readonly #callIndex = new Map<string, string>();
  readonly #byGrant = new Map<string, Set<string>>();
  /** Every run event, in `globalSeq` order (append-only; a rollback pops its own appends). */
  readonly #eventLog: RunEventRecord[] = [];
  /** Run id → its events, index `seq - 1`. */
  readonly #eventsByRun = new Map<string, RunEventRecord[]>();
  /** Last global event sequence handed out; never lowered, so a rolled-back append leaves a gap, never a reuse. */
  #globalSeq = 0;
  /** Run id → its conversation, index `seq - 1`. */
  readonly #messagesByRun = new Map<string, RunMessageRecord[]>();
  /** Dedupe key → decision id. */
  readonly #decisionKeys = new Map<string, string>();
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

  /** Creates an empty store (call `migrate()` before use, as with the durable adapters). */
  constructor() {
    for (const t of TABLES) this.#tables.set(t, new Map());
    this.#session = this.#createSession();
    const auto = <K extends keyof StorageSession>(name: K): StorageSession[K] =>
      new Proxy(this.#session[name], {
        get: (target, prop) => {
          const fn = (target as unknown as Record<string | symbol, unknown>)[prop];
          if (typeof fn !== 'function') return fn;
          return (...args: unknown[]) => this.transaction(async (s) => (s[name] as unknown as Record<string | symbol, (...a: unknown[]) => unknown>)[prop]!(...args));
        },
      }) as StorageSession[K];
    this.ledger = auto('ledger');
    this.approvals = auto('approvals');
    this.grants = auto('grants');
    this.plans = auto('plans');
    this.policies = auto('policies');
    this.audit = auto('audit');
    this.settings = auto('settings');
    this.runs = auto('runs');
    this.events = auto('events');
    this.messages = auto('messages');
    this.inbox = auto('inbox');
    this.decisions = auto('decisions');
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
      this.#undo = undo;
      try {
        return await fn(this.#session);
      } catch (error) {
        for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
        throw error;
      } finally {
        this.#undo = null;
      }
    });
  }

  /** {@inheritDoc StorageAdapter.close} */
  async close(): Promise<void> {
    this.#closed = true;
  }

  #assertOpen(): void {
    if (this.#closed) throw new StorageClosedError();
  }

  #table<T>(name: TableName): Map<string, T> {
    return this.#tables.get(name) as Map<string, T>;
  }

  #read<T>(name: TableName, id: string): T | undefined {
    const v = this.#table<T>(name).get(id);
    return v === undefined ? undefined : structuredClone(v);
  }

  #all<T>(name: TableName): T[] {
    return [...this.#table<T>(name).values()].map((v) => structuredClone(v));
  }

  #write(name: TableName, id: string, value: unknown): void {
    if (!this.#undo) throw new Error('MemoryStorage: write outside a transaction');
    const table = this.#table<unknown>(name);
    const had = table.has(id);
    const previous = table.get(id);
    const stored = structuredClone(value);
    table.set(id, stored);
    if (name === 'ledger') this.#indexGrant(id, previous as LedgerEntry | undefined, stored as LedgerEntry);
    this.#undo.push(() => {
      if (had) table.set(id, previous);
      else table.delete(id);
      if (name === 'ledger') this.#indexGrant(id, stored as LedgerEntry, previous as LedgerEntry | undefined);
    });
  }

  #remove(name: TableName, id: string): void {
    const table = this.#table<unknown>(name);
    if (!table.has(id)) return;
    const previous = table.get(id);
    table.delete(id);
    if (name === 'ledger') this.#indexGrant(id, previous as LedgerEntry, undefined);
    this.#undo!.push(() => {
      table.set(id, previous);
      if (name === 'ledger') this.#indexGrant(id, undefined, previous as LedgerEntry);
    });
  }

  /** Keeps `#byGrant` (grant id → ledger keys) in step with a ledger write, so budget counts scan only that grant's entries. */
  #indexGrant(key: string, before: LedgerEntry | undefined, after: LedgerEntry | undefined): void {
    if (before?.grantId === after?.grantId) return;
    if (before?.grantId) this.#byGrant.get(before.grantId)?.delete(key);
    if (after?.grantId) {
      let keys = this.#byGrant.get(after.grantId);
      if (!keys) this.#byGrant.set(after.grantId, (keys = new Set()));
      keys.add(key);
    }
  }

  /** Appends `item` to `list` (and, when given, to `log`); the undo log pops them again. */
  #appendIndexed<T>(index: Map<string, T[]>, runId: string, item: T, log?: T[]): T[] {
    let list = index.get(runId);
    if (!list) index.set(runId, (list = []));
    list.push(item);
    log?.push(item);
    const owned = list;
    this.#undo!.push(() => {
      owned.pop();
      log?.pop();
      if (owned.length === 0 && index.get(runId) === owned) index.delete(runId);
    });
    return list;
  }

  /** Whether `run` may be leased at `now` (the rule documented on `RunRepository.acquireLease`). */
  static #runnable(run: RunRecord, now: number): boolean {
    if (TERMINAL_RUN_STATUSES.includes(run.status)) return false;
    const leaseFree = run.leaseOwner === null || run.leaseExpiresAt === null || run.leaseExpiresAt <= now;
    if (!leaseFree) return false;
    if (run.status === 'queued' || run.status === 'running') return true;
    return run.wakeRequested || run.abortRequested || (run.notBefore !== null && run.notBefore <= now);
  }

  #createSession(): StorageSession {
    const insertNew = (name: TableName, id: string, value: unknown) => {
      if (this.#table(name).has(id)) throw new StorageError(`MemoryStorage: duplicate id ${id} in ${name}`);
      this.#write(name, id, value);
    };
    return {
      ledger: {
        get: async (key) => this.#read<LedgerEntry>('ledger', key),
        findByCall: async (scopeId, callId) => {
          const key = this.#callIndex.get(`${scopeId}\0${callId}`);
          return key === undefined ? undefined : this.#read<LedgerEntry>('ledger', key);
        },
        insert: async (entry) => {
          if (this.#table('ledger').has(entry.key)) return false;
          // (scopeId, callId) is unique too, as the SQL adapters' unique index.
          const indexKey = entry.callId === null ? null : `${entry.scopeId}\0${entry.callId}`;
          if (indexKey !== null && this.#callIndex.has(indexKey)) return false;
          this.#write('ledger', entry.key, entry);
          if (indexKey !== null) {
            this.#callIndex.set(indexKey, entry.key);
            this.#undo!.push(() => this.#callIndex.delete(indexKey));
          }
          return true;
        },
        compareAndSet: async (key, expectedToken, patch, expectedStates) => {
          const current = this.#read<LedgerEntry>('ledger', key);
          if (!current || current.token !== expectedToken) return false;
          if (expectedStates && !expectedStates.includes(current.state)) return false;
          this.#write('ledger', key, { ...current, ...definedFields(patch), key });
          return true;
        },
        listByState: async (states, options = {}) =>
          this.#all<LedgerEntry>('ledger')
            .filter((e) => states.includes(e.state) && (options.claimedBefore === undefined || e.claimedAt < options.claimedBefore))
            .sort((a, b) => a.claimedAt - b.claimedAt || byCodeUnit(a.key, b.key))
            .slice(0, options.limit ?? Number.MAX_SAFE_INTEGER),
        usageForGrant: async (grantId, from, to) => {
          let invocations = 0;
          let bytes = 0;
          const ledger = this.#table<LedgerEntry>('ledger');
          for (const key of this.#byGrant.get(grantId) ?? []) {
            const e = ledger.get(key)!;
            if (e.claimedAt >= from && e.claimedAt < to) {
              invocations++;
              bytes += e.bytes;
            }
          }
          return { invocations, bytes };
        },
        deleteSettledBefore: async (settledBefore, states: readonly LedgerState[]) => {
          let n = 0;
          for (const e of this.#all<LedgerEntry>('ledger')) {
            // `running` and `unknown` are never deleted by age (DESIGN.md §6), whatever `states` says.
            if (e.state === 'running' || e.state === 'unknown') continue;
            if (states.includes(e.state) && e.settledAt !== null && e.settledAt < settledBefore) {
              this.#remove('ledger', e.key);
              if (e.callId !== null && this.#callIndex.get(`${e.scopeId}\0${e.callId}`) === e.key) {
                const indexKey = `${e.scopeId}\0${e.callId}`;
                this.#callIndex.delete(indexKey);
                this.#undo!.push(() => this.#callIndex.set(indexKey, e.key));
              }
              n++;
            }
          }
          return n;
        },
      },
      approvals: {
        insert: async (record) => insertNew('approvals', record.id, record),
        get: async (id) => this.#read<ApprovalRecord>('approvals', id),
        compareAndSet: async (id, expectedStatus, patch) => {
          const current = this.#read<ApprovalRecord>('approvals', id);
          if (!current || current.status !== expectedStatus) return false;
          this.#write('approvals', id, { ...current, ...definedFields(patch), id });
          return true;
        },
        list: async (filter = {}) =>
          this.#all<ApprovalRecord>('approvals')
            .filter((a) => (filter.status === undefined || a.status === filter.status) && (filter.planId === undefined || a.planId === filter.planId))
            .sort((a, b) => b.requestedAt - a.requestedAt || byCodeUnit(b.id, a.id))
            .slice(0, filter.limit ?? Number.MAX_SAFE_INTEGER),
      },
      grants: {
        insert: async (record) => insertNew('grants', record.id, record),
        get: async (id) => this.#read<GrantRecord>('grants', id),
        update: async (record) => {
          if (!this.#table('grants').has(record.id)) throw new StorageError(`no grant with id ${record.id}`);
          this.#write('grants', record.id, record);
        },
        list: async (filter = {}) =>
          this.#all<GrantRecord>('grants')
            .filter((g) => filter.status === undefined || g.status === filter.status)
            .sort((a, b) => a.createdAt - b.createdAt || byCodeUnit(a.id, b.id)),
      },
      plans: {
        insert: async (record) => insertNew('plans', record.id, record),
        get: async (id) => this.#read<PlanRecord>('plans', id),
        compareAndSet: async (id, expectedRevision, record) => {
          const current = this.#read<PlanRecord>('plans', id);
          if (!current || current.revision !== expectedRevision) return false;
          this.#write('plans', id, { ...record, id });
          return true;
        },
      },
      policies: {
        put: async (record) => this.#write('policies', record.id, record),
        get: async (id) => this.#read<PolicyRevisionRecord>('policies', id),
        listByKind: async (kind) =>
          this.#all<PolicyRevisionRecord>('policies')
            .filter((p) => p.kind === kind)
            .sort((a, b) => a.createdAt - b.createdAt || byCodeUnit(a.id, b.id)),
      },
      audit: {
        append: async (record) => {
          if (this.#auditIds.has(record.id)) throw new StorageError(`MemoryStorage: duplicate id ${record.id} in audit`);
          const seq = ++this.#auditSeq;
          this.#auditIds.add(record.id);
          this.#undo!.push(() => this.#auditIds.delete(record.id));
          const stored = { ...record, seq };
          this.#write('audit', String(seq).padStart(16, '0'), stored);
          this.#undo!.push(() => {
            this.#auditSeq = Math.min(this.#auditSeq, seq - 1);
          });
          return structuredClone(stored);
        },
        list: async (filter = {}) =>
          this.#all<AuditRecord>('audit')
            .filter(
              (a) =>
                a.seq > (filter.after ?? 0) &&
                (filter.action === undefined || a.action === filter.action) &&
                (filter.capabilityId === undefined || a.capabilityId === filter.capabilityId) &&
                (filter.invocationId === undefined || a.invocationId === filter.invocationId),
            )
            .sort((a, b) => a.seq - b.seq)
            .slice(0, filter.limit ?? 100),
      },
      settings: {
        get: async (key) => this.#read<JsonValue>('settings', key),
        set: async (key, value) => this.#write('settings', key, value),
      },
      runs: {
        insert: async (run) => insertNew('runs', run.id, run),
        get: async (id) => this.#read<RunRecord>('runs', id),
        patch: async (id, patch, expectLeaseOwner) => {
          const current = this.#read<RunRecord>('runs', id);
          if (!current) return undefined;
          if (expectLeaseOwner !== undefined && current.leaseOwner !== expectLeaseOwner) return undefined;
          const next: RunRecord = { ...current, ...definedFields<RunRecord>(patch), id };
          this.#write('runs', id, next);
          return structuredClone(next);
        },
        list: async (filter = {}) =>
          this.#all<RunRecord>('runs')
            .filter((r) => (filter.status === undefined || r.status === filter.status) && (filter.sessionId === undefined || r.sessionId === filter.sessionId))
            .sort((a, b) => b.createdAt - a.createdAt || byCodeUnit(b.id, a.id))
            .slice(0, filter.limit ?? Number.MAX_SAFE_INTEGER),
        acquireLease: async (owner, now, leaseMs) => {
          let pick: RunRecord | undefined;
          for (const run of this.#table<RunRecord>('runs').values()) {
            if (!MemoryStorage.#runnable(run, now)) continue;
            if (!pick || run.createdAt < pick.createdAt || (run.createdAt === pick.createdAt && byCodeUnit(run.id, pick.id) < 0)) pick = run;
          }
          if (!pick) return undefined;
          const next: RunRecord = { ...structuredClone(pick), leaseOwner: owner, leaseExpiresAt: now + leaseMs };
          this.#write('runs', next.id, next);
          return structuredClone(next);
        },
        renewLease: async (id, owner, now, leaseMs) => {
          const current = this.#read<RunRecord>('runs', id);
          if (!current || current.leaseOwner !== owner) return false;
          this.#write('runs', id, { ...current, leaseExpiresAt: now + leaseMs });
          return true;
        },
        releaseLease: async (id, owner) => {
          const current = this.#read<RunRecord>('runs', id);
          if (!current || current.leaseOwner !== owner) return false;
          this.#write('runs', id, { ...current, leaseOwner: null, leaseExpiresAt: null });
          return true;
        },
        totalsBetween: async (from, to) => {
          let runs = 0;
          let costUsd = 0;
          for (const r of this.#table<RunRecord>('runs').values()) {
            if (r.createdAt >= from && r.createdAt < to) {
              runs++;
              costUsd += r.usage.costUsd;
            }
          }
          return { runs, costUsd };
        },
      },
      events: {
        append: async (event) => {
          const seq = (this.#eventsByRun.get(event.runId)?.length ?? 0) + 1;
          // The global counter is never lowered on rollback: a rolled-back append leaves a gap, never a reuse.
          const stored: RunEventRecord = structuredClone({ ...event, seq, globalSeq: ++this.#globalSeq });
          this.#appendIndexed(this.#eventsByRun, event.runId, stored, this.#eventLog);
          return structuredClone(stored);
        },
        listByRun: async (runId, options = {}) => {
          const list = this.#eventsByRun.get(runId) ?? [];
          const after = Math.max(0, Math.floor(options.afterSeq ?? 0));
          return list.slice(after, after + Math.max(0, options.limit ?? 100)).map((e) => structuredClone(e));
        },
        listAfter: async (after = 0, limit = 100) => {
          const log = this.#eventLog;
          let lo = 0;
          let hi = log.length;
          while (lo < hi) {
            const mid = (lo + hi) >>> 1;
            if (log[mid]!.globalSeq <= after) lo = mid + 1;
            else hi = mid;
          }
          return log.slice(lo, lo + Math.max(0, limit)).map((e) => structuredClone(e));
        },
      },
      messages: {
        append: async (runId, message, at) => {
          const seq = (this.#messagesByRun.get(runId)?.length ?? 0) + 1;
          const stored: RunMessageRecord = structuredClone({ runId, seq, message, at });
          this.#appendIndexed(this.#messagesByRun, runId, stored);
          return structuredClone(stored);
        },
        list: async (runId) => (this.#messagesByRun.get(runId) ?? []).map((m) => structuredClone(m)),
      },
      inbox: {
        enqueue: async (record) => insertNew('inbox', record.id, record),
        listQueued: async (runId) =>
          this.#all<InboxRecord>('inbox')
            .filter((m) => m.runId === runId && m.status === 'queued')
            .sort((a, b) => a.createdAt - b.createdAt || byCodeUnit(a.id, b.id)),
        markApplied: async (ids, at) => {
          let n = 0;
          for (const id of new Set(ids)) {
            const current = this.#read<InboxRecord>('inbox', id);
            if (!current || current.status !== 'queued') continue;
            this.#write('inbox', id, { ...current, status: 'applied', appliedAt: at });
            n++;
          }
          return n;
        },
      },
      decisions: {
        insert: async (record) => {
          if (this.#decisionKeys.has(record.dedupeKey)) return false;
          insertNew('decisions', record.id, record);
          this.#decisionKeys.set(record.dedupeKey, record.id);
          this.#undo!.push(() => this.#decisionKeys.delete(record.dedupeKey));
          return true;
        },
        list: async (filter = {}) =>
          this.#all<DecisionRecord>('decisions')
            .filter((d) => (filter.status === undefined || d.status === filter.status) && (filter.subjectId === undefined || d.subjectId === filter.subjectId))
            .sort((a, b) => b.createdAt - a.createdAt || byCodeUnit(b.id, a.id)),
      },
    };
  }
}
