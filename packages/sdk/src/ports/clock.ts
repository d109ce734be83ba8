/**
 * Source of the current time, injectable so tests control it.
 *
 * @public
 */
export interface Clock {
  /** Current time in milliseconds since the Unix epoch (UTC). */
  now(): number;
}

/**
 * The {@link Clock} backed by `Date.now()`; the default.
 *
 * @public
 */
export class SystemClock implements Clock {
  /** {@inheritDoc Clock.now} */
  now(): number {
    return Date.now();
  }
}

/**
 * A {@link Clock} that only moves when told to; for tests.
 *
 * @public
 */
export class ManualClock implements Clock {
  #now: number;
  /** @param start - initial time in ms since the epoch (default 2026-01-01T00:00:00Z) */
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }
  /** {@inheritDoc Clock.now} */
  now(): number {
    return this.#now;
  }
  /** Moves the clock forward by `ms` milliseconds (negative values are rejected with a `RangeError`). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError('ManualClock.advance: ms must be >= 0');
    this.#now += ms;
  }
  /** Sets the clock to `ms` since the epoch. */
  set(ms: number): void {
    this.#now = ms;
  }
}
