// A handler's abort signal, made when it is first read.

/**
 * An abort controller whose signal is made only when it is read: most handlers never look at theirs, and an
 * `AbortSignal` is an event target, costly to make for every call. Aborting before the signal is read keeps the
 * reason: the signal made later is already aborted with it. Read or not, it behaves as one `AbortController`
 * (the first abort wins; listeners of a signal already made hear it at once).
 * @internal
 */
export class LazyAbort {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  /** The signal (made at the first read, aborted already when {@link LazyAbort.abort} came first). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Aborts with `reason` (`AbortController.abort`); a second abort changes nothing. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }

  /** The reason given to the first {@link LazyAbort.abort}, as given (undefined before one). */
  get reason(): unknown {
    return this.#reason;
  }
}
