/**
 * `@media-agent/sdk`: an in-process agent runtime for media managers — capabilities, one
 * authorized invocation path, approvals and standing grants, a ledger that never repeats a side
 * effect after a crash, and model providers.
 *
 * @remarks
 * This entry holds what a host application or a plugin author uses: the host and its options, run
 * events, capabilities, authorization and the ports a host replaces. The rest is in subpath entries:
 * `@media-agent/sdk/models` (model providers, token counting, cost, which models accept images),
 * `@media-agent/sdk/media` (the standard media capabilities), `@media-agent/sdk/storage` (the memory
 * store, records, the ledger), `@media-agent/sdk/sqlite` and `@media-agent/sdk/postgres` (SQLite and
 * PostgreSQL storage), `@media-agent/sdk/memory` (stable memory), `@media-agent/sdk/history` (the
 * history archive's port and records), `@media-agent/sdk/skills` (the skill store, the fuzzy patch
 * matcher), `@media-agent/sdk/decisions` (the decision service and its recovery rules),
 * `@media-agent/sdk/code` (`execute_code` results and limits), `@media-agent/sdk/mcp`,
 * `@media-agent/sdk/http` and `@media-agent/sdk/testing` (the scripted model, the sandbox world, the
 * storage conformance suite, task evaluation).
 *
 * @packageDocumentation
 */
export { MediaAgentError, isMediaAgentError } from './core/errors';
export { ERROR_CODES, type ErrorCode } from './core/error-codes';

// the host
export { createAgentHost, createAgentContainer } from './composition/container';
export type { ActorOptions, AgentHost, StartReport } from './runtime/agent-host';
export type {
  AgentOptions,
  HistoryOptions,
  ModelOptions,
  ResolvedAgentOptions,
  RunOptions,
  RunScope,
  SkillsOptions,
} from './runtime/agent-options';
// the stores behind the history, skills and memory options (the rest of each family: `/history`, `/skills`, `/memory`)
export type { HistoryStore } from './history/history-store';
export type { SkillStore } from './ports/skill-store';
export type { MemoryStore } from './ports/memory-store';
// decisions as a host configures and handles them (the service and its rules: `/decisions`)
export type {
  DecisionChoice,
  DecisionTrigger,
  RaiseDecisionInput,
} from './runtime/decisions/decision-service';
export type {
  DecisionOptions,
  DecisionSubjects,
  ResolvedDecisionOptions,
} from './runtime/decisions/decision-settings';
export type {
  DecisionRecord,
  DecisionStatus,
  DecisionOption,
  DecisionResolution,
  DecisionExecution,
  DecisionCapabilityExecution,
  DecisionRecoveryExecution,
  DecisionRefusedChoice,
} from './core/run-records';
export type { DecisionFilter } from './ports/storage-adapter';
export type { TracingOptions } from './runtime/tracing/tracing-options';
export type { StartRunInput, RunDetail } from './runtime/run-service';
export type { RunBudgets, DailyBudgets } from './runtime/run-budgets';
// Spending budgets per person and for the household (docs/budgets.md)
export { BudgetService, type BudgetServiceDeps, type SpendReport } from './runtime/budgets/budget-service';
export { SpendLedger, type SpendLedgerDeps, type ReserveOutcome } from './runtime/budgets/spend-ledger';
export {
  DEFAULT_SPENDING_BUDGETS,
  type PeriodCaps,
  type SpendCaps,
  type SpendCapsPatch,
  type SpendingBudgets,
  type SpendingOptions,
} from './runtime/budgets/spending-settings';
export type { SpendBreach } from './runtime/budgets/cap-check';
export { BudgetSettingsError } from './runtime/budgets/budget-errors';
export { BUDGET_REACHED_KIND, BUDGETS_ACTOR } from './runtime/budgets/budget-reached';
export { DEFAULT_RESERVED_OUTPUT_TOKENS } from './runtime/budgets/worst-case';
export {
  HOUSEHOLD_SUBJECT,
  type BudgetAmounts,
  type BudgetCounters,
  type BudgetPeriod,
  type BudgetReservation,
  type BudgetReservationState,
} from './core/budget-records';
export type { AgentGoalReport } from './runtime/goal-report';
export type { RequestKind } from './runtime/completion-rule';
export type { RunEffect } from './runtime/run-effects';
export type { GoalFacts, GoalFactsSnapshot } from './runtime/goal-facts';
export type {
  RunEvent,
  RunEventType,
  RunEventPayloads,
  ToolCallPhase,
  DecisionEventData,
} from './runtime/events/run-event';
export { RunEventBus, type RunEventSubscription } from './runtime/events/run-event-bus';
export {
  accessLostReason,
  recheckDue,
  type StreamAccessLostEvent,
  type StreamAccessLostReason,
  type SubscriberEvent,
  type SubscriptionView,
} from './runtime/events/stream-access';
export type { IdentityChange } from './runtime/events/access-watch';
export {
  DEFAULT_ACCESS_RECHECK_MS,
  DEFAULT_HOST_LIMITS,
  type HostLimits,
  type HostLimitOptions,
} from './runtime/limits/host-limits';
export { HostLimitError } from './runtime/limits/limit-errors';
export { pruneWindow, slidingWindow, type WindowVerdict } from './runtime/limits/sliding-window';
export { slotVerdict, type SlotVerdict } from './runtime/limits/open-slots';
export { HostLifecycleError, type HostLifecycleState } from './runtime/host-lifecycle';
export type { RunChecklist } from './runtime/checklist';
export type { LoopGuardConfig } from './runtime/guardrails/loop-guard';
export type { GuardCallKind } from './runtime/guardrails/types';
export type { ToolResultStoreOptions } from './runtime/context/tool-result-store';
export type { CodeExecutionOptions, ResolvedCodeExecutionOptions } from './runtime/code/code-options';
export type { ToolImageOptions } from './runtime/images/image-delivery';
export type {
  RunMiddleware,
  DriveStartContext,
  ModelRequestContext,
  ModelTurnContext,
  RunEndContext,
  RunMiddlewareContext,
  MiddlewareState,
  RunMiddlewareRun,
  RunStepContext,
  ToolCallContext,
  ToolCallVerdict,
  ToolResultContext,
} from './runtime/middleware/run-middleware';
export type { ModelProvider } from './models/types';
export type { ModelProviderConfig } from './models/factory';

// ports a host replaces
export { SystemClock, ManualClock, type Clock } from './ports/clock';
export { RandomIdGenerator, SequentialIdGenerator, type IdGenerator } from './ports/id-generator';
export { ConsoleLogger, type Logger, type LogLevel } from './ports/logger';
// secrets: the one redaction step (docs/secrets.md)
export {
  isSecretHolder,
  MIN_SECRET_LENGTH,
  REDACTED_MARKER,
  SecretRedactor,
  secretsOfHeaders,
  secretsOfUrl,
  secretSpellings,
  type RedactOptions,
  type SecretHolder,
  type SecretRedactorOptions,
} from './core/secret-redactor';
export { SECRET_HEADER_NAME, SECRET_PARAM_NAME, SECRET_TEXT_PATTERNS } from './core/secret-patterns';
export { redactingStorage, unredactedStorage } from './storage/redacting-storage';
export { redactingLogger } from './ports/redacting-logger';
export { redactingProvider } from './models/redacting-provider';
export { redactingHistoryStore } from './history/redacting-history-store';
export { Tokens, resolvePort, type AgentContainer, type PortToken } from './composition/injection-tokens';

// capabilities and the invocation path
export { defineCapability } from './capabilities/define-capability';
export { capabilityVisibleTo, visibleCapabilities } from './capabilities/visible-capabilities';
export { compactScopeKey, HASHED_SCOPE_KEY_PREFIX, parseScopeKey, scopeKey } from './core/scope-key';
export type {
  Capability,
  CapabilityDefinition,
  CallerLogLevel,
  HandlerContext,
  InvocationListener,
  PendingOutcome,
  ProgressUpdate,
  ReadInvoker,
  Verifier,
  VerifierOutcome,
} from './capabilities/types';
export type {
  CapabilityDescriptor,
  CapabilityKind,
  EffectKind,
  InvocationTarget,
  ReplayPolicy,
} from './core/capability-descriptor';
export type {
  InvocationContext,
  InvocationResult,
  InvocationResultBase,
  InvocationSucceeded,
  InvocationPending,
  InvocationUnsuccessful,
  InvocationStatus,
} from './capabilities/invocation';
export {
  DefaultCapabilityRegistry,
  type CapabilityRegistry,
  type CapabilityRegistryDeps,
} from './capabilities/capability-registry';
export { ForwardingCapabilityRegistry } from './capabilities/forwarding-registry';
export type { InvocationEvent, InvocationEvents } from './capabilities/invocation-pipeline';
export type { EventSource } from './ports/event-source';
export type { CapabilitySearchHit } from './capabilities/capability-search';
export { InvalidInputError, OutcomeUnknownError, type InputIssue } from './capabilities/errors';

// authorization: actors, the authorizer port, approvals, grants, plans, policies
export { parseActor, isHumanActor, defaultRoleOf, type Actor, type ActorKind, type ActorRole } from './core/actor';
export { DEFAULT_IDENTITY_RESOLVER, type IdentityResolver } from './ports/identity';
export { IDENTITY_TIMEOUT_MS } from './authorization/identity-deadline';
export { AUTHENTICATE_TIMEOUT_MS } from './core/deadline';
// background learning reviews: the host's options and handle (the review itself and its rules: `/skills`)
export type { LearningReviewResult, ReviewCallRecord } from './skills/review-run';
export type {
  LearningOptions,
  LearningReviewDue,
  LearningReviewReport,
  ResolvedLearningOptions,
} from './runtime/learning/learning-options';
export type { LearningReviewsHandle } from './runtime/learning/learning-reviews';
export type { Authorizer, AuthorizationRequest } from './authorization/authorizer';
export type { AuthorizationVerdict, DenialCode } from './authorization/verdict';
export { PolicyAuthorizer } from './authorization/policy-authorizer';
export { ApprovalService, type RequestApprovalInput, type DecideApprovalInput } from './authorization/approval-service';
export { GrantService, type CreateGrantInput, type UpdateGrantInput } from './authorization/grant-service';
export { PlanService, type CreatePlanInput } from './authorization/plan-service';
export { PolicyService } from './authorization/policy-service';
export { AutomationService } from './authorization/automation-service';
export type { AutomationSettings } from './authorization/evaluate';

// the storage port (implementations: `@media-agent/sdk/storage` and `@media-agent/sdk/sqlite`)
export type { StorageAdapter, StorageSession, StorageTopic } from './ports/storage-adapter';

// stable memory: the `memory` option and `host.memory` (the store, proposals and results: `/memory`)
export { MemoryService } from './memory/memory-service';
export type { MemoryOptions } from './memory/memory-options';
