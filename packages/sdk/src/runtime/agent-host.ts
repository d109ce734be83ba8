import type { Static, TSchema } from 'typebox';
import type { ApprovalService } from '../authorization/approval-service';
import type { AutomationService } from '../authorization/automation-service';
import type { GrantService } from '../authorization/grant-service';
import type { PlanService } from '../authorization/plan-service';
import type { PolicyService } from '../authorization/policy-service';
import type { CapabilityRegistry } from '../capabilities/capability-registry';
import type { InvocationContext, InvocationResult } from '../capabilities/invocation';
import type { Capability } from '../capabilities/types';
import type { InvocationLedger } from '../ledger/invocation-ledger';
import type { Logger } from '../ports/logger';
import type { AuditAction, AuditRecord, LedgerEntry } from '../storage/records';
import type { StorageAdapter } from '../storage/storage-adapter';
import type { ResolvedAgentOptions } from './agent-options';

/** What {@link AgentHost.start} found and did. @public */
export interface StartReport {
  /** Ledger entries that were `running` at start and are now `unknown` (their executor died). */
  recovered: LedgerEntry[];
  /** Settled ledger entries deleted by retention. */
  cleaned: number;
}

/**
 * The façade a host calls (DESIGN.md §3): capabilities, the direct `invoke` path for human and
 * background callers, approvals, grants, plans, policies, the automation switch, the ledger and
 * the audit trail; `start()`/`stop()`.
 * @public
 */
export interface AgentHost {
  /** The capability registry (register the host's capabilities here). */
  readonly capabilities: CapabilityRegistry;
  /** Single-use approvals. */
  readonly approvals: ApprovalService;
  /** Standing automation grants. */
  readonly grants: GrantService;
  /** Plan artifacts approvals bind to. */
  readonly plans: PlanService;
  /** Policy revisions grants may be bound to. */
  readonly policies: PolicyService;
  /** The global automation switch and read-only reconcile mode. */
  readonly automation: AutomationService;
  /** The invocation ledger. */
  readonly ledger: InvocationLedger;
  /**
   * Invokes a capability (given as the object made by `defineCapability`, so input and output are typed)
   * through the one invocation path; the same as invoking it by id (results and errors as there).
   */
  invoke<I extends TSchema, O extends TSchema>(capability: Capability<I, O>, input: Static<I>, context: InvocationContext): Promise<InvocationResult<Static<O>>>;
  /**
   * Invokes a capability by id through the one invocation path: validate, authorize, claim, run, settle, audit.
   * Denials, handler failures, pending and unknown outcomes are returned as results.
   * @throws `CAPABILITY_NOT_FOUND`, `ACTOR_INVALID`, `INPUT_INVALID` (with every path), `INPUT_TOO_LARGE`,
   *   `LEDGER_CALL_ID_CONFLICT`, `LEDGER_IN_PROGRESS`, `LEDGER_STALE_EXECUTOR`, storage errors — none of them after a partial write
   */
  invoke(id: string, input: unknown, context: InvocationContext): Promise<InvocationResult>;
  /** Audit rows with `seq > after`, oldest first (default limit 100). */
  audit(filter?: { after?: number; limit?: number; action?: AuditAction; capabilityId?: string; invocationId?: string }): Promise<AuditRecord[]>;
  /**
   * Migrates storage, then cold-start recovery: `running` ledger entries become `unknown` with new
   * tokens; then retention cleanup. Call once per process before invoking.
   * @throws storage errors (`STORAGE_SCHEMA_TOO_NEW`, `STORAGE_CORRUPT`, `STORAGE_LOCKED`)
   */
  start(): Promise<StartReport>;
  /** Closes the storage. */
  stop(): Promise<void>;
}

/** Dependencies of {@link DefaultAgentHost}. @public */
export interface AgentHostDeps {
  /** Registry. */
  capabilities: CapabilityRegistry;
  /** Approvals. */
  approvals: ApprovalService;
  /** Grants. */
  grants: GrantService;
  /** Plans. */
  plans: PlanService;
  /** Policies. */
  policies: PolicyService;
  /** Automation settings. */
  automation: AutomationService;
  /** Ledger. */
  ledger: InvocationLedger;
  /** Storage. */
  storage: StorageAdapter;
  /** Logger. */
  logger: Logger;
  /** Options. */
  options: ResolvedAgentOptions;
}

/**
 * The default {@link AgentHost}.
 * @public
 */
export class DefaultAgentHost implements AgentHost {
  /** {@inheritDoc AgentHost.capabilities} */
  readonly capabilities: CapabilityRegistry;
  /** {@inheritDoc AgentHost.approvals} */
  readonly approvals: ApprovalService;
  /** {@inheritDoc AgentHost.grants} */
  readonly grants: GrantService;
  /** {@inheritDoc AgentHost.plans} */
  readonly plans: PlanService;
  /** {@inheritDoc AgentHost.policies} */
  readonly policies: PolicyService;
  /** {@inheritDoc AgentHost.automation} */
  readonly automation: AutomationService;
  /** {@inheritDoc AgentHost.ledger} */
  readonly ledger: InvocationLedger;
  readonly #deps: AgentHostDeps;

  /** @param deps - the services (normally resolved from the container) */
  constructor(deps: AgentHostDeps) {
    this.#deps = deps;
    this.capabilities = deps.capabilities;
    this.approvals = deps.approvals;
    this.grants = deps.grants;
    this.plans = deps.plans;
    this.policies = deps.policies;
    this.automation = deps.automation;
    this.ledger = deps.ledger;
  }

  /**
   * Invokes a capability (given as the object made by `defineCapability`, so input and output are typed)
   * through the one invocation path; the same as invoking it by id (results and errors as there).
   */
  invoke<I extends TSchema, O extends TSchema>(capability: Capability<I, O>, input: Static<I>, context: InvocationContext): Promise<InvocationResult<Static<O>>>;
  /**
   * Invokes a capability by id through the one invocation path: validate, authorize, claim, run, settle, audit.
   * Denials, handler failures, pending and unknown outcomes are returned as results.
   * @throws `CAPABILITY_NOT_FOUND`, `ACTOR_INVALID`, `INPUT_INVALID` (with every path), `INPUT_TOO_LARGE`,
   *   `LEDGER_CALL_ID_CONFLICT`, `LEDGER_IN_PROGRESS`, `LEDGER_STALE_EXECUTOR`, storage errors — none of them after a partial write
   */
  invoke(id: string, input: unknown, context: InvocationContext): Promise<InvocationResult>;
  invoke(idOrCapability: string | Capability, input: unknown, context: InvocationContext): Promise<InvocationResult> {
    return this.capabilities.invoke(idOrCapability as string, input, context);
  }

  /** {@inheritDoc AgentHost.audit} */
  audit(filter?: { after?: number; limit?: number; action?: AuditAction; capabilityId?: string; invocationId?: string }): Promise<AuditRecord[]> {
    return this.#deps.storage.audit.list(filter);
  }

  /** {@inheritDoc AgentHost.start} */
  async start(): Promise<StartReport> {
    await this.#deps.storage.migrate();
    const recovered = await this.ledger.recover();
    if (recovered.length > 0) this.#deps.logger.warn('ledger entries interrupted by a crash are now unknown', { count: recovered.length });
    const cleaned = await this.ledger.cleanup(this.#deps.options.ledgerRetentionMs);
    return { recovered, cleaned };
  }

  /** {@inheritDoc AgentHost.stop} */
  async stop(): Promise<void> {
    await this.#deps.storage.close();
  }
}
