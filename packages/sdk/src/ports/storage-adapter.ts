import type {
  ApprovalRecord,
  ApprovalStatus,
  AuditAction,
  AuditRecord,
  GrantRecord,
  GrantUsage,
  JsonValue,
  LedgerEntry,
  LedgerState,
  PlanRecord,
  PolicyRevisionRecord,
} from '../core/records';
import type { MaintenanceRepository } from './maintenance-repository';
import type { ScheduleRepository } from './schedule-repository';
import type { IntentRepository } from './intent-repository';
import type { OutboxRepository } from './outbox-repository';
import type { BudgetAmounts, BudgetCounters, BudgetPeriod, BudgetReservation } from '../core/budget-records';
import type {
  DecisionRecord,
  InboxRecord,
  RunEventRecord,
  RunMessageRecord,
  RunRecord,
  RunStatus,
} from '../core/run-records';

/**
 * Ledger entries by idempotency key. Writes are compare-and-set on the executor token so a
 * stale executor can never overwrite a newer state, in one process or many.
 * @public
 */
export interface LedgerRepository {
  /** The entry with this key, or undefined. */
  get(key: string): Promise<LedgerEntry | undefined>;
  /** The entry claimed in `scopeId` under tool-call / request id `callId`, or undefined. */
  findByCall(scopeId: string, callId: string): Promise<LedgerEntry | undefined>;
  /** Inserts the entry unless its key exists; returns whether it was inserted (never throws on a duplicate key). */
  insert(entry: LedgerEntry): Promise<boolean>;
  /**
   * Applies `patch` only if the stored token equals `expectedToken` (and, when given, the state is one
   * of `expectedStates`); returns whether it applied.
   */
  compareAndSet(
    key: string,
    expectedToken: string,
    patch: Partial<LedgerEntry>,
    expectedStates?: readonly LedgerState[],
  ): Promise<boolean>;
  /** Entries in the given states, oldest claim first; `claimedBefore` (ms) filters by claim time. */
  listByState(
    states: readonly LedgerState[],
    options?: { claimedBefore?: number; limit?: number },
  ): Promise<LedgerEntry[]>;
  /**
   * Entries claimed by run `runId` (its model's capability calls and its code cells' calls), oldest claim first,
   * at most `limit` (default 100). The verified goal report judges a run by them.
   */
  listByRun(runId: string, options?: { limit?: number }): Promise<LedgerEntry[]>;
  /**
   * Entries of `grantId` with `claimedAt` in [`from`, `to`) (ms) and the sum of their `bytes`, counted from the
   * ledger rows (each entry once, under its latest claim). Budgets are not checked with this: they read the
   * per-day counters of {@link GrantUsageRepository}, which cost the same however long the ledger is.
   */
  usageForGrant(grantId: string, from: number, to: number): Promise<{ invocations: number; bytes: number }>;
  /** Deletes entries in `states` settled before `settledBefore` (ms); returns how many. */
  deleteSettledBefore(settledBefore: number, states: readonly LedgerState[]): Promise<number>;
}

/** Approval records. @public */
export interface ApprovalRepository {
  /** Inserts a new approval (its id must be new). */
  insert(record: ApprovalRecord): Promise<void>;
  /** The approval with this id, or undefined. */
  get(id: string): Promise<ApprovalRecord | undefined>;
  /** Applies `patch` only if the stored status equals `expectedStatus`; returns whether it applied. */
  compareAndSet(id: string, expectedStatus: ApprovalStatus, patch: Partial<ApprovalRecord>): Promise<boolean>;
  /**
   * Approvals filtered by status, plan and/or requester (`requestedBy`, e.g. `agent:<runId>`), newest first.
   * The runtime also checks the requester of what it gets, so an adapter written before `requestedBy` existed
   * (which ignores it) stays correct, only slower.
   */
  list(filter?: ApprovalListFilter): Promise<ApprovalRecord[]>;
}

/** What {@link ApprovalRepository.list} filters by: each field given must match; `limit` caps the rows. @public */
export interface ApprovalListFilter {
  /** Only approvals in this status. */
  status?: ApprovalStatus;
  /** Only approvals of this plan. */
  planId?: string;
  /** Only approvals this principal asked for (a run asks as `agent:<runId>`). */
  requestedBy?: string;
  /** At most this many rows (a positive integer); all when absent. */
  limit?: number;
}

/** Automation grants. @public */
export interface GrantRepository {
  /** Inserts a new grant (its id must be new). */
  insert(record: GrantRecord): Promise<void>;
  /** The grant with this id, or undefined. */
  get(id: string): Promise<GrantRecord | undefined>;
  /** Replaces the stored grant with the same id. */
  update(record: GrantRecord): Promise<void>;
  /** Grants filtered by status, oldest first. */
  list(filter?: { status?: GrantRecord['status'] }): Promise<GrantRecord[]>;
}

/** Plan artifacts. @public */
export interface PlanRepository {
  /** Inserts a new plan (its id must be new). */
  insert(record: PlanRecord): Promise<void>;
  /** The plan with this id, or undefined. */
  get(id: string): Promise<PlanRecord | undefined>;
  /** Replaces the plan only if the stored revision equals `expectedRevision`; returns whether it applied. */
  compareAndSet(id: string, expectedRevision: number, record: PlanRecord): Promise<boolean>;
}

/** Policy revisions. @public */
export interface PolicyRevisionRepository {
  /** Inserts or replaces a revision. */
  put(record: PolicyRevisionRecord): Promise<void>;
  /** The revision with this id, or undefined. */
  get(id: string): Promise<PolicyRevisionRecord | undefined>;
  /** Revisions of one kind, oldest first. */
  listByKind(kind: string): Promise<PolicyRevisionRecord[]>;
}

/** Audit rows, append-only. @public */
export interface AuditRepository {
  /** Appends a row; returns it with its storage-assigned `seq`. */
  append(record: AuditRecord): Promise<AuditRecord>;
  /** Rows with `seq > after` (default 0), oldest first, at most `limit` (default 100). */
  list(filter?: {
    after?: number;
    limit?: number;
    action?: AuditAction;
    capabilityId?: string;
    invocationId?: string;
  }): Promise<AuditRecord[]>;
}

/**
 * Per-grant, per-UTC-day usage counters: what a grant's daily budgets (`maxInvocationsPerDay`,
 * `maxBytesPerDay`) are checked against, in one keyed read however many ledger entries the day has.
 *
 * @remarks
 * The invocation path charges a claim authorized by a grant with {@link GrantUsageRepository.add} in the
 * transaction of the claim, so the budget check and the charge are atomic and a rolled-back claim charges
 * nothing. Writing ledger entries directly (`ledger.insert`) charges nothing.
 * @public
 */
export interface GrantUsageRepository {
  /**
   * The counters of `grantId` for the UTC day starting at `day`.
   * @param grantId - the grant
   * @param day - start of the UTC day in ms since the epoch (a multiple of 86 400 000, see `utcDayStart`)
   * @returns the counters; `{ grantId, day, invocations: 0, bytes: 0 }` when nothing was charged that day
   */
  get(grantId: string, day: number): Promise<GrantUsage>;
  /**
   * Adds to the counters of (`grantId`, `day`), creating them at zero first.
   * @param grantId - the grant
   * @param day - start of the UTC day in ms (a multiple of 86 400 000)
   * @param invocations - claims to add (a non-negative integer; the invocation path adds 1 per claim)
   * @param bytes - bytes to add (non-negative)
   * @returns the counters after the addition
   */
  add(grantId: string, day: number, invocations: number, bytes: number): Promise<GrantUsage>;
}

/**
 * Which counters: a subject's (or the household's) in the period of `period` that starts at `start` (ms).
 * @public
 */
export type BudgetCounterKey = Pick<BudgetCounters, 'subject' | 'period' | 'start'>;

/**
 * Spending counters per subject and period, and the reservations model calls make against them
 * (docs/budgets.md).
 *
 * @remarks
 * The runtime reserves a model call's worst case in one transaction: it reads the counters of every
 * applicable budget with {@link BudgetUsageRepository.get} (inside a transaction the row is locked —
 * PostgreSQL: created at zero and locked until the transaction ends — so a concurrent reservation in another
 * process waits and then reads this one's charge), checks them, inserts the reservation and adds its amounts.
 * @public
 */
export interface BudgetUsageRepository {
  /**
   * The counters of `subject` for the period starting at `start`; zero when nothing was charged. Inside a
   * transaction the row is locked until the transaction ends.
   */
  get(subject: string, period: BudgetPeriod, start: number): Promise<BudgetCounters>;
  /**
   * Adds `delta` (amounts may be negative: a settlement below the reservation) to the counters, creating them at
   * zero first.
   * @returns the counters after the addition
   */
  add(subject: string, period: BudgetPeriod, start: number, delta: BudgetAmounts): Promise<BudgetCounters>;
  /**
   * The counters of each of `keys`, as {@link BudgetUsageRepository.get} reads (and, inside a transaction, locks)
   * them one by one, in the order of `keys`, in one statement. Optional: where a store has no such method, each is
   * read with `get`. The keys are distinct.
   * @returns the counters, in the order of `keys`
   */
  getEach?(keys: ReadonlyArray<BudgetCounterKey>): Promise<BudgetCounters[]>;
  /**
   * Adds `delta` to the counters of each of `keys`, as {@link BudgetUsageRepository.add} does one by one, in the
   * order of `keys`, in one statement. Optional: where a store has no such method, each is added with `add`. The
   * keys are distinct.
   * @returns the counters after the addition, in the order of `keys`
   */
  addEach?(keys: ReadonlyArray<BudgetCounterKey>, delta: BudgetAmounts): Promise<BudgetCounters[]>;
  /** The reservation with this key, or undefined. */
  reservation(key: string): Promise<BudgetReservation | undefined>;
  /** Inserts the reservation unless its key exists; returns whether it was inserted (never throws on a duplicate). */
  reserve(record: BudgetReservation): Promise<boolean>;
  /**
   * Replaces state, amounts and `updatedAt` of the reservation when its stored state is `expectedState`; returns
   * whether it did.
   */
  updateReservation(
    key: string,
    expectedState: BudgetReservation['state'],
    patch: Pick<BudgetReservation, 'state' | 'runs' | 'modelCalls' | 'tokens' | 'costUsd' | 'updatedAt'>,
  ): Promise<boolean>;
  /** Reservations, oldest first, by state and/or run; at most `limit` (default all). */
  reservations(filter?: {
    state?: BudgetReservation['state'];
    runId?: string;
    limit?: number;
  }): Promise<BudgetReservation[]>;
}

/** Small JSON settings (automation switch, modes). @public */
export interface SettingsRepository {
  /** The value stored under `key`, or undefined. */
  get(key: string): Promise<JsonValue | undefined>;
  /** Stores `value` under `key`. */
  set(key: string, value: JsonValue): Promise<void>;
}

/**
 * The repositories available inside one transaction (and, each call its own transaction, on the adapter).
 * @public
 */
export interface StorageSession {
  /** Ledger entries by idempotency key: claims, executor tokens, outcomes (docs/architecture.md#the-ledger). */
  readonly ledger: LedgerRepository;
  /** Approvals, each bound to one plan revision. */
  readonly approvals: ApprovalRepository;
  /** Automation grants and their per-day usage counters. */
  readonly grants: GrantRepository;
  /** Plans: the reviewed artifacts approvals bind to, with payload hash and revision. */
  readonly plans: PlanRepository;
  /** Policy revisions grants may be bound to. */
  readonly policies: PolicyRevisionRepository;
  /** The append-only audit trail (`capability.invoke`, `capability.denied`, `capability.refused`, …), ordered by `seq`. */
  readonly audit: AuditRepository;
  /** Host-wide key/value settings (e.g. the automation switch and read-only reconcile mode). */
  readonly settings: SettingsRepository;
  /** Runs, with their leases (claimed, renewed and released atomically). */
  readonly runs: RunRepository;
  /** Run events with per-run `seq` and global `globalSeq`. */
  readonly events: RunEventRepository;
  /** Each run's conversation with the model, message by message. */
  readonly messages: RunMessageRepository;
  /** Steering messages queued for runs, until applied before a model call. */
  readonly inbox: InboxRepository;
  /** Pending decisions for people. */
  readonly decisions: DecisionRepository;
  /** Per-grant, per-UTC-day usage counters (daily budgets). */
  readonly grantUsage: GrantUsageRepository;
  /** Spending counters per subject and period, and model-call reservations (docs/budgets.md). */
  readonly budgetUsage: BudgetUsageRepository;
  /**
   * Retention (what may be removed of each `RetentionKind`, in bounded batches, never a live item) and named
   * leases (one maintenance process of many). On the adapter, `prune` and the leases are each one transaction;
   * `estimate` and `usage` only read.
   */
  readonly maintenance: MaintenanceRepository;
  /**
   * Schedules and the claims of their ticks: a tick record is stored once per (schedule, tick), in the transaction
   * that creates its run (docs/schedules.md).
   */
  readonly schedules: ScheduleRepository;
  /**
   * Intents in flight: one holder per (media entity, effect class) across every process of the store, so a second
   * download or organize of the same title joins the first instead of starting a second job (docs/intents.md).
   */
  readonly intents: IntentRepository;
  /**
   * The channel outbox: what runs say to people on message channels, in order per chat, written in the transaction
   * of the step that produced it and delivered by the outbox dispatcher (docs/channels.md).
   */
  readonly outbox: OutboxRepository;
}

/**
 * The storage port: async, transactional, versioned migrations.
 *
 * @remarks
 * Implementations: `MemoryStorage` from `@media-agent/sdk/storage` (tests), `SqliteStorage` from
 * `@media-agent/sdk/sqlite` (the embedded default), and `PostgresStorage` from `@media-agent/sdk/postgres` (many
 * processes, one database). All pass the conformance
 * suite exported from `@media-agent/sdk/testing`.
 *
 * Calling a repository directly on the adapter runs that one call in its own transaction.
 * `transaction(fn)` runs `fn` atomically: if it throws, none of its writes are kept.
 * @public
 */
export interface StorageAdapter extends StorageSession {
  /** Implementation name, e.g. `memory`, `sqlite`. */
  readonly kind: string;
  /**
   * Creates or upgrades the schema to {@link STORAGE_SCHEMA_VERSION}; safe to call repeatedly.
   * @throws `StorageSchemaTooNewError` (`STORAGE_SCHEMA_TOO_NEW`) when the store was written by a newer SDK
   */
  migrate(): Promise<void>;
  /** The schema version the store is at (0 before the first migration). */
  schemaVersion(): Promise<number>;
  /**
   * Runs `fn` in one transaction. Transactions are serialized per adapter; `fn` must only use the
   * session it is given.
   * @throws whatever `fn` throws (after rolling back), `StorageLockedError` when the store stays locked
   */
  transaction<T>(fn: (session: StorageSession) => Promise<T>): Promise<T>;
  /**
   * Appends an audit row without a transaction of its own, for callers that do not wait for it to be
   * committed (the invocation path uses it for the rows of `read` and `preview` calls).
   *
   * @remarks
   * Rows keep call order with every other audit row of this adapter: a row is written before any
   * transaction or repository call made on the adapter after it, so its `seq` is below theirs and
   * `audit.list` on the adapter sees it. Durable stores write pending rows in batches, together with the
   * next transaction when there is one, else in one transaction of their own at the latest when the event
   * loop next turns (`setImmediate`) or when 256 rows are pending, and on `close()`. A process that dies in
   * between loses the rows not yet written (at most one event-loop turn's worth); every other audit row is
   * written in the transaction of what it records, as before.
   *
   * @param record - the row (`seq` is ignored and assigned by the store)
   * @returns a promise that resolves once the row is committed and rejects, with a storage error, when it
   *   could not be written (e.g. `STORAGE_CLOSED`, `STORAGE_LOCKED`); callers that do not wait must handle the rejection
   */
  appendAuditBatched(record: AuditRecord): Promise<void>;
  /** Releases connections and file handles. Further calls fail with `StorageClosedError`. */
  close(): Promise<void>;
  /**
   * Optional: calls `listener` soon after another process (or this one) commits a change of `topic`, so waiting
   * readers look at storage at once instead of at their next poll. Only a hint — a listener reads storage, which
   * stays the source of truth, and may be called when nothing new is there (e.g. after a reconnection). Adapters
   * shared by several processes implement it (PostgreSQL: `LISTEN`/`NOTIFY`); the run event bus and the worker
   * pool use it when present and poll either way.
   * @param listener - called with `events` (run events were appended) or `runs` (a run may have become runnable)
   * @returns the function that stops the calls
   */
  watch?(listener: (topic: StorageTopic) => void): () => void;
  /**
   * Optional: gives the space retention freed back to the file system (SQLite: `PRAGMA incremental_vacuum` then
   * `PRAGMA wal_checkpoint(TRUNCATE)`). Run it after a prune; it takes the write lock briefly.
   * @returns the bytes the store's files shrank by
   */
  compact?(): Promise<StorageCompaction>;
  /** Optional: the disk use of the store's files, in bytes (SQLite: database, WAL and free pages). */
  fileUsage?(): Promise<StorageFileUsage>;
}

/** What {@link StorageAdapter.compact} did. @public */
export interface StorageCompaction {
  /** Bytes the store's files shrank by (database and WAL; 0 when nothing was free or the WAL stayed pinned). */
  freedBytes: number;
}

/** Disk use of a store's files, in bytes. @public */
export interface StorageFileUsage {
  /** Size of the database file (SQLite; PostgreSQL: the tables, their indexes and TOAST, pg_total_relation_size). */
  databaseBytes: number;
  /** Size of the write-ahead log file (SQLite; 0 on PostgreSQL, whose WAL is the server's). */
  walBytes: number;
  /** Bytes of free pages inside the database file, reusable and given back by `compact()` (SQLite; 0 on PostgreSQL). */
  freelistBytes: number;
  /** Page size in bytes (SQLite's `page_size`; PostgreSQL's block size). */
  pageSize: number;
}

/**
 * What {@link StorageAdapter.watch} reports: `events` (run events were appended) or `runs` (a run was queued,
 * woken, aborted, scheduled or released, so a worker may lease it).
 * @public
 */
export type StorageTopic = 'events' | 'runs';

/**
 * The schema version this SDK writes. Bumped by every migration.
 * @public
 */
export const STORAGE_SCHEMA_VERSION = 15;

/**
 * A run patch: any fields but those fixed when the run is created — its id, `mode`, `capabilityAllowlist` and `depth`
 * (what the run may do: authorization reads them once per run) — and those only retention and forks write.
 * @public
 */
export type RunPatch = Partial<
  Omit<RunRecord, 'id' | 'prunedAt' | 'forkedFrom' | 'mode' | 'capabilityAllowlist' | 'depth'>
>;

/**
 * Runs and their leases: one driver per run, heartbeat, takeover after expiry.
 * @public
 */
export interface RunRepository {
  /** Inserts a new run (its id must be new). */
  insert(run: RunRecord): Promise<void>;
  /** The run, or undefined. */
  get(id: string): Promise<RunRecord | undefined>;
  /**
   * Applies `patch` atomically; when `expectLeaseOwner` is given, only if that worker still holds the lease.
   * @returns the updated run, or undefined when the run is missing or the expectation failed
   */
  patch(id: string, patch: RunPatch, expectLeaseOwner?: string): Promise<RunRecord | undefined>;
  /** Runs newest first, optionally by status, session or the actor who started them (`startedBy`). */
  list(filter?: { status?: RunStatus; sessionId?: string; startedBy?: string; limit?: number }): Promise<RunRecord[]>;
  /**
   * Leases one runnable run to `owner` until `now + leaseMs`: the oldest run that is `queued`; or `running`
   * or `waiting` with an expired (or no) lease and either `wakeRequested`, `abortRequested`, status `running`
   * (takeover after a crash) or `notBefore <= now`.
   * @returns the leased run, or undefined when none is runnable
   */
  acquireLease(owner: string, now: number, leaseMs: number): Promise<RunRecord | undefined>;
  /** Extends the lease if `owner` still holds it; returns whether it did. */
  renewLease(id: string, owner: string, now: number, leaseMs: number): Promise<boolean>;
  /** Releases the lease if `owner` holds it; returns whether it did. */
  releaseLease(id: string, owner: string): Promise<boolean>;
  /** Runs created in [`from`, `to`) and the sum of their `usage.costUsd` (for per-day budgets). */
  totalsBetween(from: number, to: number): Promise<{ runs: number; costUsd: number }>;
}

/** Run events: written before they are published. @public */
export interface RunEventRepository {
  /** Appends an event, assigning the run's next `seq` and the next global sequence. */
  append(event: Omit<RunEventRecord, 'seq' | 'globalSeq'>): Promise<RunEventRecord>;
  /** A run's events with `seq > afterSeq` (default 0), oldest first, at most `limit` (default 100). */
  listByRun(runId: string, options?: { afterSeq?: number; limit?: number }): Promise<RunEventRecord[]>;
  /** Events of every run with `globalSeq > after` (default 0), oldest first, at most `limit` (default 100). */
  listAfter(after?: number, limit?: number): Promise<RunEventRecord[]>;
}

/** A run's conversation. @public */
export interface RunMessageRepository {
  /** Appends a message; returns it with its `seq`. */
  append(runId: string, message: JsonValue, at: number): Promise<RunMessageRecord>;
  /** The whole conversation, in order. */
  list(runId: string): Promise<RunMessageRecord[]>;
}

/** Steering inboxes. @public */
export interface InboxRepository {
  /** Queues a message (its id must be new). */
  enqueue(record: InboxRecord): Promise<void>;
  /** A run's queued messages, oldest first. */
  listQueued(runId: string): Promise<InboxRecord[]>;
  /** Marks messages applied; returns how many changed. */
  markApplied(ids: readonly string[], at: number): Promise<number>;
}

/** Filter of {@link DecisionRepository.list}; every field optional, combined with AND. @public */
export interface DecisionFilter {
  /** Only decisions in this status. */
  status?: DecisionRecord['status'];
  /** Only decisions about this subject id. */
  subjectId?: string;
  /** Only decisions of this kind. */
  kind?: string;
  /** Only decisions of this root cause. */
  rootCause?: string;
}

/** Decisions for people, one per dedupe key; changes are compare-and-set on the revision. @public */
export interface DecisionRepository {
  /** Inserts a decision unless one with its `dedupeKey` exists; returns whether it was inserted. */
  insert(record: DecisionRecord): Promise<boolean>;
  /** The decision with this id, or undefined. */
  get(id: string): Promise<DecisionRecord | undefined>;
  /** The decision with this dedupe key, or undefined. */
  getByKey(dedupeKey: string): Promise<DecisionRecord | undefined>;
  /**
   * Replaces the stored decision with the same id when its stored revision is `expectedRevision`
   * (`record.revision` is then stored as given); returns whether it was replaced.
   */
  update(record: DecisionRecord, expectedRevision: number): Promise<boolean>;
  /** Decisions, newest first, filtered. */
  list(filter?: DecisionFilter): Promise<DecisionRecord[]>;
}
