/**
 * `@media-agent/sdk`: an in-process agent runtime for media managers — capabilities, one
 * authorized invocation path, approvals and standing grants, a ledger that never repeats a side
 * effect after a crash, and model providers.
 *
 * @remarks
 * This entry holds what a host application or a plugin author needs to embed the runtime, register
 * capabilities and handle runs: `createAgentHost` and its options, `AgentHost`, run events and
 * reports, capabilities and invocation results, the authorizer and identity ports, the ports a host
 * replaces (clock, ids, logger, storage, goal facts) and the error base class. Each family's details
 * are in its own subpath entry:
 *
 * - `@media-agent/sdk/models`: model providers, messages, token counting, cost, which models accept images.
 * - `@media-agent/sdk/media`: the standard media capabilities.
 * - `@media-agent/sdk/capabilities`: the capability registries, invocation events, which capabilities an actor sees.
 * - `@media-agent/sdk/authorization`: the approval, grant, plan, policy and automation services, roles, scope keys.
 * - `@media-agent/sdk/budgets`: spending budgets per person and for the household.
 * - `@media-agent/sdk/limits`: host limits and when an open event stream loses access.
 * - `@media-agent/sdk/secrets`: the one redaction step and the redacting wrappers of each port.
 * - `@media-agent/sdk/loop`: the run middleware's hook contexts, the loop guard, the tool-result store, tracing.
 * - `@media-agent/sdk/storage`, `@media-agent/sdk/sqlite`, `@media-agent/sdk/postgres`: stores, records, the ledger.
 * - `@media-agent/sdk/memory`, `@media-agent/sdk/history`, `@media-agent/sdk/skills` (with learning reviews),
 *   `@media-agent/sdk/decisions`, `@media-agent/sdk/code`: each option family with its store or service.
 * - `@media-agent/sdk/mcp`, `@media-agent/sdk/http`, `@media-agent/sdk/testing`.
 *
 * @example
 * ```ts
 * import { createAgentHost } from '@media-agent/sdk';
 * import { SqliteStorage } from '@media-agent/sdk/sqlite';
 *
 * const host = createAgentHost({
 *   storage: new SqliteStorage({ path: './data/agent.sqlite' }),
 *   model: { provider: { provider: 'anthropic', apiKey: process.env.ANTHROPIC_API_KEY! }, model: 'claude-sonnet-4-5' },
 * });
 * await host.start();
 * const run = await host.startRun({ goal: 'Add Dune: Part Two to the library', actor: 'user:admin' });
 * for await (const event of host.events({ runId: run.id })) {
 *   if (event.type === 'report') console.log(event.data.report.status, event.data.report.summary);
 * }
 * ```
 *
 * @packageDocumentation
 */
export { MediaAgentError, isMediaAgentError } from './core/errors';
export { ERROR_CODES, type ErrorCode } from './core/error-codes';

// the host and its options (each option family's details: its subpath entry)
export { createAgentHost, createAgentContainer } from './composition/container';
export type { ActorOptions, AgentHost, StartReport } from './runtime/agent-host';
export type {
  AgentOptions,
  ModelOptions,
  ResolvedAgentOptions,
  RunOptions,
  RunScope,
} from './runtime/agent-options';
export { HostLifecycleError, type HostLifecycleState } from './runtime/host-lifecycle';
export {
  AUDIT_EXPORT_FORMAT,
  type AuditExportHeader,
  type AuditExportRange,
  type AuditVerifyOptions,
  type HostAudit,
  writeAuditExport,
} from './runtime/audit-trail';
export {
  AuditChainBrokenError,
  type AuditChainBreak,
  type AuditChainChange,
  type AuditChainVerification,
} from './core/audit-verify';
export type { DrainSummary, StopOptions } from './runtime/drain-options';
export type { ModelProvider } from './models/types';
export type { ModelProviderConfig } from './models/factory';
export type { RunMiddleware } from './runtime/middleware/run-middleware';

// runs: starting them, their events and reports
export type { StartRunInput, RunDetail } from './runtime/run-service';
export type { RunBudgets, DailyBudgets } from './runtime/run-budgets';
export type { AgentGoalReport } from './runtime/goal-report';
export type { RequestKind } from './runtime/completion-rule';
export type { RunEffect } from './runtime/run-effects';
export type { RunChecklist } from './runtime/checklist';
export type {
  RunEvent,
  RunEventType,
  RunEventPayloads,
  ToolCallPhase,
  DecisionEventData,
} from './runtime/events/run-event';
export { RunEventBus, type RunEventSubscription } from './runtime/events/run-event-bus';
export type { RunRecord, RunStatus } from './core/run-records';
export type { SubscriberEvent } from './runtime/events/stream-access';

// decisions as the host API returns them (the service, its rules and settings: `/decisions`)
export type { DecisionChoice, RaiseDecisionInput } from './runtime/decisions/decision-service';
export type { DecisionRecord, DecisionStatus, DecisionOption, DecisionResolution } from './core/run-records';
export type { DecisionFilter } from './ports/storage-adapter';

// schedules as the host API takes and returns them (docs/schedules.md; the option and budget helpers: `/operations`)
export type {
  CreateScheduleInput,
  HostSchedules,
  ListSchedulesFilter,
  ScheduleBudgets,
  UpdateScheduleInput,
} from './runtime/schedules/schedule-types';
export type {
  MissedTickPolicy,
  ScheduleRecord,
  ScheduleSkipReason,
  ScheduleStatus,
  ScheduleTickRecord,
} from './core/schedule-records';
export {
  ScheduleCapabilityForbiddenError,
  ScheduleConflictError,
  ScheduleInvalidError,
  ScheduleKeyReusedError,
  ScheduleNotFoundError,
  type ForbiddenScheduleCapability,
} from './runtime/schedules/schedule-errors';

// undo through declared inverses (docs/approvals.md#undo; its pure rules: `/capabilities`, its decision: `/decisions`)
export type {
  HostUndo,
  NotUndoable,
  NotUndoableReason,
  UndoNotAttempted,
  UndoOptions,
  UndoResult,
  UndoStatus,
  UndoStep,
  UndoTarget,
} from './runtime/undo/undo-types';
export { UndoError } from './runtime/undo/undo-errors';

// forks and undoing the last turn (docs/forks.md)
export type {
  ForkedEffect,
  ForkPoint,
  ForkRunOptions,
  ListForkPointsOptions,
  UndoTurnResult,
} from './runtime/fork/fork-types';
export type { RunForkOrigin } from './core/run-records';
export type { PriorEffect } from './capabilities/invocation';
export {
  ForkPointInvalidError,
  ForkSubagentRunError,
  UndoMessagePendingError,
  UndoNoTurnError,
  UndoNotInteractiveError,
} from './runtime/fork/fork-errors';
// replay without side effects (docs/evaluation.md#replay-without-side-effects): `host.replayRun`, and its parts for
// the evaluation CLI (`--from-run`, `--export-trajectory`)
export {
  readRecordedRun,
  type ReadRecordedRunOptions,
  type RecordedApproval,
  type RecordedCall,
  type RecordedCallStatus,
  type RecordedCapability,
  type RecordedRun,
  type RecordedSteering,
  type RecordedSubagent,
  type RecordedTurn,
} from './runtime/replay/recorded-run';
export {
  RecordedAnswers,
  recordedCapabilities,
  ReplayNoRecordedResultError,
  type RecordedCapabilitySet,
} from './runtime/replay/recorded-capabilities';
export type {
  ReplayedCall,
  ReplayedRun,
  ReplayRecordedRunOptions,
  ReplayRunSettings,
} from './runtime/replay/replay-drive';
export { compareReplay, type ReplayDivergence, type ReplayOutcome } from './runtime/replay/replay-compare';
export type { RunReplayReport } from './runtime/replay/replay-report';
export { replayRecordedRun } from './composition/replay-recorded-run';

// ports a host replaces
export { SystemClock, ManualClock, type Clock } from './ports/clock';
export { RandomIdGenerator, SequentialIdGenerator, type IdGenerator } from './ports/id-generator';
export { ConsoleLogger, type Logger, type LogLevel } from './ports/logger';
export type { GoalFacts, GoalFactsSnapshot } from './runtime/goal-facts';
export type { StorageAdapter, StorageSession, StorageTopic } from './ports/storage-adapter';
export { Tokens, resolvePort, type AgentContainer, type PortToken } from './composition/injection-tokens';

// capabilities and the invocation path (registries, invocation events, visibility: `/capabilities`)
export { defineCapability } from './capabilities/define-capability';
export type {
  Capability,
  CapabilityDefinition,
  CallerLogLevel,
  CapabilityInverse,
  CapabilityIntent,
  HandlerContext,
  ImpactContext,
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
  InvocationProvenance,
  InvocationResult,
  InvocationResultBase,
  InvocationSucceeded,
  InvocationPending,
  InvocationUnsuccessful,
  InvocationStatus,
  InvocationDryRun,
  DryRunVerdict,
} from './capabilities/invocation';
export type { IntentJoin, IntentOptions } from './capabilities/intent-join';
export {
  ImpactSchema,
  ImpactStepSchema,
  type Impact,
  type ImpactReport,
  type ImpactStep,
  type ImpactUnknownCode,
} from './core/impact';
export { describeImpact, formatBytes, formatDuration } from './core/impact-text';
export { planSteps, type PlanStep } from './core/plan-steps';
export { DEFAULT_IMPACT_TIMEOUT_MS } from './capabilities/impact-runner';
export type { CapabilityRegistry } from './capabilities/capability-registry';
export { InvalidInputError, OutcomeUnknownError, type InputIssue } from './capabilities/errors';

// provenance: which values the host issued, which text strangers wrote (docs/untrusted-text.md); fencing that text
export {
  ID_MARK,
  TEXT_MARK,
  PROVENANCE_MARK,
  issuedId,
  untrustedText,
  provenanceFields,
  isProvenanceDeclared,
  type ProvenanceField,
} from './core/provenance-marks';
export { stripInvisible, normalizeForMatch, MIN_TAINT_MATCH_CHARS } from './core/untrusted-text';
export {
  EMPTY_RUN_PROVENANCE,
  RUN_PROVENANCE_LIMITS,
  collectProvenance,
  findTaint,
  taintMessage,
  type RunProvenance,
  type TaintFinding,
} from './core/run-provenance';
export { FENCE_OPEN, FENCE_CLOSE, FENCE_MAX_CHARS, FENCE_NOTE, fenceText, fenceOutput } from './core/data-fence';

// actors and the authorizer port (the services behind approvals, grants, plans and policies: `/authorization`)
export type { Actor, ActorKind, ActorRole } from './core/actor';
export type { IdentityResolver } from './ports/identity';
export type {
  ChannelButton,
  ChannelCapabilities,
  ChannelEdit,
  ChannelInput,
  ChannelPort,
  ChannelSend,
} from './ports/channel';
export { ChannelError, isChannelError, type ChannelErrorCode } from './ports/channel-errors';
export type {
  NewOutboxRecord,
  OutboxChat,
  OutboxKind,
  OutboxPayload,
  OutboxRecord,
  OutboxStatus,
} from './ports/outbox-records';
export type { OutboxDueOptions, OutboxRepository } from './ports/outbox-repository';
export type { ChannelsOptions, ResolvedChannelsOptions } from './runtime/channels/channels-options';
export { ChannelInputRefusedError } from './runtime/channels/channel-refusal';
export type { ChannelInputOutcome } from './runtime/channels/channel-router';
export {
  conversationOf,
  conversationSessionId,
  type ChannelConversation,
  type OpenReply,
  type PendingChoice,
} from './runtime/channels/conversation-binding';
export {
  decideAppend,
  type AppendDecision,
  type AppendFacts,
  type ChatConversation,
} from './runtime/channels/append-rule';
export {
  OutboxDispatcher,
  OUTBOX_LEASE_MS,
  OUTBOX_POLL_INTERVAL_MS,
  type OutboxDispatcherOptions,
  type OutboxPassResult,
} from './runtime/channels/outbox-dispatcher';
export {
  outboxKey,
  outboxRowId,
  outboxRowsForEdit,
  outboxRowsForReply,
  type OutboxEditReply,
  type OutboxReply,
} from './runtime/channels/outbox-rows';
export {
  OUTBOX_BACKOFF_BASE_MS,
  OUTBOX_BACKOFF_MAX_MS,
  OUTBOX_DEFAULT_RETRY_AFTER_MS,
  outboxBackoffMs,
  outboxRetryDecision,
  type OutboxRetryDecision,
} from './runtime/channels/outbox-retry';
export { escapeHtml, markdownToPlain } from './runtime/channels/plain-text';
export { splitText } from './runtime/channels/split-text';
export type { Authorizer, AuthorizationRequest } from './authorization/authorizer';
export type { AuthorizationVerdict, DenialCode } from './authorization/verdict';
