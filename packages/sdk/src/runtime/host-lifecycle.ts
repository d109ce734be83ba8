// The agent host's lifecycle: created → started → stopped, and the one error for using it out of turn.
import { MediaAgentError } from '../core/errors';

/** Where an agent host is in its life: made, `start()`ed, `stop()`ped (for good). @public */
export type HostLifecycleState = 'created' | 'started' | 'stopped';

/**
 * The agent host was used when its state does not allow it, whatever the storage:
 *
 * - `HOST_NOT_STARTED`: a call that reads or writes storage (invoke, runs, approvals, grants, plans,
 *   policies, the automation switch, the ledger, the audit trail, events) before `await host.start()`
 *   resolved. `capabilities.register` and the other registry calls that touch no storage need no start.
 * - `HOST_STOPPED`: any such call, or `start()`, after `stop()`: a stopped host closed its storage and
 *   cannot be started again; make a new one with `createAgentHost` (and a new storage adapter).
 *
 * `details.operation` names the call (e.g. `grants.create`).
 * @public
 */
export class HostLifecycleError extends MediaAgentError {
  /** @param state - the host's state (`created` or `stopped`); @param operation - the call that was refused */
  constructor(state: Exclude<HostLifecycleState, 'started'>, operation: string) {
    super(
      state === 'created' ? 'HOST_NOT_STARTED' : 'HOST_STOPPED',
      state === 'created'
        ? `${operation}: the agent host is not started; call \`await host.start()\` first (it migrates the storage and recovers calls a crash interrupted)`
        : `${operation}: the agent host was stopped and a stopped host cannot be started again; create a new one with createAgentHost() and a new storage adapter, then start it`,
      { operation, state },
    );
  }
}

/** Throws {@link HostLifecycleError} unless the host is started. */
export function checkStarted(state: HostLifecycleState, operation: string): void {
  if (state !== 'started') throw new HostLifecycleError(state, operation);
}

/**
 * A view of `service` whose methods (all of them, or only `methods`) check the host's state first and
 * reject with {@link HostLifecycleError} when it is not started; properties and other methods pass
 * through (methods bound to the service). The service itself (used by the runtime) is not changed.
 * @param name - the service's name on the host, for the error (`grants` → `grants.create`)
 */
export function guardService<T extends object>(
  service: T,
  name: string,
  state: () => HostLifecycleState,
  methods?: readonly string[],
): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(service, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      let bound = wrapped.get(prop);
      if (!bound) {
        // Methods run on the service itself (its private fields are not reachable through a proxy).
        const method = value as (...args: unknown[]) => unknown;
        bound =
          typeof prop !== 'string' || (methods && !methods.includes(prop))
            ? method.bind(target)
            : (...args: unknown[]): unknown => {
                const now = state();
                if (now !== 'started') return Promise.reject(new HostLifecycleError(now, `${name}.${prop}`));
                return method.apply(target, args);
              };
        wrapped.set(prop, bound);
      }
      return bound;
    },
  });
}
