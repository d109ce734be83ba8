/**
 * The storage side of maintenance: what retention may remove, per record kind, in bounded batches; named leases.
 * The maintenance service (`host.maintenance`) drives it; it is never a side door around the storage port.
 * @packageDocumentation
 */

/**
 * Record kinds retention applies to.
 * - `runs`: a terminal run's events, messages, steering inbox and settled budget reservations (the run row stays,
 *   with its report, marked pruned); a run with a `running` or `unknown` ledger entry, an open decision about it
 *   or a child still going is live (a `pending` entry, the end state of a submit, does not keep it);
 * - `runReports`: the run row itself (its compact report), with anything `runs` would remove;
 * - `audit`: audit rows (a chain checkpoint row records the head of what was removed);
 * - `approvals`: decided or expired approvals;
 * - `plans`: plans no approval row refers to any more (approvals go first) whose creating run (`createdBy`
 *   `agent:<runId>`) is absent or terminal;
 * - `decisions`: resolved or dismissed decisions;
 * - `grantUsage`: per-day grant usage counters and per-period budget counters of periods long over;
 * - `ledger`: settled ledger entries (`succeeded`, `failed`; never `running`, `unknown` or `pending`) whose run is
 *   absent or terminal;
 * - `scheduleTicks`: the records of handled schedule ticks, aged by `handledAt`; never the newest (greatest
 *   `tickAt`) of a schedule, nor one whose tick falls on the current or the previous UTC day (the per-day schedule
 *   budgets count them). `keepNewest` counts per schedule for this kind.
 * @public
 */
export type RetentionKind =
  | 'runs'
  | 'runReports'
  | 'audit'
  | 'approvals'
  | 'plans'
  | 'decisions'
  | 'grantUsage'
  | 'ledger'
  | 'scheduleTicks';

/** Every {@link RetentionKind}, in the order prune visits them. @public */
export const RETENTION_KINDS: readonly RetentionKind[] = [
  'runs',
  'runReports',
  'approvals',
  'plans',
  'decisions',
  'grantUsage',
  'ledger',
  'scheduleTicks',
  'audit',
];

/**
 * Which items of one kind retention may remove. An item is removed when it is eligible (never live: see each
 * kind) and it is older than `before` or beyond the newest `keepNewest` eligible items.
 * @public
 */
export interface PruneCriteria {
  /**
   * Items whose age time (end, decision, resolution, settlement, `at`, `handledAt`) is before this (ms); absent: no
   * age limit.
   */
  before?: number;
  /**
   * Keep the newest this many eligible items whatever their age (kind `scheduleTicks`: per schedule); absent: no
   * count limit.
   */
  keepNewest?: number;
  /** The current time (ms), for liveness checks such as an approval's expiry. */
  now: number;
  /**
   * Kind `audit`: the secret the `audit.pruned` checkpoint row is signed with (its `signature`, see
   * `auditCheckpointSignature`); absent: the checkpoint is unsigned.
   */
  checkpointKey?: string;
}

/** Rows and bytes of one kind removed (or that would be removed). @public */
export interface PruneCount {
  /** Rows removed, counted over every table the kind spans (a run's events, messages, …). */
  rows: number;
  /** Bytes of stored content those rows held (column text and numbers, not page overhead). */
  bytes: number;
}

/** One batch of {@link MaintenanceRepository.prune}. @public */
export interface PruneBatch extends PruneCount {
  /** Whether nothing eligible is left for these criteria (the caller stops). */
  done: boolean;
  /**
   * Items (runs, rows) the batch dealt with; a run with no events still counts although it removed 0 rows. The
   * caller tells a batch that made progress from a stuck store by it (absent: by `rows`).
   */
  items?: number;
}

/**
 * Retention and leases on one store, inside the caller's transaction (`storage.transaction`), or each call its own
 * transaction on the adapter.
 * @public
 */
export interface MaintenanceRepository {
  /** Rows and bytes {@link MaintenanceRepository.prune} would remove for these criteria, removing nothing. */
  estimate(kind: RetentionKind, criteria: PruneCriteria): Promise<PruneCount>;
  /**
   * Removes at most `batchSize` items (runs, rows, …) of `kind` that `criteria` select, never a live one.
   * @param batchSize - items per batch (a positive integer); a batch is one transaction when called on the adapter
   */
  prune(kind: RetentionKind, criteria: PruneCriteria, batchSize: number): Promise<PruneBatch>;
  /** Rows and content bytes per kind held now. */
  usage(): Promise<Record<RetentionKind, PruneCount>>;
  /**
   * Takes or renews the lease `name` for `owner` until `now + ttlMs` when it is free, expired or already `owner`'s.
   * @returns whether `owner` holds it now
   */
  acquireLease(name: string, owner: string, now: number, ttlMs: number): Promise<boolean>;
  /** Releases the lease when `owner` holds it; returns whether it did. */
  releaseLease(name: string, owner: string): Promise<boolean>;
}
