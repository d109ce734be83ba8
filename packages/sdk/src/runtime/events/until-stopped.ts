// An event subscription of the host that ends when the host stops.
import { HostLifecycleError } from '../host-lifecycle';

/**
 * The events `open()` yields — a subscription that itself ends at `stop` (see `subscribeUntilStopped`) — with a
 * failure caused by the stop reported as the host's: a read of the stopped host's closed store fails `HOST_STOPPED`,
 * not `STORAGE_CLOSED`. A failure after the caller aborted `caller`, or before the stop, is passed on as it is.
 * @param open - the subscription
 * @param stop - the host's stop signal
 * @param caller - the caller's own signal
 * @param operation - the host call, named in the error (`events`)
 * @throws `HOST_STOPPED` ({@link HostLifecycleError}) for a failure once the host stopped (the caller had not aborted)
 * @internal
 */
export async function* untilStopped<T>(
  open: () => AsyncIterable<T>,
  stop: AbortSignal,
  caller: AbortSignal | undefined,
  operation: string,
): AsyncGenerator<T> {
  try {
    yield* open();
  } catch (error) {
    if (stop.aborted && !caller?.aborted && !(error instanceof HostLifecycleError))
      throw new HostLifecycleError('stopped', operation);
    throw error;
  }
}
