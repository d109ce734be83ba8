/**
 * Runs tasks one at a time per key (a chat), in the order they were given, and different keys concurrently.
 * A failed task does not stop the ones after it.
 *
 * @internal
 */
export class ChatQueue {
  readonly #tails = new Map<string, Promise<void>>();
  #inFlight = 0;
  readonly #idle: Array<() => void> = [];

  /** Runs `task` after the earlier tasks of `key`; resolves or rejects with it. */
  run(key: string, task: () => Promise<void>): Promise<void> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    this.#inFlight += 1;
    const result = previous.then(task).finally(() => {
      this.#inFlight -= 1;
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
      if (this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve();
    });
    const tail = result.catch(() => undefined);
    this.#tails.set(key, tail);
    return result;
  }

  /** How many tasks are queued or running. */
  get size(): number {
    return this.#inFlight;
  }

  /** Resolves when no task is queued or running. */
  idle(): Promise<void> {
    return this.#inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.#idle.push(resolve));
  }
}
