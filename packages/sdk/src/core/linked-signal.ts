// One abort signal for several sources, detached from them when its work ends.

/** A signal aborted by any of its sources, and the call that detaches it from them. @internal */
export interface LinkedSignal {
  /** Aborted (with that source's reason) as soon as one of the sources is. */
  readonly signal: AbortSignal;
  /** Detaches from the sources: nothing of this link stays attached to them. Idempotent. */
  dispose(): void;
}

/**
 * A signal that aborts when any of `sources` does (undefined entries are skipped), with {@link LinkedSignal.dispose}
 * to detach it once the work it guards ended. Unlike `AbortSignal.any`, nothing stays attached to a long-lived source
 * (a host's stop signal) after `dispose()`: on Node 20 every signal `AbortSignal.any` makes stays in its sources' set
 * of dependants until they abort (https://github.com/nodejs/node/issues/55351), one per stream or subscription.
 * @param sources - the signals to follow; one already aborted aborts the result at once, with its reason
 * @example
 * ```ts
 * const link = linkedSignal([request.signal, host.stopSignal]);
 * try {
 *   await work(link.signal);
 * } finally {
 *   link.dispose();
 * }
 * ```
 * @internal
 */
export function linkedSignal(sources: ReadonlyArray<AbortSignal | undefined>): LinkedSignal {
  const controller = new AbortController();
  const attached: AbortSignal[] = [];
  const dispose = () => {
    for (const source of attached.splice(0)) source.removeEventListener('abort', onAbort);
  };
  function onAbort(this: AbortSignal) {
    dispose();
    controller.abort(this.reason);
  }
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      dispose();
      controller.abort(source.reason);
      break;
    }
    source.addEventListener('abort', onAbort);
    attached.push(source);
  }
  return { signal: controller.signal, dispose };
}
