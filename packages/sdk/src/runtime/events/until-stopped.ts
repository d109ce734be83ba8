// An event subscription of the host that ends when the host stops.
import { linkedSignal } from '../../core/linked-signal';
import { HostLifecycleError } from '../host-lifecycle';

/**
 * The events `open(signal)` yields, where `signal` aborts when the caller's `caller` signal does (the iteration then
 * ends quietly, as the subscription does) or when the host stops (`stop`): the iteration then fails with
 * `HOST_STOPPED` at once — also when the stopped host's closed store failed the subscription's read — so a consumer
 * parked in `for await` is not left waiting for the next poll, and a stop is not taken for the end of a run's events.
 * Nothing stays attached to `stop` once the iteration ended.
 * @param open - the subscription, given the signal it must end at
 * @param stop - the host's stop signal
 * @param caller - the caller's own signal
 * @param operation - the host call, named in the error (`events`)
 * @throws `HOST_STOPPED` ({@link HostLifecycleError}) when the host stopped and the caller had not aborted
 * @internal
 */
export async function* untilStopped<T>(
  open: (signal: AbortSignal) => AsyncIterable<T>,
  stop: AbortSignal,
  caller: AbortSignal | undefined,
  operation: string,
): AsyncGenerator<T> {
  const link = linkedSignal([caller, stop]);
  const stopped = () => stop.aborted && !caller?.aborted;
  try {
    yield* open(link.signal);
  } catch (error) {
    // The stopped host closed its store under the read: the error is the host's.
    if (stopped()) throw new HostLifecycleError('stopped', operation);
    throw error;
  } finally {
    link.dispose();
  }
  if (stopped()) throw new HostLifecycleError('stopped', operation);
}
