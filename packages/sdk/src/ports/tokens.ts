import type { ApprovalService } from '../authorization/approval-service';
import type { Authorizer } from '../authorization/authorizer';
import type { AutomationService } from '../authorization/automation-service';
import type { GrantService } from '../authorization/grant-service';
import type { PlanService } from '../authorization/plan-service';
import type { PolicyService } from '../authorization/policy-service';
import type { CapabilityRegistry } from '../capabilities/capability-registry';
import type { InvocationLedger } from '../ledger/invocation-ledger';
import type { AgentHost } from '../runtime/agent-host';
import type { ResolvedAgentOptions, RunScope } from '../runtime/agent-options';
import type { StorageAdapter } from '../storage/storage-adapter';
import type { RunEventBus } from '../events/run-event-bus';
import type { ModelProvider } from '../models/types';
import type { TokenCounter } from '../models/tokens';
import type { GoalFacts } from '../runtime/goal-facts';
import type { Clock } from './clock';
import type { IdGenerator } from './id-generator';
import type { Logger } from './logger';

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

function token<T>(name: string): PortToken<T> {
  return Symbol.for(`media-agent:${name}`) as PortToken<T>;
}

/**
 * Injection tokens of every port and service. `createAgentContainer` registers a
 * default for each; a host replaces any of them by registering its own (the latest registration wins).
 * @public
 */
export const Tokens = Object.freeze({
  /** The façade a host calls. */
  AgentHost: token<AgentHost>('AgentHost'),
  /** Capability descriptors, search and the single invoke path. */
  CapabilityRegistry: token<CapabilityRegistry>('CapabilityRegistry'),
  /** Allow/deny for one invocation. */
  Authorizer: token<Authorizer>('Authorizer'),
  /** Idempotency keys, claims, outcomes, recovery. */
  InvocationLedger: token<InvocationLedger>('InvocationLedger'),
  /** Transactions and repositories. */
  StorageAdapter: token<StorageAdapter>('StorageAdapter'),
  /** Time. */
  Clock: token<Clock>('Clock'),
  /** Ids. */
  IdGenerator: token<IdGenerator>('IdGenerator'),
  /** Logging. */
  Logger: token<Logger>('Logger'),
  /** The resolved options the container was built with. */
  AgentOptions: token<ResolvedAgentOptions>('AgentOptions'),
  /** Approvals service. */
  ApprovalService: token<ApprovalService>('ApprovalService'),
  /** Grants service. */
  GrantService: token<GrantService>('GrantService'),
  /** Plans service. */
  PlanService: token<PlanService>('PlanService'),
  /** Policy revisions service. */
  PolicyService: token<PolicyService>('PolicyService'),
  /** Automation switch service. */
  AutomationService: token<AutomationService>('AutomationService'),
  /** The model provider. */
  ModelProvider: token<ModelProvider>('ModelProvider'),
  /** Token counting. */
  TokenCounter: token<TokenCounter>('TokenCounter'),
  /** Business facts for goal reports. */
  GoalFacts: token<GoalFacts>('GoalFacts'),
  /** Persisted, replayable run events. */
  RunEventBus: token<RunEventBus>('RunEventBus'),
  /** The run a child container belongs to (registered only in run containers). */
  RunScope: token<RunScope>('RunScope'),
});

/**
 * Resolves a port from a container with its type.
 * @throws tsyringe's error when nothing is registered for the token
 * @public
 */
export function resolvePort<T>(container: Pick<AgentContainer, 'resolve'>, port: PortToken<T>): T {
  return container.resolve<T>(port);
}
