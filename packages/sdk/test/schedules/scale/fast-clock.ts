// The scale test's time: a Clock running `speed` times faster than real time from an epoch every process of one
// scenario shares, so the controller and all host processes agree on the time (to the precision of the machine's
// real clock) whenever each of them was started.
import type { Clock } from '../../../src/index';

/** What every process of a scenario is given: the same epoch, real start and speed. */
export interface FastTimeBase {
  /** The scenario's time at `realStart` (ms since the epoch). */
  epoch: number;
  /** The real time (`Date.now()`, ms) the scenario's time started at `epoch`. */
  realStart: number;
  /** How many scenario ms pass per real ms (60 in the scale test). */
  speed: number;
}

/** The scenario time at the real time `realNow` (default now): `epoch + (realNow - realStart) · speed`. */
export function fastTime(base: FastTimeBase, realNow: number = Date.now()): number {
  return base.epoch + Math.floor((realNow - base.realStart) * base.speed);
}

/** Real ms for `ms` of scenario time (how long to sleep for it). */
export function realMs(base: FastTimeBase, ms: number): number {
  return ms / base.speed;
}

/** The {@link Clock} a scale host runs on: {@link fastTime} of the shared base. */
export class FastClock implements Clock {
  readonly #base: FastTimeBase;
  #last = Number.NEGATIVE_INFINITY;

  /** @param base - the shared epoch, real start and speed */
  constructor(base: FastTimeBase) {
    if (!(base.speed > 0)) throw new RangeError('FastClock: speed must be > 0');
    this.#base = { ...base };
  }

  /** The scenario time; never goes back within a process (a real clock stepped back holds it still). */
  now(): number {
    const t = fastTime(this.#base);
    if (t > this.#last) this.#last = t;
    return this.#last;
  }
}
