// An async iterable that gives a held resource back however its iteration ends: an async generator's `finally`
// does not run when `return()` or `throw()` is called before the first `next()` (the generator never started),
// so a stream slot taken for it would otherwise stay taken.

/**
 * Wraps `inner` so that `release` runs once when the iteration ends: the inner iteration finishing or
 * throwing, or the consumer calling `return()` / `throw()` — also before the first `next()`.
 * @param inner - the iteration (iterated at most once)
 * @param release - gives the resource back; called at most once by this wrapper (it must be idempotent if
 *   the inner iteration calls it too)
 */
export function releasingIterable<T>(inner: AsyncGenerator<T>, release: () => void): AsyncIterableIterator<T> {
  let released = false;
  const done = () => {
    if (released) return;
    released = true;
    release();
  };
  const settle = async (step: Promise<IteratorResult<T>>): Promise<IteratorResult<T>> => {
    try {
      const result = await step;
      if (result.done) done();
      return result;
    } catch (error) {
      done();
      throw error;
    }
  };
  return {
    next: () => settle(inner.next()),
    return: (value?: unknown) => {
      done();
      return inner.return(value as never);
    },
    throw: (error?: unknown) => {
      done();
      return inner.throw(error);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
