/**
 * Runs async jobs one at a time in call order. Used by adapters whose single connection
 * must not interleave two transactions.
 *
 * @remarks
 * A job queued while the queue is idle starts at once, in the caller's turn (no promise hop before it);
 * otherwise it starts, in the microtask after the job before it settled.
 * @internal
 */
export class SerialQueue {
  #running = false;
  readonly #waiting: Array<() => void> = [];

  /** Whether no job is running or waiting (a job queued now would start at once). */
  get idle(): boolean {
    return !this.#running;
  }

  /** Runs `job` after every job queued before it has settled; resolves with its result. */
  run<T>(job: () => T | Promise<T>): Promise<T> {
    if (!this.#running) {
      this.#running = true;
      return this.#start(job);
    }
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push(() => {
        this.#start(job).then(resolve, reject);
      });
    });
  }

  #start<T>(job: () => T | Promise<T>): Promise<T> {
    let result: Promise<T>;
    try {
      result = Promise.resolve(job());
    } catch (error) {
      result = Promise.reject(error);
    }
    result.then(this.#next, this.#next);
    return result;
  }

  readonly #next = (): void => {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running = false;
  };
}
