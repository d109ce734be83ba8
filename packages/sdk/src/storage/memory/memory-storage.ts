import { StorageClosedError, StorageError } from '../errors';
import type {
  ApprovalRecord,
  AuditRecord,
  GrantRecord,
  GrantUsage,
  JsonValue,
  LedgerEntry,
  LedgerState,
  PlanRecord,
  PolicyRevisionRecord,
} from '../../core/records';
import type { DecisionRecord, InboxRecord, RunEventRecord, RunMessageRecord, RunRecord } from '../../core/run-records';
import { TERMINAL_RUN_STATUSES } from '../../core/run-records';
import { SerialQueue } from '../serial-queue';
import { STORAGE_SCHEMA_VERSION, type StorageAdapter, type StorageSession } from '../../ports/storage-adapter';

type TableName = 'ledger' | 'approvals' | 'grants' | 'plans' | 'policies' | 'settings' | 'runs' | 'inbox' | 'decisions' | 'grantUsage';
const TABLES: readonly TableName[] = ['ledger', 'approvals', 'grants', 'plans', 'policies', 'settings', 'runs', 'inbox', 'decisions', 'grantUsage'];
type Undo = () => void;

/** A repository whose methods return their result directly (the memory store's core). */
type Sync<R> = { [K in keyof R]: R[K] extends (...args: infer A) => Promise<infer T> ? (...args: A) => T : never };
/** Every repository of a session, synchronous. */
type SyncSession = { [K in keyof StorageSession]: Sync<StorageSession[K]> };
/** Methods that only read (run on the adapter without an undo log). */
const READ_METHODS: ReadonlySet<string> = new Set(['get', 'findByCall', 'listByState', 'usageForGrant', 'list', 'listByKind', 'totalsBetween', 'listByRun', 'listAfter', 'listQueued']);
const REPOSITORIES: ReadonlyArray<keyof StorageSession> = ['ledger', 'approvals', 'grants', 'plans', 'policies', 'audit', 'settings', 'runs', 'events', 'messages', 'inbox', 'decisions', 'grantUsage'];

/**
 * A deep copy of a stored value. Records are JSON-shaped (plain objects, arrays, primitives), which this
 * copies directly; anything else (a Date, a class instance, a cycle) is left to `structuredClone`.
 */
function copy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  try {
    return copyPlain(value, 0);
  } catch {
    return structuredClone(value);
  }
}

function copyPlain<T>(value: T, depth: number): T {
  if (typeof value !== 'object' || value === null) return value;
  if (depth > 256) throw new RangeError('too deep');
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyPlain(value[i] as unknown, depth + 1);
    return out as T;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) throw new TypeError('not a plain object');
  // A spread copies the own properties at once (an own `__proto__` key stays plain data); then only the
  // nested objects need copying.
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key of Object.keys(out)) {
    const item = out[key];
    if (typeof item === 'object' && item !== null) out[key] = copyPlain(item, depth + 1);
  }
  return out as T;
}

/** Lower bound: the index of the first audit row with `seq > after` (rows are in `seq` order). */
function firstAfter(log: readonly AuditRecord[], after: number): number {
  let lo = 0;
  let hi = log.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (log[mid]!.seq <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Binary (code-unit) order, as SQL `ORDER BY` on text with the default collation. */
const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `patch` without its undefined fields (an undefined field means "leave as is", as in SQL adapters). */
function definedFields<T extends object>(patch: Partial<T>): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(patch)) {
    const value = (patch as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = value;
  }
  return out as Partial<T>;
}

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
  readonly #tables = new Map<TableName, Map<string, unknown>>();
  readonly #queue = new SerialQueue();
  #auditSeq = 0;
  readonly #auditIds = new Set<string>();
  /** Audit rows in `seq` order (append-only; a rollback pops its own appends). */
  readonly #auditLog: AuditRecord[] = [];
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

  /** Creates an empty store (call `migrate()` before use, as with the durable adapters). */
  constructor() {
    for (const t of TABLES) this.#tables.set(t, new Map());
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
        onAdapter[method] = READ_METHODS.has(method) ? (...args) => this.#directRead(() => fn(...args)) : (...args) => this.#direct(() => fn(...args));
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
    this.#undo = undo;
    try {
      return work();
    } catch (error) {
      for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
      throw error;
    } finally {
      this.#undo = null;
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new StorageClosedError();
  }

  #table<T>(name: TableName): Map<string, T> {
    return this.#tables.get(name) as Map<string, T>;
  }

  #read<T>(name: TableName, id: string): T | undefined {
    const v = this.#table<T>(name).get(id);
    return v === undefined ? undefined : copy(v);
  }

  #all<T>(name: TableName): T[] {
    return [...this.#table<T>(name).values()].map((v) => copy(v));
  }

  /** Stores `value` (a copy of it, unless `owned`: built by the store from its own records and copies). */
  #write(name: TableName, id: string, value: unknown, owned = false): void {
    if (!this.#undo) throw new Error('MemoryStorage: write outside a transaction');
    const table = this.#table<unknown>(name);
    const had = table.has(id);
    const previous = table.get(id);
    const stored = owned ? value : copy(value);
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

  #createCore(): SyncSession {
    const insertNew = (name: TableName, id: string, value: unknown) => {
      if (this.#table(name).has(id)) throw new StorageError(`MemoryStorage: duplicate id ${id} in ${name}`);
      this.#write(name, id, value);
    };
    const usageKey = (grantId: string, day: number) => `${grantId}\0${day}`;
    return {
      ledger: {
        get: (key) => this.#read<LedgerEntry>('ledger', key),
        findByCall: (scopeId, callId) => {
          const key = this.#callIndex.get(`${scopeId}\0${callId}`);
          return key === undefined ? undefined : this.#read<LedgerEntry>('ledger', key);
        },
        insert: (entry) => {
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
        compareAndSet: (key, expectedToken, patch, expectedStates) => {
          const current = this.#table<LedgerEntry>('ledger').get(key);
          if (!current || current.token !== expectedToken) return false;
          if (expectedStates && !expectedStates.includes(current.state)) return false;
          // Stored records are never changed in place: the new one shares the old one's nested values and
          // holds copies of the patch's.
          this.#write('ledger', key, Object.assign({ ...current }, copy(definedFields(patch)), { key }), true);
          return true;
        },
        listByState: (states, options = {}) =>
          [...this.#table<LedgerEntry>('ledger').values()]
            .filter((e) => states.includes(e.state) && (options.claimedBefore === undefined || e.claimedAt < options.claimedBefore))
            .sort((a, b) => a.claimedAt - b.claimedAt || byCodeUnit(a.key, b.key))
            .slice(0, options.limit ?? Number.MAX_SAFE_INTEGER)
            .map((e) => copy(e)),
        usageForGrant: (grantId, from, to) => {
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
        deleteSettledBefore: (settledBefore, states: readonly LedgerState[]) => {
          let n = 0;
          for (const e of [...this.#table<LedgerEntry>('ledger').values()]) {
            // `running` and `unknown` are never deleted by age, whatever `states` says.
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
        insert: (record) => insertNew('approvals', record.id, record),
        get: (id) => this.#read<ApprovalRecord>('approvals', id),
        compareAndSet: (id, expectedStatus, patch) => {
          const current = this.#read<ApprovalRecord>('approvals', id);
          if (!current || current.status !== expectedStatus) return false;
          this.#write('approvals', id, Object.assign(current, definedFields(patch), { id }));
          return true;
        },
        list: (filter = {}) =>
          this.#all<ApprovalRecord>('approvals')
            .filter((a) => (filter.status === undefined || a.status === filter.status) && (filter.planId === undefined || a.planId === filter.planId))
            .sort((a, b) => b.requestedAt - a.requestedAt || byCodeUnit(b.id, a.id))
            .slice(0, filter.limit ?? Number.MAX_SAFE_INTEGER),
      },
      grants: {
        insert: (record) => insertNew('grants', record.id, record),
        get: (id) => this.#read<GrantRecord>('grants', id),
        update: (record) => {
          if (!this.#table('grants').has(record.id)) throw new StorageError(`no grant with id ${record.id}`);
          this.#write('grants', record.id, record);
        },
        list: (filter = {}) =>
          this.#all<GrantRecord>('grants')
            .filter((g) => filter.status === undefined || g.status === filter.status)
            .sort((a, b) => a.createdAt - b.createdAt || byCodeUnit(a.id, b.id)),
      },
      plans: {
        insert: (record) => insertNew('plans', record.id, record),
        get: (id) => this.#read<PlanRecord>('plans', id),
        compareAndSet: (id, expectedRevision, record) => {
          const current = this.#read<PlanRecord>('plans', id);
          if (!current || current.revision !== expectedRevision) return false;
          this.#write('plans', id, { ...record, id });
          return true;
        },
      },
      policies: {
        put: (record) => this.#write('policies', record.id, record),
        get: (id) => this.#read<PolicyRevisionRecord>('policies', id),
        listByKind: (kind) =>
          this.#all<PolicyRevisionRecord>('policies')
            .filter((p) => p.kind === kind)
            .sort((a, b) => a.createdAt - b.createdAt || byCodeUnit(a.id, b.id)),
      },
      audit: {
        append: (record) => {
          if (this.#auditIds.has(record.id)) throw new StorageError(`MemoryStorage: duplicate id ${record.id} in audit`);
          if (!this.#undo) throw new Error('MemoryStorage: write outside a transaction');
          const seq = ++this.#auditSeq;
          // Every field of an audit row is a string, a number or null: a shallow copy is a copy.
          const stored: AuditRecord = { ...record, seq };
          this.#auditIds.add(record.id);
          this.#auditLog.push(stored);
          this.#undo.push(() => {
            this.#auditIds.delete(record.id);
            if (this.#auditLog[this.#auditLog.length - 1] === stored) this.#auditLog.pop();
            this.#auditSeq = Math.min(this.#auditSeq, seq - 1);
          });
          return { ...stored };
        },
        list: (filter = {}) => {
          const limit = Math.max(0, filter.limit ?? 100);
          const out: AuditRecord[] = [];
          const log = this.#auditLog;
          for (let i = firstAfter(log, filter.after ?? 0); i < log.length && out.length < limit; i++) {
            const a = log[i]!;
            if (
              (filter.action === undefined || a.action === filter.action) &&
              (filter.capabilityId === undefined || a.capabilityId === filter.capabilityId) &&
              (filter.invocationId === undefined || a.invocationId === filter.invocationId)
            )
              out.push({ ...a });
          }
          return out;
        },
      },
      settings: {
        get: (key) => this.#read<JsonValue>('settings', key),
        set: (key, value) => this.#write('settings', key, value),
      },
      runs: {
        insert: (run) => insertNew('runs', run.id, run),
        get: (id) => this.#read<RunRecord>('runs', id),
        patch: (id, patch, expectLeaseOwner) => {
          const current = this.#read<RunRecord>('runs', id);
          if (!current) return undefined;
          if (expectLeaseOwner !== undefined && current.leaseOwner !== expectLeaseOwner) return undefined;
          const next: RunRecord = Object.assign(current, definedFields<RunRecord>(patch), { id });
          this.#write('runs', id, next);
          return copy(next);
        },
        list: (filter = {}) =>
          this.#all<RunRecord>('runs')
            .filter((r) => (filter.status === undefined || r.status === filter.status) && (filter.sessionId === undefined || r.sessionId === filter.sessionId))
            .sort((a, b) => b.createdAt - a.createdAt || byCodeUnit(b.id, a.id))
            .slice(0, filter.limit ?? Number.MAX_SAFE_INTEGER),
        acquireLease: (owner, now, leaseMs) => {
          let pick: RunRecord | undefined;
          for (const run of this.#table<RunRecord>('runs').values()) {
            if (!MemoryStorage.#runnable(run, now)) continue;
            if (!pick || run.createdAt < pick.createdAt || (run.createdAt === pick.createdAt && byCodeUnit(run.id, pick.id) < 0)) pick = run;
          }
          if (!pick) return undefined;
          const next: RunRecord = { ...copy(pick), leaseOwner: owner, leaseExpiresAt: now + leaseMs };
          this.#write('runs', next.id, next);
          return copy(next);
        },
        renewLease: (id, owner, now, leaseMs) => {
          const current = this.#read<RunRecord>('runs', id);
          if (!current || current.leaseOwner !== owner) return false;
          this.#write('runs', id, { ...current, leaseExpiresAt: now + leaseMs });
          return true;
        },
        releaseLease: (id, owner) => {
          const current = this.#read<RunRecord>('runs', id);
          if (!current || current.leaseOwner !== owner) return false;
          this.#write('runs', id, { ...current, leaseOwner: null, leaseExpiresAt: null });
          return true;
        },
        totalsBetween: (from, to) => {
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
        append: (event) => {
          const seq = (this.#eventsByRun.get(event.runId)?.length ?? 0) + 1;
          // The global counter is never lowered on rollback: a rolled-back append leaves a gap, never a reuse.
          const stored: RunEventRecord = copy({ ...event, seq, globalSeq: ++this.#globalSeq });
          this.#appendIndexed(this.#eventsByRun, event.runId, stored, this.#eventLog);
          return copy(stored);
        },
        listByRun: (runId, options = {}) => {
          const list = this.#eventsByRun.get(runId) ?? [];
          const after = Math.max(0, Math.floor(options.afterSeq ?? 0));
          return list.slice(after, after + Math.max(0, options.limit ?? 100)).map((e) => copy(e));
        },
        listAfter: (after = 0, limit = 100) => {
          const log = this.#eventLog;
          let lo = 0;
          let hi = log.length;
          while (lo < hi) {
            const mid = (lo + hi) >>> 1;
            if (log[mid]!.globalSeq <= after) lo = mid + 1;
            else hi = mid;
          }
          return log.slice(lo, lo + Math.max(0, limit)).map((e) => copy(e));
        },
      },
      messages: {
        append: (runId, message, at) => {
          const seq = (this.#messagesByRun.get(runId)?.length ?? 0) + 1;
          const stored: RunMessageRecord = copy({ runId, seq, message, at });
          this.#appendIndexed(this.#messagesByRun, runId, stored);
          return copy(stored);
        },
        list: (runId) => (this.#messagesByRun.get(runId) ?? []).map((m) => copy(m)),
      },
      inbox: {
        enqueue: (record) => insertNew('inbox', record.id, record),
        listQueued: (runId) =>
          this.#all<InboxRecord>('inbox')
            .filter((m) => m.runId === runId && m.status === 'queued')
            .sort((a, b) => a.createdAt - b.createdAt || byCodeUnit(a.id, b.id)),
        markApplied: (ids, at) => {
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
      grantUsage: {
        get: (grantId, day) => {
          const stored = this.#table<GrantUsage>('grantUsage').get(usageKey(grantId, day));
          return stored ? { ...stored } : { grantId, day, invocations: 0, bytes: 0 };
        },
        add: (grantId, day, invocations, bytes) => {
          const key = usageKey(grantId, day);
          const current = this.#table<GrantUsage>('grantUsage').get(key);
          const next: GrantUsage = { grantId, day, invocations: (current?.invocations ?? 0) + invocations, bytes: (current?.bytes ?? 0) + bytes };
          this.#write('grantUsage', key, next);
          return { ...next };
        },
      },
      decisions: {
        insert: (record) => {
          if (this.#decisionKeys.has(record.dedupeKey)) return false;
          insertNew('decisions', record.id, record);
          this.#decisionKeys.set(record.dedupeKey, record.id);
          this.#undo!.push(() => this.#decisionKeys.delete(record.dedupeKey));
          return true;
        },
        list: (filter = {}) =>
          this.#all<DecisionRecord>('decisions')
            .filter((d) => (filter.status === undefined || d.status === filter.status) && (filter.subjectId === undefined || d.subjectId === filter.subjectId))
            .sort((a, b) => b.createdAt - a.createdAt || byCodeUnit(b.id, a.id)),
      },
    };
  }
}
