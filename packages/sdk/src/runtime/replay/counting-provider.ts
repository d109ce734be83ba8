// Counts the calls a host makes to its model providers, so a replay can measure that it made none.
import type { ModelEvent, ModelProvider, ModelRequest } from '../../models/types';

/** A count of model calls, shared by the providers it wraps. @public */
export interface ModelCallCounter {
  /** Calls of `stream` so far. */
  calls: number;
}

/**
 * `provider` with every `stream` call counted in `counter` (the calls themselves unchanged, secrets and other
 * members forwarded).
 * @param provider - the provider
 * @param counter - where the calls are counted
 * @returns the counting provider
 * @internal
 */
export function countingProvider(provider: ModelProvider, counter: ModelCallCounter): ModelProvider {
  return new Proxy(provider, {
    get(target, prop) {
      if (prop === 'stream')
        return (request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> => {
          counter.calls++;
          return target.stream(request, signal);
        };
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
