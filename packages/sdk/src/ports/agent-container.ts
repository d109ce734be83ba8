/**
 * A typed injection token: a unique symbol that remembers the type it resolves to.
 * Resolve it with `resolvePort(container, token)`, or `container.resolve(token)`.
 * @public
 */
export type PortToken<T> = symbol & { readonly __port?: T };

/**
 * The dependency-injection container `createAgentContainer` builds: one registration per
 * {@link PortToken}, the latest registration of a token wins.
 *
 * @remarks
 * A `{ useFactory }` registration is called on every resolve; cache inside the factory for a
 * singleton. The container is a tsyringe `DependencyContainer`; this interface is the part the SDK
 * supports, so a host does not depend on tsyringe's types.
 *
 * @example
 * ```ts
 * const container = createAgentContainer({ configure: (c) => c.register(Tokens.Clock, { useValue: new ManualClock(0) }) });
 * const host = resolvePort(container, Tokens.AgentHost);
 * ```
 * @public
 */
export interface AgentContainer {
  /** Registers a value for `token`. @returns this container */
  register<T>(token: PortToken<T>, provider: { useValue: T }): AgentContainer;
  /** Registers a factory for `token`, called with the resolving container on every resolve. @returns this container */
  register<T>(token: PortToken<T>, provider: { useFactory: (container: AgentContainer) => T }): AgentContainer;
  /** The value registered for `token`. @throws tsyringe's error when nothing is registered for it */
  resolve<T>(token: PortToken<T>): T;
  /** Whether `token` has a registration here (or, when `recursive`, in a parent container). */
  isRegistered(token: PortToken<unknown>, recursive?: boolean): boolean;
  /** A child container: it sees every registration of this one; its own registrations stay in it. */
  createChildContainer(): AgentContainer;
}
