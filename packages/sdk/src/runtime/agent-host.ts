import type { Static, TSchema } from 'typebox';
import type { ApprovalService } from '../authorization/approval-service';
import type { AutomationService } from '../authorization/automation-service';
import type { GrantService } from '../authorization/grant-service';
import type { PlanService } from '../authorization/plan-service';
import type { PolicyService } from '../authorization/policy-service';
import type { CapabilityRegistry } from '../capabilities/capability-registry';
import type { InvocationContext, InvocationDryRun, InvocationResult } from '../capabilities/invocation';
import type { Capability } from '../capabilities/types';
import { undeclaredEffects, undeclaredWarning } from './undeclared-effects';
import type { InvocationLedger } from '../ledger/invocation-ledger';
import type { MemoryService } from '../memory/memory-service';
import type { LearningReviews, LearningReviewsHandle } from './learning/learning-reviews';
import type { Logger } from '../ports/logger';
import type { ActorRole } from '../core/actor';
import type { IdentityResolver } from '../ports/identity';
import { resolveRole } from '../authorization/roles';
import { isHumanActor, parseActor } from '../core/actor';
import { LRUCache } from 'lru-cache';
import { mayReadStream, streamOwner } from './run-access';
import type { AuditAction, AuditRecord, LedgerEntry } from '../core/records';
import type { DecisionFilter, StorageAdapter } from '../ports/storage-adapter';
import type {
  DecisionChoice,
  DecisionService,
  DecisionTrigger,
  RaiseDecisionInput,
} from './decisions/decision-service';
import type { ResolvedAgentOptions } from './agent-options';
import type { RunEvent } from './events/run-event';
import { subscribeUntilStopped, toRunEvent, type RunEventBus, type RunEventSubscription } from './events/run-event-bus';
import type { DecisionRecord, InboxRecord, RunRecord, RunStatus } from '../core/run-records';
import {
  checkInteger,
  checkOptionsObject,
  RunNotFoundError,
  RunRequestError,
  type RunDetail,
  type RunService,
  type StartRunInput,
} from './run-service';
import type { WorkerPool } from './worker-pool';
import { resolveDrainMs, type StopOptions } from './drain-options';
import { checkStarted, guardService, HostLifecycleError, type HostLifecycleState } from './host-lifecycle';
import { ModelNotConfiguredError } from '../models/errors';
import type { BudgetService } from './budgets/budget-service';
import { hostAudit, type HostAudit } from './audit-trail';
import { SystemClock, type Clock } from '../ports/clock';
import { AccessWatch, type AccessTicket, type IdentityChange } from './events/access-watch';
import { guardedEvents } from './events/guarded-events';
import { accessLostReason, type SubscriberEvent, type SubscriptionView } from './events/stream-access';
import { DEFAULT_ACCESS_RECHECK_MS, DEFAULT_HOST_LIMITS } from './limits/host-limits';
import { RunStartLimiter } from './limits/run-start-limiter';
import { StreamSlots } from './limits/stream-slots';
import { releasingIterable } from './limits/releasing-iterable';
import { untilStopped } from './events/until-stopped';
import type { MaintenanceHandle, MaintenanceService } from './maintenance/maintenance-service';
import type { MaintenanceScheduler } from './maintenance/maintenance-scheduler';
import type { HostSchedules } from './schedules/schedule-types';
import type { ScheduleRunner } from './schedules/schedule-runner';
import { ChannelRouter } from './channels/channel-router';
import type { IdGenerator } from '../ports/id-generator';
import type { ChannelSecret } from './channels/channel-secret';
import type { OutboxDispatcher } from './channels/outbox-dispatcher';
import type { ResolvedChannelsOptions } from './channels/channels-options';
import type { ChannelPort } from '../ports/channel';
import type { HostUndo, UndoOptions, UndoResult, UndoTarget } from './undo/undo-types';
import type { ForkService } from './fork/fork-service';
import type { ForkPoint, ForkRunOptions, ListForkPointsOptions, UndoTurnResult } from './fork/fork-types';
import type { RunReplayReport } from './replay/replay-report';

/**
 * Who acts, in the one convention of the host API: every {@link AgentHost} method that acts or reads on a person's
 * behalf takes `{ actor }` in an options object (`getRun`, `listRuns`, `appendToInbox`, `abort`, `events`,
 * `chooseDecisionOption`, `dismissDecision`). `roleOf` and `identityChanged` take the actor they are about as their
 * subject instead.
 * @public
 */
export interface ActorOptions {
  /** The actor, e.g. `user:alice`, `apikey:ci`, `system:watch`. */
  actor: string;
}

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
 *
 * @remarks
 * Lifecycle: create → `await start()` → use → `stop()`. Every call that reads or writes storage — its
 * own methods and those of the services it exposes — is refused with a {@link HostLifecycleError}
 * (`HOST_NOT_STARTED` before `start()` resolved, `HOST_STOPPED` after `stop()`), the same on every store.
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
   * Stable memory (undefined unless the host set the `memory` option): pending proposals
   * (`listProposals`, `showProposal`, `approveProposal`, `discardProposal`), the global memory
   * (`writeGlobal`, administrators only) and `search`. Memory is evidence for the model, never authorization.
   */
  readonly memory: MemoryService | undefined;
  /**
   * Background learning reviews running in this process (undefined when they are off: no `skills` or
   * `memory` option, or `learning.review: false`): `running()` lists the conversations being reviewed,
   * `idle()` resolves when none is. `stop()` cancels them.
   */
  readonly learning: LearningReviewsHandle | undefined;
  /**
   * The spending budgets per person and for the household (docs/budgets.md): `settings()`, `usage(actor)`, and
   * `update(actor, change)` for administrators (audited; runs held at a cap resume when it is raised).
   */
  readonly budgets: BudgetService;
  /**
   * Retention and usage of the store (docs/operations.md#retention-and-prune): `prune({ dryRun?, kinds?,
   * batchSize?, signal?, onProgress? })` removes what the `retention` option lets go in batches (each its own
   * transaction; never a live item) and compacts a SQLite file afterwards; `usage()` reports rows and bytes per kind
   * and the file sizes. A second prune while one runs — here, or in another process on the same store — is refused
   * with `MAINTENANCE_BUSY`. The host also prunes by itself daily (option `maintenance.schedule`).
   *
   * @example
   * ```ts
   * const would = await host.maintenance.prune({ dryRun: true });
   * console.log(would.kinds.runs); // { rows, bytes, batches: 0 }
   * const done = await host.maintenance.prune({ onProgress: (p) => console.log(p.kind, p.rows) });
   * console.log(done.compacted?.freedBytes, (await host.maintenance.usage()).files);
   * ```
   */
  readonly maintenance: MaintenanceHandle;
  /**
   * Schedules (docs/schedules.md): recurring goals run as their owner at each tick of a cron expression (read in an
   * IANA time zone) or a fixed interval — `create`, `get`, `list`, `update`, `pause`, `resume`, `delete`, `ticks`.
   * Every change is audited (`schedule.changed`); an ordinary user sees and manages only their own schedules.
   */
  readonly schedules: HostSchedules;
  /**
   * A dry run (`dryRun: true`): validates, authorizes and computes the impact, never runs the handler, claims the
   * ledger, consumes an approval or charges a grant (docs/approvals.md#dry-runs). Audited as `capability.dry_run`.
   * @returns `{ status: 'dry_run', impact, verdict }`
   * @throws as `invoke`, for an unknown capability or invalid context or input
   * @example
   * ```ts
   * const preview = await host.invoke('download.submit', { planId }, { actor: 'user:dad', dryRun: true });
   * console.log(preview.impact.summary, preview.verdict.allowed); // 'downloads 58.2 GB to /media/movies; …' false
   * ```
   */
  invoke(
    idOrCapability: string | Capability<any, any>,
    input: unknown,
    context: InvocationContext & { dryRun: true },
  ): Promise<InvocationDryRun>;
  /**
   * Invokes a capability (given as the object made by `defineCapability`, so input and output are typed)
   * through the one invocation path; the same as invoking it by id (results and errors as there).
   */
  invoke<I extends TSchema, O extends TSchema>(
    capability: Capability<I, O>,
    input: NoInfer<Static<I>>,
    context: InvocationContext,
  ): Promise<InvocationResult<Static<O>>>;
  /**
   * Invokes a capability by id through the one invocation path: validate, authorize, claim, run, settle, audit
   * (docs/architecture.md#the-invocation-path). Denials, handler failures, pending and unknown outcomes are
   * returned as results, not thrown.
   * @param id - the capability id, e.g. `download.submit`
   * @param input - the input, validated against the capability's schema before anything else
   * @param context - who calls (`actor`), for which run (`runId`) or task (`taskId`), with which approval
   *   (`approvalId`), and an optional abort `signal`
   * @returns the result: `status` (`succeeded`, `failed`, `pending`, `unknown`, `denied`), the output or error,
   *   and the idempotency key
   * @throws {@link MediaAgentError} `CAPABILITY_NOT_FOUND`, `ACTOR_INVALID`, `INPUT_INVALID` (with every path),
   *   `INPUT_TOO_LARGE`, `LEDGER_CALL_ID_CONFLICT`, `LEDGER_IN_PROGRESS`, `LEDGER_STALE_EXECUTOR`, storage
   *   errors — none of them after a partial write
   *
   * @example
   * ```ts
   * const result = await host.invoke('download.submit', { planId: plan.id }, { actor: 'apikey:ci', approvalId });
   * if (result.status === 'denied') console.log(result.error?.code); // e.g. AUTH_APPROVAL_EXPIRED
   * ```
   */
  invoke(id: string, input: unknown, context: InvocationContext): Promise<InvocationResult>;
  /**
   * Starts a run: returns it `queued`; a worker drives it (no model call runs in the caller's stack).
   * @param input - `goal` (text), `actor`, and optionally `mode` (`execute` or `plan_only`, default `execute`),
   *   `capabilityAllowlist`, `sessionId`
   * @returns the stored run, status `queued`
   * @throws {@link MediaAgentError} `MODEL_NOT_CONFIGURED` (the host was created without a model), `RUN_REQUEST_INVALID` (empty goal, unknown capability, an execute capability
   *   in a plan_only allowlist), `ACTOR_INVALID`; `RUN_START_RATE_LIMITED` (`HostLimitError`) when `actor`, or the
   *   host, started as many runs in the last 60 s as `limits.runStartsPerMinutePerActor` (default 10) /
   *   `limits.runStartsPerMinuteTotal` (default 60) allow — nothing is started, and a refused or invalid start does not count
   *
   * @example
   * ```ts
   * const run = await host.startRun({ goal: 'Add Dune: Part Two to the library', actor: 'user:admin' });
   * for await (const event of host.events({ runId: run.id })) {
   *   if (event.type === 'run_status' && ['succeeded', 'failed', 'cancelled', 'budget_exceeded'].includes(event.data.status)) break;
   * }
   * const { report } = await host.getRun(run.id);
   * ```
   */
  startRun(input: StartRunInput): Promise<RunRecord>;
  /**
   * A run with its plan, verified report, queued messages and a page of its events (`afterSeq`, `limit`).
   * Pass `actor` when asking on a person's behalf: only the run's owner and administrators see it.
   * @param options - `afterSeq` (default 0), `limit` (default 100, at most 1000), `actor`
   * @throws `RUN_NOT_FOUND` (also for a run `actor` may not see: its existence is never revealed),
   *   `RUN_REQUEST_INVALID`, `ACTOR_INVALID`
   */
  getRun(id: string, options?: { afterSeq?: number; limit?: number; actor?: string }): Promise<RunDetail>;
  /**
   * Replays a stored run without side effects (docs/evaluation.md#replay-without-side-effects): re-drives it through
   * the current runtime — this host's capability definitions (schemas, kinds, targets, policies), grants, policy
   * revisions, automation settings and run settings (budgets, loop guard, context window) — in an isolated host
   * (memory storage, a manual clock from the run's creation, sequential ids), with a scripted model that plays the
   * stored model turns and capability handlers that answer the stored results; steering messages are sent before the
   * turn they preceded and approvals decided as they were. Nothing real runs: no model call, no handler call, no
   * ledger write on this host — `modelCalls`, `handlerCalls` and `ledgerWrites` measure it (calls this host's
   * providers and registry received, and ledger rows of its store added or changed, during the replay: another
   * run working meanwhile counts too). Returns where the current runtime diverges from what was stored: another tool
   * call, another authorization verdict, another goal report, a capability that no longer exists, more or fewer turns.
   * A run that has not ended is replayed as far as it is stored.
   * @param runId - the stored run (a top-level run; its subagents are replayed with it)
   * @param options - `actor`: ask on a person's behalf (only the run's owner and administrators may replay it);
   *   `timeoutMs`: real-time limit of the replay, an integer from 1 to 600 000 (default 30 000)
   * @returns the replay report: `status` `same` or `diverged`, the divergences, both goal reports, the measures
   * @throws `RUN_NOT_FOUND` (also for a run `actor` may not see), `RUN_PRUNED` (retention removed its conversation),
   *   `RUN_REQUEST_INVALID` (bad options), `ACTOR_INVALID`
   * @example
   * ```ts
   * const replay = await host.replayRun(run.id, { actor: 'user:admin' });
   * console.log(replay.status, replay.modelCalls, replay.handlerCalls, replay.ledgerWrites); // 'same' 0 0 0
   * for (const d of replay.divergences) console.log(d.kind, `turn ${d.turn}`, d.message);
   * ```
   */
  replayRun(runId: string, options?: { actor?: string; timeoutMs?: number }): Promise<RunReplayReport>;
  /**
   * Runs newest first (default limit 50, at most 1000). With `actor`, an ordinary user gets only the runs
   * they started; an administrator gets every run.
   * @throws `RUN_REQUEST_INVALID`, `ACTOR_INVALID`
   */
  listRuns(filter?: { status?: RunStatus; sessionId?: string; limit?: number; actor?: string }): Promise<RunRecord[]>;
  /**
   * Puts a person's message in the run's inbox (it steers the run): a running run gets it as a user message
   * before its next model call; a waiting or ended run is woken for one new drive
   * (docs/architecture.md#steering-messages). Emits `inbox_queued`, then `inbox_applied`. Nothing is dropped
   * when the inbox is full. Only the run's owner and administrators may steer it; the run then acts for the
   * writer (an administrator's message lets it reach admin-only capabilities) while its owner stays the same.
   * @param runId - the run
   * @param text - the message, as the person wrote it
   * @param options - `actor`: who writes it, e.g. `user:admin`
   * @returns the queued inbox record
   * @throws {@link MediaAgentError} `RUN_NOT_FOUND` (also for a run `actor` may not see), `RUN_REQUEST_INVALID`,
   *   `ACTOR_INVALID`
   *
   * @example
   * ```ts
   * await host.appendToInbox(run.id, 'prefer 1080p, no HDR', { actor: 'user:admin' });
   * ```
   */
  appendToInbox(runId: string, text: string, options: ActorOptions): Promise<InboxRecord>;
  /**
   * The positional form of {@link AgentHost.appendToInbox}.
   * @deprecated Pass `{ actor }`: `appendToInbox(runId, text, { actor })` (the one convention of the host API). The
   *   positional form still works and logs one warning per host.
   */
  appendToInbox(runId: string, text: string, actor: string): Promise<InboxRecord>;
  /**
   * Aborts a run: no further steps; completed effects are not undone; the run ends `cancelled`.
   * @param reason - optional words for the record
   * @param options - `actor` aborts on a person's behalf: only the run's owner and administrators may
   * @throws `RUN_NOT_FOUND` (also for a run `actor` may not see), `ACTOR_INVALID`
   */
  abort(runId: string, reason?: string, options?: { actor?: string }): Promise<RunRecord>;
  /**
   * The role of an actor, from the host's `IdentityResolver` (`admin` or `user`; a resolver that fails
   * gives `user`).
   * @throws `ACTOR_INVALID` for a malformed actor
   *
   * @example
   * ```ts
   * if ((await host.roleOf(actor)) !== 'admin') return forbidden();
   * ```
   */
  roleOf(actor: string): Promise<ActorRole>;
  /**
   * Run events with global sequence above `after`: replayed from storage, then live. Reconnect with the
   * last `globalSeq` seen to miss nothing and see nothing twice. `pollMs` (default 1000) bounds the delay for
   * events written by other processes. With `runId` the iteration ends after the run's terminal `run_status`
   * event (`follow: true` keeps it open across wakes of the finished run); without it, it ends only when
   * `signal` aborts.
   *
   * With `actor` the subscription is made on that actor's behalf and stays subject to their access while it
   * is open: it re-checks the actor's identity and role every `accessRecheckMs` (default 30 000 ms, by the
   * host's clock) and at once when the host calls {@link AgentHost.identityChanged}; `reauthenticate`, when
   * given, is asked at each re-check. A subscriber who lost access (signed out, demoted from administrator
   * while subscribed to every run, no longer allowed to see the run followed) gets one
   * `StreamAccessLostEvent` (`type: 'access_lost'`, `code: 'STREAM_ACCESS_LOST'`) and the iteration ends.
   * Such a subscription holds one of the actor's open-stream slots (`limits.streamsPerActor`, default 8;
   * `limits.streamsTotal`, default 64) from this call until the iteration ends or `signal` aborts.
   * @param options - `after` (a `globalSeq`, default 0), `runId` to follow one run, `follow`, `signal`, `pollMs`,
   *   `actor` to subscribe on a person's behalf (only the events of runs they may see), `reauthenticate`
   * @throws {@link MediaAgentError} `RUN_REQUEST_INVALID` for an `after` or `pollMs` (1–3 600 000) that is not
   *   an integer in range; `ACTOR_INVALID`; `HOST_NOT_STARTED` / `HOST_STOPPED` (checked when called, before
   *   iterating; also from the iteration when the host stops while it is open, once the events it already held were
   *   delivered — a subscription to one run whose terminal status it delivered ends instead, and one whose `signal`
   *   was aborted first ends quietly); `STREAM_LIMIT_REACHED` (`HostLimitError`, when called) when `actor` or the host has as
   *   many streams open as allowed; `RUN_NOT_FOUND` on the first iteration for a `runId` the `actor` may not see
   *
   * @example
   * ```ts
   * let last = loadCursor(); // the last globalSeq this subscriber handled
   * for await (const event of host.events({ after: last, signal })) {
   *   await forward(event);
   *   saveCursor((last = event.globalSeq));
   * }
   * ```
   */
  events(options: RunEventSubscription & { actor: string }): AsyncIterable<SubscriberEvent>;
  /**
   * Run events with global sequence above `after`, without an `actor`: the events of every run, as the host
   * sees them. Options, cursor, end and errors as in the overload with `actor`.
   */
  events(options?: RunEventSubscription & { actor?: undefined }): AsyncIterable<RunEvent>;
  /**
   * Run events with global sequence above `after`, for options whose `actor` may or may not be set: with one,
   * an access-checked subscription that may end with a `StreamAccessLostEvent`; without, every run's events.
   * Options, cursor, end and errors as in the overload with `actor`.
   */
  events(options?: RunEventSubscription): AsyncIterable<SubscriberEvent>;
  /**
   * The host's signal that what an actor may see changed: a sign-out, a removed account, a role change.
   * Every event subscription open on `actor`'s behalf (`events({ actor })`, the HTTP event stream)
   * re-checks the actor's access before it delivers anything more; one that lost access ends with a
   * `StreamAccessLostEvent`. Without `actor`, every open subscription re-checks (e.g. after the
   * host reloaded its whole role table). Call it from the host's sign-out and role-change code paths.
   * @param actor - whose access changed, e.g. `user:1`; undefined for everyone
   * @param change - `signedOut: true` ends the actor's subscriptions whatever their role (reason
   *   `unauthenticated`); default: re-check identity and role
   * @returns how many open subscriptions were told
   * @throws {@link MediaAgentError} `ACTOR_INVALID` for a malformed actor
   *
   * @example
   * ```ts
   * await sessions.delete(token);
   * host.identityChanged('user:1', { signedOut: true });
   * ```
   */
  identityChanged(actor?: string, change?: IdentityChange): number;
  /**
   * One page of stored run events with global sequence above `after`, oldest first; never waits for new
   * ones (for callers that poll, e.g. an HTTP client paging with `?after=`).
   * @param options - `after` (a `globalSeq`, default 0), `limit` (1–1000, default 100)
   * @throws {@link MediaAgentError} `RUN_REQUEST_INVALID` for an `after` or `limit` out of range
   */
  listEvents(options?: { after?: number; limit?: number }): Promise<RunEvent[]>;
  /**
   * Aborted when {@link AgentHost.stop} is called: surfaces that hold connections open (event streams)
   * listen to it to close them cleanly.
   */
  readonly stopSignal: AbortSignal;
  /**
   * Decisions for people (e.g. `agent_budget:<runId>`, `download_failed`), newest first, by status, subject, kind or root cause.
   * @throws {@link MediaAgentError} `DECISION_INVALID` for an unknown filter field or status, or a field that is not a string
   */
  decisions(filter?: DecisionFilter): Promise<DecisionRecord[]>;
  /**
   * A decision by id.
   * @throws {@link MediaAgentError} `DECISION_NOT_FOUND`
   */
  getDecision(id: string): Promise<DecisionRecord>;
  /**
   * Raises a decision for a person (docs/decisions.md): stored `open` with a `decision.created` event, unless its
   * dedupe key is stored (then the stored one is returned and nothing else happens). With
   * `decisions.autoInvestigate` on, a new `identity_ambiguous`, `download_failed` or `download_stalled` decision not
   * raised by a run gets one bounded investigation run (`resolveDecision({ type: 'created' })`).
   * @param input - kind, subject (`type`, `id`), reason, raisedBy, and optionally evidence, options, dedupeKey, rootCause
   * @returns the decision as stored after its automatic handling started
   * @throws {@link MediaAgentError} `DECISION_INVALID`, `DECISION_SUBJECT_NOT_FOUND` (nothing stored), `ACTOR_INVALID`
   *
   * @example
   * ```ts
   * const decision = await host.raiseDecision({
   *   kind: 'download_failed',
   *   subject: { type: 'download', id: 'dl-7' },
   *   reason: 'qBittorrent reports missing files for Dune: Part Two',
   *   raisedBy: 'system:downloader-watch',
   *   evidence: { state: 'missingFiles' },
   *   dedupeKey: 'download_failed:dl-7:1764590000000',
   * });
   * ```
   */
  raiseDecision(input: RaiseDecisionInput): Promise<DecisionRecord>;
  /**
   * A person chooses an option of a decision: the decision is resolved by `actor`, then the option's capability runs
   * through the one invocation path as `actor` (authorized, audited, ledgered). Choosing again returns the first
   * result and runs nothing. A denied invocation is returned (`execution.status: 'denied'`) and leaves the decision
   * `awaiting_user`.
   * A choice made while another choice of the same decision is still executing waits for that one's result
   * (`first: false`), at most `decisions.choiceWaitMs`.
   * @param id - the decision
   * @param optionId - one of its `options[].id`
   * @param options - `actor`: who chooses, e.g. `user:alice`; `note`: optional words for the record
   * @throws {@link MediaAgentError} `DECISION_NOT_FOUND`, `DECISION_OPTION_NOT_FOUND`, `DECISION_CLOSED`,
   *   `DECISION_IN_PROGRESS`, `ACTOR_INVALID`; `ADMIN_FORBIDDEN` for an option that invokes nothing (it only closes
   *   the decision) chosen by a non-administrator
   *
   * @example
   * ```ts
   * const { decision, execution } = await host.chooseDecisionOption(decisionId, 'recheck', { actor: 'user:admin' });
   * ```
   */
  chooseDecisionOption(
    id: string,
    optionId: string,
    options: ActorOptions & { note?: string },
  ): Promise<DecisionChoice>;
  /**
   * The positional form of {@link AgentHost.chooseDecisionOption}.
   * @deprecated Pass `{ actor, note }`: `chooseDecisionOption(id, optionId, { actor, note })`. The positional form
   *   still works and logs one warning per host.
   */
  chooseDecisionOption(id: string, optionId: string, actor: string, note?: string): Promise<DecisionChoice>;
  /**
   * Dismisses a decision without action (administrators only).
   * @param options - `actor`: who dismisses it; `note`: optional words for the record
   * @throws {@link MediaAgentError} `DECISION_NOT_FOUND`, `DECISION_CLOSED` (already resolved), `ACTOR_INVALID`,
   *   `ADMIN_FORBIDDEN`
   */
  dismissDecision(id: string, options: ActorOptions & { note?: string }): Promise<DecisionRecord>;
  /**
   * The positional form of {@link AgentHost.dismissDecision}.
   * @deprecated Pass `{ actor, note }`: `dismissDecision(id, { actor, note })`. The positional form still works and
   *   logs one warning per host.
   */
  dismissDecision(id: string, actor: string, note?: string): Promise<DecisionRecord>;
  /**
   * Handles a decision event from the host's own event source (a storm of the same event starts one run at most):
   * `created` starts the automatic investigation when the rules allow; `updated` executes the chosen option of a
   * resolved decision whose execution is not recorded yet.
   * @throws {@link MediaAgentError} `DECISION_NOT_FOUND`, `DECISION_INVALID` (unknown trigger type)
   */
  resolveDecision(trigger: DecisionTrigger): Promise<DecisionRecord>;
  /**
   * The step boundaries `runId` can be forked at (docs/forks.md#fork-points), oldest first: each event that ended a
   * step commit and whose conversation prefix is closed (every tool call in it has its result). Pass a point's
   * `seq` to {@link AgentHost.forkRun}. Reads only.
   * @param runId - the run
   * @param options - `actor`: list on a person's behalf (only the run's owner and administrators may)
   * @returns the fork points: `seq`, `at` (ms), `messageCount` (messages a fork copies), `label`
   * @throws `RUN_NOT_FOUND` (also a run `actor` may not read), `ACTOR_INVALID`, `RUN_PRUNED`, `FORK_SUBAGENT_RUN`,
   *   `RUN_REQUEST_INVALID` (options not an object)
   * @example
   * ```ts
   * const points = await host.listForkPoints(run.id, { actor: 'user:alice' });
   * for (const p of points) console.log(p.seq, p.label); // 9 after tool download.plan (succeeded) …
   * ```
   */
  listForkPoints(runId: string, options?: ListForkPointsOptions): Promise<ForkPoint[]>;
  /**
   * Forks a run at a step boundary (docs/forks.md): a new `queued` run owned by `options.actor` whose conversation is
   * the original's up to the event `options.atSeq` (copied verbatim), with the original's mode, origin, allowlist,
   * session and budgets, its checklist at that point, and what it was shown (provenance) and looked up (catalog
   * lookups) rebuilt from its tool outputs up to there. The original is not touched. The fork's first event
   * (`seq` 1) is `forked`: the run and event it comes from and every effect its lineage performed after that point
   * (ledger key, outcome, output or error) — facts, never run again nor undone; its model is told about them in a
   * runtime note (a user-role message that is not a person's input). Its own effects get their own ledger keys;
   * repeating a `replay: 'never'` effect of its lineage with the same arguments is refused `FORK_DUPLICATE_EFFECT`
   * until a person approves the plan. Its events are written in one transaction and published after it; the
   * workers are woken. Counts as a run start (`RUN_START_RATE_LIMITED`).
   * @param runId - the original (a top-level run; a fork may be forked again: the lineage is kept)
   * @param options - `atSeq` (a fork point), `actor` (the fork's owner; must be allowed to read the original),
   *   `model` (the fork's model id on the host's primary provider, 1–200 characters; a fork of a fork inherits it),
   *   `goal` (a new goal, 1–10 000 characters)
   * @returns the fork, `queued`, with `forkedFrom: { runId, atSeq }`
   * @throws `RUN_NOT_FOUND` (a missing run, or one `actor` may not read), `ACTOR_INVALID`, `RUN_REQUEST_INVALID`
   *   (bad `model` or `goal`), `RUN_PRUNED`, `FORK_SUBAGENT_RUN`, `FORK_POINT_INVALID` (`details.before` and
   *   `details.after` name the nearest fork points), `MODEL_NOT_CONFIGURED`, `RUN_START_RATE_LIMITED` — each before
   *   anything is written
   * @example
   * ```ts
   * const [point] = (await host.listForkPoints(run.id)).slice(-2);
   * const a = await host.forkRun(run.id, { atSeq: point.seq, actor: 'user:alice', model: 'claude-sonnet-4-5' });
   * const b = await host.forkRun(run.id, { atSeq: point.seq, actor: 'user:alice', model: 'gpt-4.1' });
   * // two runs from the same point: compare their reports and usage.costUsd
   * ```
   */
  forkRun(runId: string, options: ForkRunOptions): Promise<RunRecord>;
  /**
   * Undoes the person's last message of an interactive conversation (the console's "undo"; docs/forks.md#undo): forks
   * the run, with the same owner, at the last fork point before the commit that applied that message (the last
   * applied steering message), and the conversation continues in the fork, which is `waiting` for the person's next
   * message (`appendToInbox` on the fork wakes it). The original, when it has not ended, is cancelled with the reason
   * `undone: continued in <forkId>`; it stays readable. No effect is undone — unlike {@link AgentHost.undo}, which
   * runs inverses: effects the original performed after the fork point are listed in the fork's `forked` event.
   * @param runId - an interactive top-level run
   * @param actor - who undoes (the run's owner or an administrator), e.g. `user:alice`; the fork is theirs
   * @returns the fork, the event it was forked at, the undone message (inbox id and text), whether the original was cancelled
   * @throws `RUN_NOT_FOUND`, `ACTOR_INVALID`, `RUN_PRUNED`, `FORK_SUBAGENT_RUN`, `UNDO_NOT_INTERACTIVE`,
   *   `UNDO_MESSAGE_PENDING` (the latest message is still queued), `UNDO_NO_TURN` (no message after the goal),
   *   `MODEL_NOT_CONFIGURED`, `RUN_START_RATE_LIMITED` — each before anything is written
   * @example
   * ```ts
   * const undone = await host.undoLastTurn(run.id, 'user:alice');
   * console.log(`removed "${undone.undoneMessage.text}"; continue in ${undone.run.id}`);
   * await host.appendToInbox(undone.run.id, 'Add the 4K release instead', { actor: 'user:alice' });
   * ```
   */
  undoLastTurn(runId: string, actor: string): Promise<UndoTurnResult>;
  /**
   * Undoes what an invocation or a run did, through the inverses its capabilities declare (docs/approvals.md#undo):
   * every effect that took effect (`succeeded`, or `pending`: the inverse gets the job's receipt) is undone newest
   * first (latest claim time descending, ties by key) by invoking its capability's `inverse` with
   * `inverse.input(recordedOutput)` through the one invocation path, as `options.actor` and under that actor's own
   * authorization (an approval or a grant when they are not an administrator). Each inverse is invoked under the task
   * `undo:<sha256 of the effect's ledger key>` (call id `undo`), so undoing again never runs an inverse twice (the
   * recorded result comes back, `replayed: true`). Reads, failed calls and inverses of an earlier undo are skipped;
   * an effect with no inverse (or `unknown` outcome, or still running) is listed in `notUndoable` and the undo goes
   * on. The first inverse that is denied or fails stops the rest (listed in `notAttempted`); a failure raises an
   * `undo_failed` decision. Audited: `undo.requested`, `undo.finished`, `undo.refused`.
   * @param target - `{ invocationId }` (one call) or `{ runId }` (every call the run made)
   * @param options - `actor`: who undoes, e.g. `user:alice`; only the person who performed the effects (for a run:
   *   its owner) or an administrator may
   * @returns the outcome ({@link UndoResult}): `status` `undone`, `partial`, `failed`, `denied` or
   *   `nothing_to_undo`, the steps undone, what is not undoable and why, where it stopped
   * @throws {@link MediaAgentError} `ACTOR_INVALID`; `UndoError` `UNDO_REQUEST_INVALID` (not exactly one of
   *   `invocationId` / `runId`), `UNDO_NOT_FOUND` (nothing recorded for it), `UNDO_FORBIDDEN` (another person's
   *   effect, and `actor` is no administrator) — each before any inverse ran
   *
   * @example
   * ```ts
   * const undo = await host.undo({ runId: run.id }, { actor: 'user:alice' });
   * for (const step of undo.undone) console.log(step.capabilityId, '→', step.inverseCapabilityId, step.result?.status);
   * for (const n of undo.notUndoable) console.log(n.capabilityId, 'not undone:', n.reason);
   * if (undo.status === 'denied') console.log('needs approval:', undo.stoppedAt?.error?.code);
   * ```
   */
  undo(target: UndoTarget, options: UndoOptions): Promise<UndoResult>;
  /**
   * The audit trail: `host.audit(filter)` lists rows with `seq > after`, oldest first (default limit 100);
   * `host.audit.verify()` checks the tamper-evident chain; `host.audit.export({ from, to })` writes a segment as
   * JSON Lines a third party can verify (docs/audit.md).
   */
  readonly audit: HostAudit;
  /**
   * Migrates storage, then cold-start recovery (`running` ledger entries become `unknown` with new
   * tokens), retention cleanup, then starts the run workers. Call once per process, before anything that
   * reads or writes storage: until it resolved those calls are refused with `HOST_NOT_STARTED` (on every
   * store). Registering capabilities needs no start.
   * @param options - `workers: false` to invoke capabilities without driving runs in this process
   * First, the start-up model check (`model.checkOnStart`): for a provider of a local dialect (Ollama,
   * llama.cpp, vLLM, LM Studio) its server must list the model (one `GET {baseUrl}/models`, 5 s at most);
   * a failed check leaves the host not started (call `start()` again once the server is up).
   * @throws `MODEL_NOT_FOUND`, `PROVIDER_UNREACHABLE`, `PROVIDER_PROTOCOL`, `PROVIDER_TIMEOUT`, `PROVIDER_AUTH`
   *   from the model check, naming the entry (`details.entry`, `details.baseUrl`); storage errors
   *   (`STORAGE_SCHEMA_TOO_NEW`, `STORAGE_CORRUPT`, `STORAGE_LOCKED`); `HOST_STOPPED`
   *   after `stop()` (a stopped host cannot be started again: create a new one)
   */
  start(options?: { workers?: boolean }): Promise<StartReport>;
  /**
   * Stops the host, for good: takes no more runs at once and drains the runs in flight, then closes the storage.
   * Each run stops at its next step boundary (a wait between steps ends at once); a step in flight (a model call,
   * a capability handler) may finish within `options.drainMs` (default `DEFAULT_DRAIN_MS` of `@media-agent/sdk/operations`, 10 000 ms) and
   * is committed; past it, its signal is aborted and the step ends at once, whether its handler stops or not (an
   * effect it ran becomes `unknown` in the ledger, never `running` or `succeeded`; what the handler returns later
   * is not recorded), so the stop is bounded by `drainMs`, not by the capability deadline. Every unfinished run's lease is given up (status unchanged), so the next process
   * leases it at once. Afterwards every call that needs storage, and `start()`, is refused with `HOST_STOPPED`
   * ({@link HostLifecycleError}). Called again while stopping: the same stop; a smaller `drainMs` (counted from
   * the first call) cuts the drain short. For SIGTERM, see `stopOnSignals` in `@media-agent/sdk/operations` (docs/operations.md).
   * @param options - `drainMs`: ms the steps in flight may run on (`0`: abort them at once); `onDrained`: called
   *   with what the drain did ({@link DrainSummary}: runs drained, released, aborted, ms taken), also logged
   * @throws `OPTIONS_INVALID` for a `drainMs` that is not a finite number `>= 0`, or an `onDrained` that is not a
   *   function (nothing is stopped)
   */
  stop(options?: StopOptions): Promise<void>;
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
  /** Decisions for people. */
  decisions: DecisionService;
  /** Stable memory, when configured. */
  memory?: MemoryService | undefined;
  /** Background learning reviews, when on: `stop()` cancels them and waits at most `cancelWaitMs`. */
  learning?: { reviews: LearningReviews; cancelWaitMs: number } | undefined;
  /** Roles of actors. */
  identity: IdentityResolver;
  /** Spending budgets per person and for the household. */
  budgets: BudgetService;
  /** Retention and usage of the store. */
  maintenance: MaintenanceService;
  /** Schedules. */
  schedules: HostSchedules;
  /** The daily prune, when scheduled: started by `start()` (with workers), stopped by `stop()`. */
  scheduler?: MaintenanceScheduler;
  /** The schedule runner, when `schedules.enabled`: started by `start()` with the workers, stopped by `stop()`. */
  scheduleRunner?: ScheduleRunner;
  /** Undo through declared inverses: what `host.undo` calls once the host is started. */
  undo: HostUndo;
  /** Forks and undoing the last turn: what `host.forkRun`, `host.listForkPoints` and `host.undoLastTurn` call. */
  forks: ForkService;
  /** Replays a stored run without side effects: what `host.replayRun` calls once access was checked. */
  replay: (runId: string, options: { timeoutMs?: number }) => Promise<RunReplayReport>;
  /**
   * The start-up model check, run first by `start()` (a failure leaves the host not started, so `start()`
   * may be called again once the model server is up). Absent: nothing is checked.
   */
  checkModels?: () => Promise<unknown>;
  /** Called by `stop()` after the workers stopped (releases what the runtime holds, e.g. code kernels). */
  onStop?: () => void;
  /** Message channels, when configured: `start()` starts their ports with the channel router, `stop()` stops them. */
  channels?:
    | { options: ResolvedChannelsOptions; secret: ChannelSecret; ids: IdGenerator; dispatcher: OutboxDispatcher }
    | undefined;
  /** The host's clock: the per-minute run start limits and the access re-check of open subscriptions (default `SystemClock`). */
  clock?: Clock;
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
  /** {@inheritDoc AgentHost.audit} */
  readonly audit: HostAudit;
  /** {@inheritDoc AgentHost.memory} */
  readonly memory: MemoryService | undefined;
  /** {@inheritDoc AgentHost.learning} */
  readonly learning: LearningReviewsHandle | undefined;
  /** {@inheritDoc AgentHost.budgets} */
  readonly budgets: BudgetService;
  /** {@inheritDoc AgentHost.maintenance} */
  readonly maintenance: MaintenanceHandle;
  /** {@inheritDoc AgentHost.schedules} */
  readonly schedules: HostSchedules;
  readonly #deps: AgentHostDeps;

  /** @param deps - the services (normally resolved from the container) */
  constructor(deps: AgentHostDeps) {
    this.#deps = deps;
    // The services as the host hands them out: their storage calls are refused, with the fix in the
    // message, before start() and after stop(), whatever the store (the runtime uses them unguarded).
    const state = () => this.#state;
    this.capabilities = guardService(deps.capabilities, 'capabilities', state, ['invoke']);
    this.approvals = guardService(deps.approvals, 'approvals', state);
    this.grants = guardService(deps.grants, 'grants', state);
    this.plans = guardService(deps.plans, 'plans', state);
    this.policies = guardService(deps.policies, 'policies', state);
    this.automation = guardService(deps.automation, 'automation', state);
    this.ledger = guardService(deps.ledger, 'ledger', state);
    this.memory = deps.memory;
    this.learning = deps.learning?.reviews;
    this.budgets = guardService(deps.budgets, 'budgets', state);
    this.maintenance = guardService<MaintenanceHandle>(deps.maintenance, 'maintenance', state, ['prune', 'usage']);
    this.schedules = guardService<HostSchedules>(deps.schedules, 'schedules', state);
    const list: HostAudit = ((filter) => this.#refused('audit') ?? deps.storage.audit.list(filter)) as HostAudit;
    this.audit = hostAudit(
      list,
      (after, limit) => this.#refused('audit') ?? deps.storage.audit.list({ after, limit }),
      deps.options.auditCheckpointKey,
    );
    const limits = deps.options.limits ?? DEFAULT_HOST_LIMITS;
    this.#clock = deps.clock ?? new SystemClock();
    this.#streams = new StreamSlots(limits);
    this.#runStarts = new RunStartLimiter(limits, this.#clock);
  }

  readonly #clock: Clock;
  /** Open event subscriptions on actors' behalf, per actor and in total. */
  readonly #streams: StreamSlots;
  /** Runs started per minute, per actor and in total. */
  readonly #runStarts: RunStartLimiter;
  /** Where `identityChanged` reaches the open subscriptions. */
  readonly #watch = new AccessWatch();

  #state: HostLifecycleState = 'created';

  /** Rejects a call of `operation` unless the host is started. */
  #refused(operation: string): Promise<never> | undefined {
    return this.#state === 'started' ? undefined : Promise.reject(new HostLifecycleError(this.#state, operation));
  }

  /**
   * A dry run (`dryRun: true`): validates, authorizes and computes the impact, never runs the handler, claims the
   * ledger, consumes an approval or charges a grant (docs/approvals.md#dry-runs). Audited as `capability.dry_run`.
   * @returns `{ status: 'dry_run', impact, verdict }`
   * @throws as `invoke`, for an unknown capability or invalid context or input
   * @example
   * ```ts
   * const preview = await host.invoke('download.submit', { planId }, { actor: 'user:dad', dryRun: true });
   * console.log(preview.impact.summary, preview.verdict.allowed); // 'downloads 58.2 GB to /media/movies; …' false
   * ```
   */
  invoke(
    idOrCapability: string | Capability<any, any>,
    input: unknown,
    context: InvocationContext & { dryRun: true },
  ): Promise<InvocationDryRun>;
  /**
   * Invokes a capability (given as the object made by `defineCapability`, so input and output are typed)
   * through the one invocation path; the same as invoking it by id (results and errors as there).
   */
  invoke<I extends TSchema, O extends TSchema>(
    capability: Capability<I, O>,
    input: NoInfer<Static<I>>,
    context: InvocationContext,
  ): Promise<InvocationResult<Static<O>>>;
  /**
   * Invokes a capability by id through the one invocation path: validate, authorize, claim, run, settle, audit.
   * Denials, handler failures, pending and unknown outcomes are returned as results.
   * @throws `CAPABILITY_NOT_FOUND`, `ACTOR_INVALID`, `INPUT_INVALID` (with every path), `INPUT_TOO_LARGE`,
   *   `LEDGER_CALL_ID_CONFLICT`, `LEDGER_IN_PROGRESS`, `LEDGER_STALE_EXECUTOR`, storage errors — none of them after a partial write
   */
  invoke(id: string, input: unknown, context: InvocationContext): Promise<InvocationResult>;
  invoke(
    idOrCapability: string | Capability,
    input: unknown,
    context: InvocationContext,
  ): Promise<InvocationResult | InvocationDryRun> {
    const refused = this.#refused('invoke');
    if (refused) return refused;
    const id = typeof idOrCapability === 'string' ? idOrCapability : idOrCapability?.id;
    return context?.dryRun === true
      ? this.#deps.capabilities.dryRun(id, input, context)
      : this.#deps.capabilities.invoke(id, input, context);
  }

  /** {@inheritDoc AgentHost.startRun} */
  startRun(input: StartRunInput): Promise<RunRecord> {
    const refused = this.#refused('startRun');
    if (refused) return refused;
    if (!this.#deps.modelConfigured) return Promise.reject(new ModelNotConfiguredError());
    try {
      parseActor(input?.actor);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#runStarts.reserve(input.actor, () => this.#deps.runs.startRun(input));
  }

  /** {@inheritDoc AgentHost.getRun} */
  getRun(id: string, options?: { afterSeq?: number; limit?: number; actor?: string }): Promise<RunDetail> {
    return this.#refused('getRun') ?? this.#deps.runs.getRun(id, options);
  }

  /** {@inheritDoc AgentHost.replayRun} */
  replayRun(runId: string, options?: { actor?: string; timeoutMs?: number }): Promise<RunReplayReport> {
    return this.#refused('replayRun') ?? this.#replayRun(runId, options);
  }

  async #replayRun(
    runId: string,
    options: { actor?: string; timeoutMs?: number } | undefined,
  ): Promise<RunReplayReport> {
    checkOptionsObject('options', options);
    const timeoutMs = checkInteger('timeoutMs', options?.timeoutMs, 1, 600_000);
    // The same rule as reading it: a run the actor may not see is RUN_NOT_FOUND.
    await this.#deps.runs.getRun(runId, {
      limit: 1,
      ...(options?.actor !== undefined ? { actor: options.actor } : {}),
    });
    return this.#deps.replay(runId, timeoutMs !== undefined ? { timeoutMs } : {});
  }

  /** {@inheritDoc AgentHost.listRuns} */
  listRuns(filter?: { status?: RunStatus; sessionId?: string; limit?: number; actor?: string }): Promise<RunRecord[]> {
    return this.#refused('listRuns') ?? this.#deps.runs.listRuns(filter);
  }

  /** {@inheritDoc AgentHost.(appendToInbox:1)} */
  appendToInbox(runId: string, text: string, options: ActorOptions): Promise<InboxRecord>;
  /** @deprecated Pass `{ actor }`: `appendToInbox(runId, text, { actor })`. */
  appendToInbox(runId: string, text: string, actor: string): Promise<InboxRecord>;
  appendToInbox(runId: string, text: string, options: ActorOptions | string): Promise<InboxRecord> {
    const actor = this.#actorOf('appendToInbox', options);
    return this.#refused('appendToInbox') ?? this.#deps.runs.appendToInbox(runId, text, actor as string);
  }

  /** Methods whose deprecated positional actor form was already warned about by this host. */
  readonly #warned = new Set<string>();

  /**
   * The actor of an options object, or of the deprecated positional string (one warning per method and host). A
   * value of neither shape is passed on as is, so the service refuses it (`ACTOR_INVALID`).
   */
  #actorOf(method: string, options: { actor?: unknown } | string | undefined): unknown {
    if (typeof options !== 'string') return options?.actor;
    if (!this.#warned.has(method)) {
      this.#warned.add(method);
      this.#deps.logger.warn(
        `host.${method} with a positional actor is deprecated: pass { actor } (the one convention of the host API)`,
        { method },
      );
    }
    return options;
  }

  /** {@inheritDoc AgentHost.abort} */
  abort(runId: string, reason?: string, options?: { actor?: string }): Promise<RunRecord> {
    return this.#refused('abort') ?? this.#deps.runs.abort(runId, reason, options);
  }

  /** {@inheritDoc AgentHost.roleOf} */
  roleOf(actor: string): Promise<ActorRole> {
    try {
      return resolveRole(this.#deps.identity, actor);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** {@inheritDoc AgentHost.(events:1)} */
  events(options: RunEventSubscription & { actor: string }): AsyncIterable<SubscriberEvent>;
  /** {@inheritDoc AgentHost.(events:1)} */
  events(options?: RunEventSubscription & { actor?: undefined }): AsyncIterable<RunEvent>;
  /** {@inheritDoc AgentHost.(events:1)} */
  events(options?: RunEventSubscription): AsyncIterable<SubscriberEvent>;
  events(options?: RunEventSubscription): AsyncIterable<SubscriberEvent> {
    checkStarted(this.#state, 'events');
    checkInteger('after', options?.after, 0, Number.MAX_SAFE_INTEGER);
    checkInteger('pollMs', options?.pollMs, 1, 3_600_000);
    if (options?.runId !== undefined && typeof options.runId !== 'string')
      throw new RunRequestError('runId must be a string');
    if (options?.follow !== undefined && typeof options.follow !== 'boolean')
      throw new RunRequestError('follow must be a boolean');
    const stop = this.#stop.signal;
    // Every subscription ends when the host stops: it delivers what it holds, then fails HOST_STOPPED (a run's ends
    // once its terminal status was delivered); one its caller aborted ends quietly.
    if (options?.actor === undefined)
      return untilStopped(
        () => subscribeUntilStopped(this.#deps.bus, options ?? {}, stop),
        stop,
        options?.signal,
        'events',
      );
    parseActor(options.actor);
    if (options.reauthenticate !== undefined && typeof options.reauthenticate !== 'function')
      throw new RunRequestError('reauthenticate must be a function');
    // The slot is taken now (a refusal is thrown here, before anything is sent) and given back once:
    // when the iteration ends, or when the signal aborts or the host stops (also for a subscription never iterated).
    const release = this.#streams.acquire(options.actor);
    // Listens to identityChanged from now on: a sign-out before the first iteration is not missed.
    const ticket = this.#watch.open(options.actor);
    const signal = options.signal;
    const free = () => {
      signal?.removeEventListener('abort', free);
      stop.removeEventListener('abort', free);
      ticket.close();
      release();
    };
    if (signal?.aborted) free();
    else {
      signal?.addEventListener('abort', free);
      stop.addEventListener('abort', free);
    }
    // Given back also when the consumer returns before the first `next()` (the generator's finally never runs).
    const actor = options.actor;
    return releasingIterable(
      untilStopped(() => this.#visibleEvents(actor, options, ticket, free, stop), stop, signal, 'events'),
      free,
    );
  }

  /** {@inheritDoc AgentHost.identityChanged} */
  identityChanged(actor?: string, change?: IdentityChange): number {
    if (actor !== undefined) parseActor(actor);
    return this.#watch.changed(actor, { signedOut: change?.signedOut === true });
  }

  /**
   * The events `actor` may see: a run's after an access check, else those of the runs they own (every one
   * for an administrator); access re-checked while open (see `events`). `free` gives the stream slot back; `stop` is
   * the host's stop signal (the subscription ends at it, see `subscribeUntilStopped`).
   */
  async *#visibleEvents(
    actor: string,
    options: RunEventSubscription,
    ticket: AccessTicket,
    free: () => void,
    stop: AbortSignal,
  ): AsyncGenerator<SubscriberEvent> {
    try {
      const { actor: _actor, reauthenticate, ...subscription } = options;
      const { storage, identity, bus } = this.#deps;
      const runId = subscription.runId;
      const isAdmin = async () => isHumanActor(actor) && (await resolveRole(identity, actor)) === 'admin';
      // A run's stream, or a schedule's (docs/schedules.md): its owner and administrators read it.
      const runVisible = (id: string) => mayReadStream(storage, identity, id, actor);
      let view: SubscriptionView;
      if (runId !== undefined) {
        if (!(await runVisible(runId))) throw new RunNotFoundError(runId);
        view = 'run';
      } else view = (await isAdmin()) ? 'all' : 'own';
      const owned = new LRUCache<string, boolean>({ max: 10_000 });
      const visible = async (event: RunEvent) => {
        if (view !== 'own') return true;
        let mine = owned.get(event.runId);
        if (mine === undefined) {
          mine = (await streamOwner(storage, event.runId)) === actor;
          owned.set(event.runId, mine);
        }
        return mine;
      };
      const check = async (signedOut: boolean) => {
        const stillSignedIn = async () => {
          try {
            return reauthenticate === undefined || (await reauthenticate()) === true;
          } catch {
            return false;
          }
        };
        const authenticated = !signedOut && (await stillSignedIn());
        if (!authenticated) return accessLostReason(view, { authenticated, admin: false });
        return accessLostReason(view, {
          authenticated,
          admin: view === 'all' && (await isAdmin()),
          ...(view === 'run' ? { runVisible: await runVisible(runId!) } : {}),
        });
      };
      const recheckMs = this.#deps.options.accessRecheckMs ?? DEFAULT_ACCESS_RECHECK_MS;
      yield* guardedEvents({
        actor,
        source: (signal) => subscribeUntilStopped(bus, { ...subscription, signal }, stop),
        visible,
        check,
        ticket,
        clock: this.#clock,
        recheckMs,
        tickMs: Math.min(recheckMs, subscription.pollMs ?? 1000),
        after: subscription.after ?? 0,
        signal: subscription.signal,
      });
    } finally {
      free();
    }
  }

  /** {@inheritDoc AgentHost.listEvents} */
  async listEvents(options?: { after?: number; limit?: number }): Promise<RunEvent[]> {
    await this.#refused('listEvents');
    const after = checkInteger('after', options?.after, 0, Number.MAX_SAFE_INTEGER) ?? 0;
    const limit = checkInteger('limit', options?.limit, 1, 1000) ?? 100;
    return (await this.#deps.storage.events.listAfter(after, limit)).map(toRunEvent);
  }

  readonly #stop = new AbortController();
  /** {@inheritDoc AgentHost.stopSignal} */
  get stopSignal(): AbortSignal {
    return this.#stop.signal;
  }

  /** {@inheritDoc AgentHost.decisions} */
  decisions(filter?: DecisionFilter): Promise<DecisionRecord[]> {
    return this.#refused('decisions') ?? this.#deps.decisions.list(filter);
  }

  /** {@inheritDoc AgentHost.getDecision} */
  getDecision(id: string): Promise<DecisionRecord> {
    return this.#refused('getDecision') ?? this.#deps.decisions.get(id);
  }

  /** {@inheritDoc AgentHost.raiseDecision} */
  raiseDecision(input: RaiseDecisionInput): Promise<DecisionRecord> {
    return this.#refused('raiseDecision') ?? this.#deps.decisions.raise(input);
  }

  /** {@inheritDoc AgentHost.(chooseDecisionOption:1)} */
  chooseDecisionOption(
    id: string,
    optionId: string,
    options: ActorOptions & { note?: string },
  ): Promise<DecisionChoice>;
  /** @deprecated Pass `{ actor, note }`: `chooseDecisionOption(id, optionId, { actor, note })`. */
  chooseDecisionOption(id: string, optionId: string, actor: string, note?: string): Promise<DecisionChoice>;
  chooseDecisionOption(
    id: string,
    optionId: string,
    options: (ActorOptions & { note?: string }) | string,
    note?: string,
  ): Promise<DecisionChoice> {
    const actor = this.#actorOf('chooseDecisionOption', options);
    const words = typeof options === 'string' ? note : options?.note;
    return this.#refused('chooseDecisionOption') ?? this.#deps.decisions.choose(id, optionId, actor as string, words);
  }

  /** {@inheritDoc AgentHost.(dismissDecision:1)} */
  dismissDecision(id: string, options: ActorOptions & { note?: string }): Promise<DecisionRecord>;
  /** @deprecated Pass `{ actor, note }`: `dismissDecision(id, { actor, note })`. */
  dismissDecision(id: string, actor: string, note?: string): Promise<DecisionRecord>;
  dismissDecision(
    id: string,
    options: (ActorOptions & { note?: string }) | string,
    note?: string,
  ): Promise<DecisionRecord> {
    const actor = this.#actorOf('dismissDecision', options);
    const words = typeof options === 'string' ? note : options?.note;
    return this.#refused('dismissDecision') ?? this.#deps.decisions.dismiss(id, actor as string, words);
  }

  /** {@inheritDoc AgentHost.resolveDecision} */
  resolveDecision(trigger: DecisionTrigger): Promise<DecisionRecord> {
    return this.#refused('resolveDecision') ?? this.#deps.decisions.resolveDecision(trigger);
  }

  /** {@inheritDoc AgentHost.undo} */
  undo(target: UndoTarget, options: UndoOptions): Promise<UndoResult> {
    return this.#refused('undo') ?? this.#deps.undo.undo(target, options);
  }

  /** {@inheritDoc AgentHost.listForkPoints} */
  listForkPoints(runId: string, options?: ListForkPointsOptions): Promise<ForkPoint[]> {
    return this.#refused('listForkPoints') ?? this.#deps.forks.listForkPoints(runId, options);
  }

  /** {@inheritDoc AgentHost.forkRun} */
  forkRun(runId: string, options: ForkRunOptions): Promise<RunRecord> {
    const refused = this.#refused('forkRun');
    if (refused) return refused;
    if (!this.#deps.modelConfigured) return Promise.reject(new ModelNotConfiguredError());
    try {
      // Options that are not an object are RUN_REQUEST_INVALID (an actor passed positionally), before the actor check.
      if (typeof options !== 'object' || options === null || Array.isArray(options))
        throw new RunRequestError('fork options must be an object with atSeq and actor');
      parseActor(options.actor);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#runStarts.reserve(options.actor, () => this.#deps.forks.forkRun(runId, options));
  }

  /** {@inheritDoc AgentHost.undoLastTurn} */
  undoLastTurn(runId: string, actor: string): Promise<UndoTurnResult> {
    const refused = this.#refused('undoLastTurn');
    if (refused) return refused;
    if (!this.#deps.modelConfigured) return Promise.reject(new ModelNotConfiguredError());
    try {
      parseActor(actor);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#runStarts.reserve(actor, () => this.#deps.forks.undoLastTurn(runId, actor));
  }

  /** {@inheritDoc AgentHost.start} */
  async start(options: { workers?: boolean } = {}): Promise<StartReport> {
    if (this.#state === 'stopped') throw new HostLifecycleError('stopped', 'start');
    await this.#deps.checkModels?.();
    await this.#deps.storage.migrate();
    const recovered = await this.#deps.ledger.recover();
    if (recovered.length > 0)
      this.#deps.logger.warn('ledger entries interrupted by a crash are now unknown', { count: recovered.length });
    const cleaned = await this.#deps.ledger.cleanup(this.#deps.options.ledgerRetentionMs);
    if (options.workers !== false) {
      this.#offDecided ??= this.#wakeOnDecision();
      this.#deps.workers.start();
      this.#deps.scheduler?.start();
      this.#deps.scheduleRunner?.start();
      // Investigations whose run ended while no process was there to conclude them.
      await this.#deps.decisions
        .sweep()
        .catch((error: Error) =>
          this.#deps.logger.warn('could not conclude investigations', { message: error.message }),
        );
    }
    this.#warnUndeclared();
    this.#state = 'started';
    // Channels take input with or without workers here (runs are driven by whichever process leases them).
    await this.#startChannels();
    return { recovered, cleaned };
  }

  /** {@inheritDoc AgentHost.stop} */
  async stop(options?: StopOptions): Promise<void> {
    const drainMs = resolveDrainMs(options);
    // A second call joins the stop under way (a smaller drainMs cuts its drain short).
    if (this.#stopped) {
      void this.#deps.workers.stop(drainMs);
      return this.#stopped;
    }
    this.#state = 'stopped';
    this.#stop.abort();
    this.#offDecided?.();
    this.#offDecided = undefined;
    this.#stopped = (async () => {
      // Channels take no input any more (an input in flight finishes first).
      await this.#stopChannels();
      // No tick is fired once the host stops (a poll under way commits or rolls back first).
      const ticking = this.#deps.scheduleRunner?.stop();
      const summary = await this.#deps.workers.stop(drainMs);
      await ticking;
      if (summary.drained + summary.aborted > 0) this.#deps.logger.info('agent host drained', { ...summary, drainMs });
      try {
        options?.onDrained?.(summary);
      } catch {
        // the caller's callback: its failure does not keep the storage open
      }
      if (this.#deps.learning) await this.#deps.learning.reviews.stop(this.#deps.learning.cancelWaitMs);
      // A prune under way (scheduled or called) ends at its next batch before the store closes.
      await this.#deps.scheduler?.stop();
      await this.#deps.maintenance.stop();
      // Replies the drained runs wrote meanwhile stay queued for the next start (the outbox keeps them).
      await this.#stopDispatcher();
      this.#deps.onStop?.();
      await this.#deps.storage.close();
    })();
    return this.#stopped;
  }

  #stopped: Promise<void> | undefined;

  /** The channel router, once `start()` started the ports. */
  #router: ChannelRouter | undefined;
  /** The ports `start()` started. */
  readonly #startedPorts: ChannelPort[] = [];

  /**
   * Loads the channel secret and starts every port with the router as its `onInput` (a failure of one input is
   * logged; the port goes on). A port that fails to start fails `start()`.
   */
  async #startChannels(): Promise<void> {
    const channels = this.#deps.channels;
    if (!channels) return;
    const { storage, runs, logger } = this.#deps;
    await channels.secret.load(storage, channels.options.secret);
    const router = new ChannelRouter({
      storage,
      identity: this.#deps.identity,
      approvals: this.#deps.approvals,
      capabilities: this.#deps.capabilities,
      clock: this.#clock,
      ids: channels.ids,
      logger,
      ports: channels.options.ports,
      secret: () => channels.secret.get(),
      inboxLimit: channels.options.inboxLimit,
      startRun: (input, runtimeState, once) => {
        if (!this.#deps.modelConfigured) return Promise.reject(new ModelNotConfiguredError());
        return this.#runStarts.reserve(input.actor, () => runs.startRun(input, undefined, { runtimeState, once }));
      },
      appendToInbox: (runId, text, actor, id, once) => runs.appendToInbox(runId, text, actor, { id, once }),
      notify: async (notice) => {
        await storage.transaction(async (s) => {
          await s.outbox.insert({
            id: notice.key,
            idempotencyKey: notice.key,
            channelId: notice.channelId,
            chatId: notice.chatId,
            runId: null,
            kind: 'notice',
            payload: { text: notice.text, ...(notice.replyTo !== null ? { replyTo: notice.replyTo } : {}) },
            createdAt: this.#clock.now(),
          });
        });
        channels.dispatcher.wake();
      },
    });
    this.#router = router;
    channels.dispatcher.start();
    for (const port of channels.options.ports.values()) {
      await port.start(async (input) => {
        try {
          await router.handle(input);
        } catch (error) {
          logger.error('a channel input could not be handled', {
            channelId: input.channelId,
            message: error instanceof Error ? error.message : String(error),
          });
        }
      });
      this.#startedPorts.push(port);
    }
  }

  /** Stops the ports `start()` started (a failure is logged). */
  async #stopChannels(): Promise<void> {
    for (const port of this.#startedPorts.splice(0))
      await port
        .stop()
        .catch((error: Error) =>
          this.#deps.logger.warn('a channel port failed to stop', { channelId: port.id, message: error.message }),
        );
  }

  /** Stops the outbox dispatcher (a send in flight is aborted and stays queued), before the storage closes. */
  async #stopDispatcher(): Promise<void> {
    if (this.#router) await this.#deps.channels?.dispatcher.stop();
  }

  /**
   * The channel router of this host, once started with channels (tests and hosts that feed inputs themselves).
   * @internal
   */
  get channelRouter(): ChannelRouter | undefined {
    return this.#router;
  }

  #warnedUndeclared = false;

  /**
   * Once per host: the side-effecting capabilities whose runs' arguments are not checked (they declare nothing);
   * then each such capability registered later, as it is registered.
   */
  #warnUndeclared(): void {
    if (this.#warnedUndeclared) return;
    this.#warnedUndeclared = true;
    const ids = undeclaredEffects(this.#deps.capabilities.list());
    const warning = undeclaredWarning(ids);
    if (warning) this.#deps.logger.warn(warning, { capabilities: ids });
    this.#deps.capabilities.events.on('registered', (descriptor) => {
      const late = undeclaredEffects([descriptor]);
      const lateWarning = undeclaredWarning(late);
      if (lateWarning) this.#deps.logger.warn(lateWarning, { capabilities: late });
    });
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
        .catch((error: Error) =>
          this.#deps.logger.warn('could not wake a run after an approval decision', { runId, message: error.message }),
        );
    };
    this.#deps.approvals.events.on('decided', listener);
    return () => this.#deps.approvals.events.off('decided', listener);
  }
}
