/**
 * `@media-agent/sdk`: an in-process agent runtime for media managers — capabilities, one
 * authorized invocation path, approvals and standing grants, a ledger that never repeats a side
 * effect after a crash, and model providers.
 *
 * @packageDocumentation
 */
export { MediaAgentError, isMediaAgentError } from './core/errors';
export { ERROR_CODES, type ErrorCode } from './core/error-codes';

// ports
export { SystemClock, ManualClock, type Clock } from './ports/clock';
export { RandomIdGenerator, SequentialIdGenerator, type IdGenerator } from './ports/id-generator';
export { ConsoleLogger, type Logger, type LogLevel } from './ports/logger';
export { Tokens, resolvePort, type PortToken } from './composition/injection-tokens';

// capabilities and the invocation path
export { defineCapability } from './capabilities/define-capability';
export {
  type Capability,
  type CapabilityDefinition,
  type HandlerContext,
  type PendingOutcome,
  type ReadInvoker,
  type Verifier,
  type VerifierOutcome,
} from './capabilities/types';
export {
  isSideEffecting,
  type CapabilityDescriptor,
  type CapabilityKind,
  type InvocationTarget,
  type ReplayPolicy,
} from './core/capability-descriptor';
export type { InvocationContext, InvocationResult, InvocationStatus } from './capabilities/invocation';
export { DefaultCapabilityRegistry, type CapabilityRegistry, type CapabilityRegistryDeps } from './capabilities/capability-registry';
export { ForwardingCapabilityRegistry } from './capabilities/forwarding-registry';
export { DEFAULT_MAX_INPUT_BYTES, type InvocationEvent, type InvocationEvents } from './capabilities/invocation-pipeline';
export { searchCapabilities, type CapabilitySearchHit } from './capabilities/capability-search';
export { summarizeInput, SENSITIVE_FIELD_PATTERN, REDACTED } from './capabilities/input-summary';
export {
  InvalidContextError,
  InvocationAbortedError,
  CapabilityNotFoundError,
  DuplicateCapabilityError,
  InvalidCapabilityError,
  InvalidInputError,
  InputTooLargeError,
  OutcomeUnknownError,
  VerifierNotReadOnlyError,
  CapabilitySchemaUnsupportedError,
  type InputIssue,
} from './capabilities/errors';
export {
  checkProviderSchema,
  validateProviderSchema,
  modelInputSchemaOf,
  providerSafeTool,
  REQUIRED_PROVIDER_FAMILIES,
  type JsonSchemaObject,
  type ProviderFamily,
  type ProviderSchemaCheck,
  type ProviderSchemaProblem,
  type ProviderSchemaRewrite,
} from './capabilities/provider-schema';

// authorization
export { parseActor, isHumanActor, InvalidActorError, type Actor, type ActorKind } from './core/actor';
export { actionCovers } from './authorization/action-pattern';
export { checkApproval, type ApprovalCheck } from './authorization/approval-rules';
export { checkGrant, grantCoversCapability, type GrantCheck } from './authorization/grant-rules';
export { utcDayStart } from './core/utc-day';
export { evaluateAuthorization, checkRun, type AuthorizationFacts, type AutomationSettings } from './authorization/evaluate';
export type { AuthorizationVerdict, DenialCode, RuleFailure } from './authorization/verdict';
export type { Authorizer, AuthorizationRequest } from './authorization/authorizer';
export { PolicyAuthorizer } from './authorization/policy-authorizer';
export { DEFAULT_AUTOMATION_SETTINGS } from './authorization/automation-settings';
export { ApprovalService, DEFAULT_APPROVAL_TTL_MS, type RequestApprovalInput, type DecideApprovalInput } from './authorization/approval-service';
export { GrantService, type CreateGrantInput, type UpdateGrantInput } from './authorization/grant-service';
export { PlanService, type CreatePlanInput } from './authorization/plan-service';
export { PolicyService } from './authorization/policy-service';
export { AutomationService } from './authorization/automation-service';
export {
  AdministrationForbiddenError,
  ApprovalHashMismatchError,
  ApprovalStateError,
  GrantMatchesNothingError,
  PlanTooLargeError,
  GrantWideningError,
  InvalidRequestError,
  PlanRevisionConflictError,
  RecordNotFoundError,
} from './authorization/errors';

// ledger
export { canonicalJson, canonicalHash, CanonicalJsonError } from './core/canonical-json';
export { deriveIdempotencyKey, idempotencyScope, type IdempotencyKeyParts } from './ledger/idempotency-key';
export { nextClaimAction, type ClaimAction } from './ledger/claim-rules';
export type { InvocationLedger, ClaimRequest, ClaimResult, SettleOutcome } from './ledger/invocation-ledger';
export { DefaultInvocationLedger } from './ledger/default-invocation-ledger';
export { IdempotencyConflictError, InvocationInProgressError, LedgerStaleExecutorError } from './ledger/errors';

// storage
export {
  STORAGE_SCHEMA_VERSION,
  type StorageAdapter,
  type StorageSession,
  type LedgerRepository,
  type ApprovalRepository,
  type GrantRepository,
  type PlanRepository,
  type PolicyRevisionRepository,
  type AuditRepository,
  type SettingsRepository,
  type GrantUsageRepository,
} from './ports/storage-adapter';
export type * from './core/records';
export type * from './core/run-records';
export { TERMINAL_RUN_STATUSES } from './core/run-records';
export type { RunPatch, RunRepository, RunEventRepository, RunMessageRepository, InboxRepository, DecisionRepository } from './ports/storage-adapter';
export { MemoryStorage } from './storage/memory/memory-storage';
export { StorageClosedError, StorageCorruptError, StorageError, StorageLockedError, StorageSchemaTooNewError } from './storage/errors';

// runtime
export type { AgentHost, AgentHostDeps, StartReport } from './runtime/agent-host';
export { DefaultAgentHost } from './runtime/agent-host';
export { HostLifecycleError, type HostLifecycleState } from './runtime/host-lifecycle';
export type { AgentOptions, ResolvedAgentOptions, RunOptions, RunScope } from './runtime/agent-options';
export { RunService, RunRequestError, RunNotFoundError, type StartRunInput, type RunDetail, type SubagentParent } from './runtime/run-service';
export { RunDriver, type RunDriverDeps, type RunDriverSettings, type RunLease } from './runtime/run-driver';
export { WorkerPool, type WorkerPoolSettings } from './runtime/worker-pool';
export { checkRunBudgets, checkDailyBudgets, DEFAULT_RUN_BUDGETS, DEFAULT_DAILY_BUDGETS, type RunBudgets, type DailyBudgets, type BudgetBreach } from './runtime/run-budgets';
export { buildGoalReport, factsSettled, type AgentGoalReport } from './runtime/goal-report';
export type { GoalCandidate } from './runtime/goal-target';
export type { GoalFacts, GoalFactsSnapshot } from './runtime/goal-facts';
export { UPDATE_PLAN_TOOL, UPDATE_PLAN_MODEL_TOOL, RunChecklistSchema, validateChecklist, type RunChecklist } from './runtime/checklist';
export { toolResultMessage, TOOL_RESULT_NOTES } from './runtime/tool-result';
export { RUNTIME_SYSTEM_PROMPT } from './runtime/system-prompt';
export { DELEGATE_TOOL, DELEGATE_MODEL_TOOL, MAX_SUBAGENT_DEPTH, parseDelegateInput } from './runtime/delegate-tool';
export * from './runtime/guardrails/index';
export * from './runtime/context/index';
export * from './runtime/middleware/index';

// events
export { RunEventBus, toRunEvent, type RunEventSubscription } from './runtime/events/run-event-bus';
export type { RunEvent, RunEventType, RunEventPayloads, ToolCallPhase } from './runtime/events/run-event';
export { createAgentContainer, createAgentHost, createRunContainer } from './composition/container';

// models
export * from './models/index';

// standard media capabilities
export * from './media/index';
