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
import type { RunEvent } from '../events/run-event';
import type { RunEventBus } from '../events/run-event-bus';
import type { DecisionRecord, InboxRecord, RunRecord, RunStatus } from '../storage/run-records';
import { checkInteger, RunRequestError, type RunDetail, type RunService, type StartRunInput } from './run-service';
import type { WorkerPool } from './worker-pool';
import { ModelNotConfiguredError } from '../models/errors';

/** What {@link AgentHost.start} found and did. @public */
export interface StartReport {
  /** Ledger entries that were `running` at start and are now `unknown` (their executor died). */
  recovered: LedgerEntry[];
  /** Settled ledger entries deleted by retention. */
  cleaned: number;
}

/**
 * The façade a host calls: capabilities, the direct `invoke` path for human and
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
  invoke<I extends TSchema, O extends TSchema>(capability: Capability<I, O>, input: NoInfer<Static<I>>, context: InvocationContext): Promise<InvocationResult<Static<O>>>;
  /**
   * Invokes a capability by id through the one invocation path: validate, authorize, claim, run, settle, audit.
   * Denials, handler failures, pending and unknown outcomes are returned as results.
   * @throws `CAPABILITY_NOT_FOUND`, `ACTOR_INVALID`, `INPUT_INVALID` (with every path), `INPUT_TOO_LARGE`,
   *   `LEDGER_CALL_ID_CONFLICT`, `LEDGER_IN_PROGRESS`, `LEDGER_STALE_EXECUTOR`, storage errors — none of them after a partial write
   */
  invoke(id: string, input: unknown, context: InvocationContext): Promise<InvocationResult>;
  /**
   * Starts a run: returns it `queued`; a worker drives it (no model call runs in the caller's stack).
   * @throws `MODEL_NOT_CONFIGURED` (the host was created without a model), `RUN_REQUEST_INVALID` (empty goal,
   *   unknown capability, an execute capability in a plan_only allowlist), `ACTOR_INVALID`
   */
  startRun(input: StartRunInput): Promise<RunRecord>;
  /**
   * A run with its plan, verified report, queued messages and a page of its events (`afterSeq`, `limit`).
   * @throws `RUN_NOT_FOUND`
   */
  getRun(id: string, options?: { afterSeq?: number; limit?: number }): Promise<RunDetail>;
  /** Runs newest first (default limit 50). */
  listRuns(filter?: { status?: RunStatus; sessionId?: string; limit?: number }): Promise<RunRecord[]>;
  /**
   * Appends a user message: applied before the next model call of a running run; wakes one new drive of a waiting or ended run.
   * @throws `RUN_NOT_FOUND`, `RUN_REQUEST_INVALID`, `ACTOR_INVALID`
   */
  appendMessage(runId: string, text: string, actor: string): Promise<InboxRecord>;
  /**
   * Aborts a run: no further steps; completed effects are not undone; the run ends `cancelled`.
   * @throws `RUN_NOT_FOUND`
   */
  abort(runId: string, reason?: string): Promise<RunRecord>;
  /**
   * Run events with global sequence above `after`: replayed from storage, then live. Reconnect with the
   * last `globalSeq` seen to miss nothing and see nothing twice. `pollMs` (default 1000) bounds the delay for events written by other processes.
   */
  events(options?: { after?: number; runId?: string; signal?: AbortSignal; pollMs?: number }): AsyncIterable<RunEvent>;
  /** Pending decisions for people (e.g. `agent_budget:<runId>`), newest first. */
  decisions(filter?: { status?: DecisionRecord['status']; subjectId?: string }): Promise<DecisionRecord[]>;
  /** Audit rows with `seq > after`, oldest first (default limit 100). */
  audit(filter?: { after?: number; limit?: number; action?: AuditAction; capabilityId?: string; invocationId?: string }): Promise<AuditRecord[]>;
  /**
   * Migrates storage, then cold-start recovery (`running` ledger entries become `unknown` with new
   * tokens), retention cleanup, then starts the run workers. Call once per process.
   * @param options - `workers: false` to invoke capabilities without driving runs in this process
   * @throws storage errors (`STORAGE_SCHEMA_TOO_NEW`, `STORAGE_CORRUPT`, `STORAGE_LOCKED`)
   */
  start(options?: { workers?: boolean }): Promise<StartReport>;
  /** Stops the workers (runs in flight stop at a step boundary, their state stored), then closes the storage. */
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
  /** Run bookkeeping. */
  runs: RunService;
  /** Run workers. */
  workers: WorkerPool;
  /** Run events. */
  bus: RunEventBus;
  /** Whether a model provider was configured; without one `startRun` fails `MODEL_NOT_CONFIGURED`. */
  modelConfigured: boolean;
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
  invoke<I extends TSchema, O extends TSchema>(capability: Capability<I, O>, input: NoInfer<Static<I>>, context: InvocationContext): Promise<InvocationResult<Static<O>>>;
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

  /** {@inheritDoc AgentHost.startRun} */
  startRun(input: StartRunInput): Promise<RunRecord> {
    if (!this.#deps.modelConfigured) return Promise.reject(new ModelNotConfiguredError());
    return this.#deps.runs.startRun(input);
  }

  /** {@inheritDoc AgentHost.getRun} */
  getRun(id: string, options?: { afterSeq?: number; limit?: number }): Promise<RunDetail> {
    return this.#deps.runs.getRun(id, options);
  }

  /** {@inheritDoc AgentHost.listRuns} */
  listRuns(filter?: { status?: RunStatus; sessionId?: string; limit?: number }): Promise<RunRecord[]> {
    return this.#deps.runs.listRuns(filter);
  }

  /** {@inheritDoc AgentHost.appendMessage} */
  appendMessage(runId: string, text: string, actor: string): Promise<InboxRecord> {
    return this.#deps.runs.appendMessage(runId, text, actor);
  }

  /** {@inheritDoc AgentHost.abort} */
  abort(runId: string, reason?: string): Promise<RunRecord> {
    return this.#deps.runs.abort(runId, reason);
  }

  /** {@inheritDoc AgentHost.events} */
  events(options?: { after?: number; runId?: string; signal?: AbortSignal; pollMs?: number }): AsyncIterable<RunEvent> {
    checkInteger('after', options?.after, 0, Number.MAX_SAFE_INTEGER);
    checkInteger('pollMs', options?.pollMs, 1, 3_600_000);
    if (options?.runId !== undefined && typeof options.runId !== 'string') throw new RunRequestError('runId must be a string');
    return this.#deps.bus.subscribe(options);
  }

  /** {@inheritDoc AgentHost.decisions} */
  decisions(filter?: { status?: DecisionRecord['status']; subjectId?: string }): Promise<DecisionRecord[]> {
    return this.#deps.storage.decisions.list(filter);
  }

  /** {@inheritDoc AgentHost.audit} */
  audit(filter?: { after?: number; limit?: number; action?: AuditAction; capabilityId?: string; invocationId?: string }): Promise<AuditRecord[]> {
    return this.#deps.storage.audit.list(filter);
  }

  /** {@inheritDoc AgentHost.start} */
  async start(options: { workers?: boolean } = {}): Promise<StartReport> {
    await this.#deps.storage.migrate();
    const recovered = await this.ledger.recover();
    if (recovered.length > 0) this.#deps.logger.warn('ledger entries interrupted by a crash are now unknown', { count: recovered.length });
    const cleaned = await this.ledger.cleanup(this.#deps.options.ledgerRetentionMs);
    if (options.workers !== false) {
      this.#offDecided ??= this.#wakeOnDecision();
      this.#deps.workers.start();
    }
    return { recovered, cleaned };
  }

  /** {@inheritDoc AgentHost.stop} */
  async stop(): Promise<void> {
    this.#offDecided?.();
    this.#offDecided = undefined;
    await this.#deps.workers.stop();
    await this.#deps.storage.close();
  }

  #offDecided: (() => void) | undefined;

  /** A decided approval that a run asked for makes that waiting run due at once. */
  #wakeOnDecision(): () => void {
    const listener = (approval: { requestedBy: string }) => {
      if (!approval.requestedBy.startsWith('agent:')) return;
      const runId = approval.requestedBy.slice('agent:'.length);
      void this.#deps.storage.runs
        .get(runId)
        .then((run) => (run?.status === 'waiting' ? this.#deps.storage.runs.patch(runId, { notBefore: 0 }) : undefined))
        .then(() => this.#deps.workers.wake())
        .catch((error: Error) => this.#deps.logger.warn('could not wake a run after an approval decision', { runId, message: error.message }));
    };
    this.approvals.events.on('decided', listener);
    return () => this.approvals.events.off('decided', listener);
  }
}
