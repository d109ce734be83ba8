// Runs started per minute, per actor and in total: a start is recorded only once it went through.
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../ports/clock';
import type { HostLimits } from './host-limits';
import { HostLimitError } from './limit-errors';
import { prunedWindowVerdict, pruneWindowInPlace } from './sliding-window';

/** The window of the run start limits: one minute. */
const WINDOW_MS = 60_000;

/**
 * Applies the run start rate limits of this process (a sliding window of 60 s).
 * @internal
 */
export class RunStartLimiter {
  /** Start times of each actor in the window (actors idle for a minute are forgotten). */
  readonly #byActor = new LRUCache<string, number[]>({ max: 10_000, ttl: WINDOW_MS, ttlAutopurge: false });
  readonly #total: number[] = [];

  /** @param limits - the per-minute limits; @param clock - the host's clock */
  constructor(
    private readonly limits: Pick<HostLimits, 'runStartsPerMinutePerActor' | 'runStartsPerMinuteTotal'>,
    private readonly clock: Clock,
  ) {}

  /**
   * Reserves one start for `actor`, then runs `start`: a start that fails (an invalid request) gives its
   * reservation back, so only runs that were started count.
   * @throws {@link HostLimitError} `RUN_START_RATE_LIMITED` (nothing run); whatever `start` throws
   */
  async reserve<T>(actor: string, start: () => Promise<T>): Promise<T> {
    const now = this.clock.now();
    // Pruned in place: the windows are this limiter's own arrays (a copy per start costs the whole window).
    const mine = pruneWindowInPlace(this.#byActor.get(actor) ?? [], now, WINDOW_MS);
    pruneWindowInPlace(this.#total, now, WINDOW_MS);
    const own = prunedWindowVerdict(mine, now, WINDOW_MS, this.limits.runStartsPerMinutePerActor);
    if (!own.allowed)
      throw new HostLimitError(
        'RUN_START_RATE_LIMITED',
        actor,
        'perActor',
        this.limits.runStartsPerMinutePerActor,
        own.retryAfterMs,
      );
    const all = prunedWindowVerdict(this.#total, now, WINDOW_MS, this.limits.runStartsPerMinuteTotal);
    if (!all.allowed)
      throw new HostLimitError(
        'RUN_START_RATE_LIMITED',
        actor,
        'total',
        this.limits.runStartsPerMinuteTotal,
        all.retryAfterMs,
      );
    // Recorded before `start` runs, so starts racing each other cannot all pass the check.
    mine.push(now);
    this.#byActor.set(actor, mine);
    this.#total.push(now);
    try {
      return await start();
    } catch (error) {
      removeOne(this.#byActor.get(actor), now);
      removeOne(this.#total, now);
      throw error;
    }
  }
}

/** Removes one occurrence of `at` (the reservation of a start that failed). */
function removeOne(starts: number[] | undefined, at: number): void {
  const i = starts?.lastIndexOf(at) ?? -1;
  if (i >= 0) starts!.splice(i, 1);
}
