// Scheduled maintenance: at the daily time (host clock, croner), one process of the many sharing a store takes the
// day's schedule lease and prunes; a failure is logged, never thrown at the host; stop() ends it.
import { isMediaAgentError } from '../../core/errors';
import type { Clock } from '../../ports/clock';
import type { Logger } from '../../ports/logger';
import type { MaintenanceRepository } from '../../ports/maintenance-repository';
import type { PruneSummary } from './maintenance-service';
import { type MaintenanceSchedule, nextFireTime } from './next-fire-time';

/** The lease that says which process prunes at one fire time. */
const SCHEDULE_LEASE = 'maintenance:schedule';
/** The schedule lease ends this long before the next fire time (so the next day anyone may take it). */
const SCHEDULE_LEASE_MARGIN_MS = 60_000;

/** What the scheduler needs. */
export interface MaintenanceSchedulerDeps {
  /** The daily time. */
  schedule: MaintenanceSchedule;
  /** How often the host clock is read, ms. */
  pollMs: number;
  /** The host clock. */
  clock: Clock;
  /** Where the summary and failures go. */
  logger: Logger;
  /** The store's leases (the schedule lease). */
  leases: () => MaintenanceRepository;
  /** This process's lease owner name. */
  owner: string;
  /** The prune itself (`host.maintenance.prune`). */
  prune: (signal: AbortSignal) => Promise<PruneSummary>;
  /** Called after each fire: what happened (for tests and hosts that watch). */
  onFired?: (outcome: ScheduledOutcome) => void;
}

/** What one fire time did. */
export type ScheduledOutcome =
  | { status: 'pruned'; at: number; summary: PruneSummary }
  | { status: 'skipped'; at: number; reason: 'another process' }
  | { status: 'failed'; at: number; code: string; message: string };

/** Runs the prune at each fire time; see the file comment. */
export class MaintenanceScheduler {
  readonly #deps: MaintenanceSchedulerDeps;
  readonly #abort = new AbortController();
  #timer: ReturnType<typeof setInterval> | undefined;
  #next = 0;
  #busy: Promise<void> | undefined;

  constructor(deps: MaintenanceSchedulerDeps) {
    this.#deps = deps;
  }

  /** The next fire time (ms), once started. */
  get next(): number {
    return this.#next;
  }

  /** Starts watching the clock. */
  start(): void {
    if (this.#timer || this.#abort.signal.aborted) return;
    this.#next = nextFireTime(this.#deps.schedule, this.#deps.clock.now());
    this.#timer = setInterval(() => this.#tick(), this.#deps.pollMs);
    this.#timer.unref?.();
  }

  /** Stops the schedule; a prune under way is aborted between batches and awaited. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#abort.abort();
    await this.#busy;
  }

  #tick(): void {
    if (this.#busy || this.#abort.signal.aborted) return;
    const now = this.#deps.clock.now();
    if (now < this.#next) return;
    const firedAt = this.#next;
    this.#next = nextFireTime(this.#deps.schedule, now);
    this.#busy = this.#fire(firedAt, now).finally(() => {
      this.#busy = undefined;
    });
  }

  async #fire(firedAt: number, now: number): Promise<void> {
    const { logger, owner } = this.#deps;
    let outcome: ScheduledOutcome;
    try {
      // One process per fire time: the lease lasts until shortly before the next one and is not released.
      const ttl = Math.max(SCHEDULE_LEASE_MARGIN_MS, this.#next - now - SCHEDULE_LEASE_MARGIN_MS);
      if (!(await this.#deps.leases().acquireLease(SCHEDULE_LEASE, owner, now, ttl))) {
        outcome = { status: 'skipped', at: firedAt, reason: 'another process' };
        logger.info('scheduled maintenance: another process prunes this time', { firedAt });
      } else {
        const summary = await this.#deps.prune(this.#abort.signal);
        outcome = { status: 'pruned', at: firedAt, summary };
        logger.info('scheduled maintenance done', {
          firedAt,
          aborted: summary.aborted === true,
          rows: Object.values(summary.kinds).reduce((n, k) => n + (k?.rows ?? 0), 0),
          freedBytes: summary.compacted?.freedBytes,
        });
      }
    } catch (error) {
      const code = isMediaAgentError(error) ? error.code : 'STORAGE_FAILED';
      const message = error instanceof Error ? error.message : String(error);
      outcome = { status: 'failed', at: firedAt, code, message };
      logger.error('scheduled maintenance failed; the host goes on, the next run is at the next fire time', {
        code,
        message,
        next: this.#next,
      });
    }
    try {
      this.#deps.onFired?.(outcome);
    } catch {
      // an observer's failure is not the schedule's
    }
  }
}
