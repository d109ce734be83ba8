// host.maintenance: retention applied to the store in bounded batches (each its own transaction), one prune at a
// time per process and per store (the `maintenance` lease), the SQLite file compacted after a real prune.
import { describeValue } from '../../core/describe-value';
import { MediaAgentError } from '../../core/errors';
import type { Clock } from '../../ports/clock';
import type { Logger } from '../../ports/logger';
import {
  type MaintenanceRepository,
  type PruneCount,
  RETENTION_KINDS,
  type RetentionKind,
} from '../../ports/maintenance-repository';
import { linkedSignal } from '../../core/linked-signal';
import type { StorageAdapter, StorageFileUsage } from '../../ports/storage-adapter';
import { MaintenanceBusyError } from './maintenance-errors';
import { type ResolvedRetention, retentionCriteria } from './retention-options';

/** Items per batch when `prune` is given none. @public */
export const DEFAULT_PRUNE_BATCH_SIZE = 500;
/** Largest `batchSize` accepted. */
const MAX_PRUNE_BATCH_SIZE = 10_000;
/** Batches in a row that deal with nothing, without the store saying done, after which a kind's prune stops. */
const MAX_STALLED_BATCHES = 2;
/** Lease of one prune per store; renewed while the prune runs. */
const LEASE = 'maintenance';
/** Lifetime of the `maintenance` lease, ms of the host clock; renewed every third of it. */
export const MAINTENANCE_LEASE_MS = 60_000;

/** What {@link MaintenanceHandle.usage} reports. @public */
export interface MaintenanceUsage {
  /** When it was read (host clock, ms). */
  at: number;
  /** Rows and content bytes per record kind. */
  kinds: Record<RetentionKind, PruneCount>;
  /** File sizes (database, WAL, free pages), when the store reports them (`fileUsage()`: SQLite). */
  files?: StorageFileUsage;
}

/** Options of {@link MaintenanceHandle.prune}. @public */
export interface PruneOptions {
  /** Count what would be removed, remove nothing (no lease, no compaction). @defaultValue false */
  dryRun?: boolean;
  /** The kinds to prune (a subset of `RETENTION_KINDS`). @defaultValue every kind whose retention is not "keep" */
  kinds?: readonly RetentionKind[];
  /** Items (runs, rows) per batch, 1 – 10 000; each batch is one transaction. @defaultValue 500 */
  batchSize?: number;
  /** Stops the prune between batches; the summary then says `aborted: true` (whole batches only were removed). */
  signal?: AbortSignal;
  /** Called after every batch (long prunes show progress); its failure is ignored. */
  onProgress?: (progress: PruneProgress) => void;
}

/** One batch's progress. @public */
export interface PruneProgress {
  /** The kind pruned. */
  kind: RetentionKind;
  /** Totals of this kind so far. */
  rows: number;
  /** Content bytes of this kind so far. */
  bytes: number;
  /** Batches of this kind so far. */
  batches: number;
  /** Whether this kind is done. */
  done: boolean;
}

/** Rows, bytes and batches of one kind. @public */
export interface PrunedKind extends PruneCount {
  /** Batches (transactions) it took; 0 in a dry run. */
  batches: number;
  /**
   * True when the prune of this kind stopped although the store did not say done: two batches in a row dealt with
   * nothing (a store that never ends). What is left stays for the next prune; a warning is logged.
   */
  stalled?: boolean;
}

/** What {@link MaintenanceHandle.prune} did (or would do, `dryRun`). @public */
export interface PruneSummary {
  /** Whether nothing was removed by design. */
  dryRun: boolean;
  /** Start, host clock, ms. */
  startedAt: number;
  /** End, host clock, ms. */
  endedAt: number;
  /** True when the signal stopped the prune between batches. */
  aborted?: boolean;
  /** Per kind pruned (kinds kept forever are absent). */
  kinds: Partial<Record<RetentionKind, PrunedKind>>;
  /** What compaction gave back (SQLite, after a real prune that removed rows). */
  compacted?: { freedBytes: number };
  /** Usage before (kinds and files). */
  usageBefore?: MaintenanceUsage;
  /** Usage after (kinds and files). */
  usageAfter?: MaintenanceUsage;
}

/**
 * Retention and usage of the host's store (`host.maintenance`).
 *
 * @example
 * ```ts
 * const plan = await host.maintenance.prune({ dryRun: true }); // what would go, nothing removed
 * const done = await host.maintenance.prune({ onProgress: (p) => console.log(p.kind, p.rows) });
 * console.log(done.kinds.runs?.rows, done.compacted?.freedBytes, (await host.maintenance.usage()).files);
 * ```
 * @public
 */
export interface MaintenanceHandle {
  /**
   * Removes what the host's `retention` lets go, kind by kind in `RETENTION_KINDS` order, in batches of `batchSize`
   * items, each batch its own transaction, yielding to other work between batches; never a live item (a running
   * or waiting run, a pending approval, a `running` or `unknown` ledger entry …). After a real prune that removed
   * rows, a SQLite store is compacted (free pages returned, WAL truncated).
   * A kind's prune goes on until the store says done; should two batches in a row deal with nothing, it stops and
   * says `stalled: true` for that kind.
   * @throws {@link MaintenanceBusyError} `MAINTENANCE_BUSY` when a prune of this host runs or another host or process
   *   holds the store's `maintenance` lease; `MAINTENANCE_UNSUPPORTED` for a store without `storage.maintenance`;
   *   `OPTIONS_INVALID` (`details.option` `prune.<field>`) for an unknown field, a `dryRun` that is not a boolean, an
   *   unknown kind, a bad `batchSize`, a `signal` that is not an AbortSignal or an `onProgress` that is not a
   *   function; the store's typed error (`STORAGE_*`, e.g. a
   *   read-only or full disk) when a batch fails: batches before it stay removed, nothing live is touched
   */
  prune(options?: PruneOptions): Promise<PruneSummary>;
  /** Rows and bytes per kind, and the store's file sizes (SQLite). */
  usage(): Promise<MaintenanceUsage>;
}

/** What the service needs. */
export interface MaintenanceServiceDeps {
  /** The store. */
  storage: StorageAdapter;
  /** The host clock (criteria, leases). */
  clock: Clock;
  /** Where the summary and failures are logged. */
  logger: Logger;
  /** Retention per kind. */
  retention: ResolvedRetention;
  /** This process's lease owner name. */
  owner: string;
  /** The key audit retention signs its checkpoints with (`audit.checkpointKey`); absent: unsigned. */
  checkpointKey?: string | undefined;
}

/** The default {@link MaintenanceHandle}. */
export class MaintenanceService implements MaintenanceHandle {
  readonly #deps: MaintenanceServiceDeps;
  #running: Promise<unknown> | undefined;
  /** Aborted by {@link MaintenanceService.stop}: a prune under way ends at its next batch. */
  readonly #stopped = new AbortController();

  constructor(deps: MaintenanceServiceDeps) {
    this.#deps = deps;
  }

  /**
   * The store's maintenance repository.
   * @throws {@link MediaAgentError} `MAINTENANCE_UNSUPPORTED` when the store has none
   */
  repository(): MaintenanceRepository {
    const repo = this.#deps.storage.maintenance as MaintenanceRepository | undefined;
    if (!repo || typeof repo.prune !== 'function')
      throw new MediaAgentError(
        'MAINTENANCE_UNSUPPORTED',
        'this storage adapter has no maintenance repository (storage.maintenance); retention cannot prune it',
      );
    return repo;
  }

  /** {@inheritDoc MaintenanceHandle.usage} */
  async usage(): Promise<MaintenanceUsage> {
    const repo = this.repository();
    const at = this.#deps.clock.now();
    const kinds = await repo.usage();
    const store = this.#deps.storage;
    const files = typeof store.fileUsage === 'function' ? await store.fileUsage() : undefined;
    return { at, kinds, ...(files ? { files } : {}) };
  }

  /** {@inheritDoc MaintenanceHandle.prune} */
  async prune(options: PruneOptions = {}): Promise<PruneSummary> {
    const { kinds, batchSize } = checkPruneOptions(options);
    const repo = this.repository();
    const dryRun = options.dryRun === true;
    if (dryRun) return this.#estimate(repo, kinds);
    if (this.#running) throw new MaintenanceBusyError('process');
    // Detached from the service's long-lived stop signal when the prune ends (see linkedSignal).
    const link = linkedSignal([options.signal, this.#stopped.signal]);
    const running = this.#leased(repo, kinds, batchSize, { ...options, signal: link.signal });
    this.#running = running;
    try {
      return await running;
    } finally {
      this.#running = undefined;
      link.dispose();
    }
  }

  /** Ends a prune under way at its next batch and waits for it (the host's `stop()`, before the store closes). */
  async stop(): Promise<void> {
    this.#stopped.abort();
    await this.#running?.catch(() => undefined);
  }

  async #leased(
    repo: MaintenanceRepository,
    kinds: readonly RetentionKind[],
    batchSize: number,
    options: PruneOptions,
  ): Promise<PruneSummary> {
    const { clock, owner } = this.#deps;
    if (!(await repo.acquireLease(LEASE, owner, clock.now(), MAINTENANCE_LEASE_MS)))
      throw new MaintenanceBusyError('lease');
    try {
      return await this.#prune(repo, kinds, batchSize, options);
    } finally {
      await repo.releaseLease(LEASE, owner).catch((error: Error) =>
        this.#deps.logger.warn('could not release the maintenance lease (it expires by itself)', {
          message: error.message,
        }),
      );
    }
  }

  async #estimate(repo: MaintenanceRepository, kinds: readonly RetentionKind[]): Promise<PruneSummary> {
    const startedAt = this.#deps.clock.now();
    const out: PruneSummary['kinds'] = {};
    for (const kind of kinds) {
      const criteria = retentionCriteria(this.#deps.retention[kind], startedAt);
      if (!criteria) continue;
      out[kind] = { ...(await repo.estimate(kind, criteria)), batches: 0 };
    }
    return { dryRun: true, startedAt, endedAt: this.#deps.clock.now(), kinds: out };
  }

  async #prune(
    repo: MaintenanceRepository,
    kinds: readonly RetentionKind[],
    batchSize: number,
    options: PruneOptions,
  ): Promise<PruneSummary> {
    const { clock, owner, logger } = this.#deps;
    const startedAt = clock.now();
    let renewedAt = startedAt;
    const usageBefore = await this.usage();
    const out: PruneSummary['kinds'] = {};
    let aborted = false;
    let removed = 0;
    for (const kind of kinds) {
      // The criteria are fixed at the start: a long prune does not chase items that age meanwhile.
      const rule = retentionCriteria(this.#deps.retention[kind], startedAt);
      if (!rule) continue;
      const key = this.#deps.checkpointKey;
      const criteria = kind === 'audit' && key !== undefined ? { ...rule, checkpointKey: key } : rule;
      const total: PrunedKind = { rows: 0, bytes: 0, batches: 0 };
      out[kind] = total;
      let stalls = 0;
      for (;;) {
        if (options.signal?.aborted) {
          aborted = true;
          break;
        }
        if (clock.now() - renewedAt >= MAINTENANCE_LEASE_MS / 3) {
          if (!(await repo.acquireLease(LEASE, owner, clock.now(), MAINTENANCE_LEASE_MS)))
            throw new MaintenanceBusyError('lease');
          renewedAt = clock.now();
        }
        const batch = await repo.prune(kind, criteria, batchSize);
        total.rows += batch.rows;
        total.bytes += batch.bytes;
        total.batches += 1;
        removed += batch.rows;
        try {
          options.onProgress?.({ kind, ...total, done: batch.done });
        } catch {
          // the caller's callback: its failure does not stop the prune
        }
        if (batch.done) break;
        // A batch may remove 0 rows and still progress (runs without events are marked pruned): go on until done,
        // unless the store is stuck (nothing dealt with twice in a row).
        stalls = batch.rows > 0 || (batch.items ?? 0) > 0 ? 0 : stalls + 1;
        if (stalls >= MAX_STALLED_BATCHES) {
          total.stalled = true;
          logger.warn('maintenance prune stopped: the store made no progress and never said done', {
            kind,
            batches: total.batches,
          });
          break;
        }
        // Live runs keep going: the event loop runs other work between two batches.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (aborted) break;
    }
    const store = this.#deps.storage;
    let compacted: PruneSummary['compacted'];
    // Free pages go back to the file system and the WAL is truncated (SQLite): the file shrinks while the host runs.
    if (removed > 0 && !aborted && typeof store.compact === 'function')
      compacted = { freedBytes: (await store.compact()).freedBytes };
    const usageAfter = await this.usage();
    const summary: PruneSummary = {
      dryRun: false,
      startedAt,
      endedAt: clock.now(),
      ...(aborted ? { aborted } : {}),
      kinds: out,
      ...(compacted ? { compacted } : {}),
      usageBefore,
      usageAfter,
    };
    logger.info('maintenance prune done', {
      rows: removed,
      aborted,
      freedBytes: compacted?.freedBytes,
      kinds: Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.rows])),
    });
    return summary;
  }
}

/** The fields {@link PruneOptions} has. */
const PRUNE_FIELDS = ['dryRun', 'kinds', 'batchSize', 'signal', 'onProgress'] as const;

const invalidOption = (field: string, message: string, value: unknown) =>
  new MediaAgentError('OPTIONS_INVALID', `option prune.${field} ${message}; got ${describeValue(value)}`, {
    option: `prune.${field}`,
  });

/** Every field of a prune's options, checked (a misspelt or mistyped one is refused, never ignored). */
function checkPruneOptions(options: PruneOptions): { kinds: readonly RetentionKind[]; batchSize: number } {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      `option prune options must be an object; got ${describeValue(options)}`,
      { option: 'prune' },
    );
  for (const field of Object.keys(options))
    if (!(PRUNE_FIELDS as readonly string[]).includes(field))
      throw new MediaAgentError(
        'OPTIONS_INVALID',
        `option prune.${field} is unknown; known: ${PRUNE_FIELDS.join(', ')}`,
        { option: `prune.${field}` },
      );
  const { dryRun, signal, onProgress } = options as Record<string, unknown>;
  if (dryRun !== undefined && typeof dryRun !== 'boolean') throw invalidOption('dryRun', 'must be a boolean', dryRun);
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw invalidOption('signal', 'must be an AbortSignal', signal);
  if (onProgress !== undefined && typeof onProgress !== 'function')
    throw invalidOption('onProgress', 'must be a function', onProgress);
  const batchSize = options.batchSize === undefined ? DEFAULT_PRUNE_BATCH_SIZE : options.batchSize;
  if (
    !(
      typeof batchSize === 'number' &&
      Number.isInteger(batchSize) &&
      batchSize >= 1 &&
      batchSize <= MAX_PRUNE_BATCH_SIZE
    )
  )
    throw invalidOption('batchSize', `must be an integer from 1 to ${MAX_PRUNE_BATCH_SIZE}`, batchSize);
  const wanted = options.kinds === undefined ? RETENTION_KINDS : options.kinds;
  if (!Array.isArray(wanted)) throw invalidOption('kinds', 'must be an array of record kinds', wanted);
  for (const kind of wanted)
    if (!(RETENTION_KINDS as readonly unknown[]).includes(kind))
      throw invalidOption('kinds', `lists an unknown record kind (known: ${RETENTION_KINDS.join(', ')})`, kind);
  // Always in the documented order, whatever order they were given in.
  return { kinds: RETENTION_KINDS.filter((k) => wanted.includes(k)), batchSize };
}
