/**
 * Runs async jobs one at a time in call order. Used by adapters whose single connection
 * must not interleave two transactions.
 * @internal
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `job` after every job queued before it has settled; resolves with its result. */
  run<T>(job: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(job, job);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
