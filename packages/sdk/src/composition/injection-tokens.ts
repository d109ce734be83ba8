import type { ApprovalService } from '../authorization/approval-service';
import type { IdentityResolver } from '../ports/identity';
import type { Authorizer } from '../authorization/authorizer';
import type { AutomationService } from '../authorization/automation-service';
import type { GrantService } from '../authorization/grant-service';
import type { PlanService } from '../authorization/plan-service';
import type { PolicyService } from '../authorization/policy-service';
import type { CapabilityRegistry } from '../capabilities/capability-registry';
import type { InvocationLedger } from '../ledger/invocation-ledger';
import type { AgentHost } from '../runtime/agent-host';
import type { ResolvedAgentOptions, RunScope } from '../runtime/agent-options';
import type { StorageAdapter } from '../ports/storage-adapter';
import type { RunEventBus } from '../runtime/events/run-event-bus';
import type { ModelProvider } from '../models/types';
import type { TokenCounter } from '../models/token-counter';
import type { GoalFacts } from '../runtime/goal-facts';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Logger } from '../ports/logger';
import type { SecretRedactor } from '../core/secret-redactor';
import type { MemoryService } from '../memory/memory-service';

import type { AgentContainer, PortToken } from '../ports/agent-container';

export type { AgentContainer, PortToken } from '../ports/agent-container';

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
  /**
   * The host's one redaction step (docs/secrets.md): add secrets known only later with
   * `container.resolve(Tokens.SecretRedactor).add(value)`.
   */
  SecretRedactor: token<SecretRedactor>('SecretRedactor'),
  /** Roles of actors (who is an administrator). */
  Identity: token<IdentityResolver>('Identity'),
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
  /** Stable memory, or null when the host did not configure it (`memory` option). */
  MemoryService: token<MemoryService | null>('MemoryService'),
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
