// The run driver's settings, dependencies and lease (re-exported by `run-driver.ts`).
import type { ModelRoute } from '../../models/routing/model-route';
import type { ApprovalService } from '../../authorization/approval-service';
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import type { RunEventBus } from '../events/run-event-bus';
import type { InvocationLedger } from '../../ledger/invocation-ledger';
import type { MemoryService } from '../../memory/memory-service';
import type { TokenCounter } from '../../models/token-counter';
import type { ModelProvider, ThinkingLevel } from '../../models/types';
import type { Clock } from '../../ports/clock';
import type { IdGenerator } from '../../ports/id-generator';
import type { Logger } from '../../ports/logger';
import type { RunRecord } from '../../core/run-records';
import type { SkillStore } from '../../ports/skill-store';
import type { StorageAdapter } from '../../ports/storage-adapter';
import type { ToolResultStore } from '../context/tool-result-store';
import type { GoalFacts } from '../goal-facts';
import type { LoopGuardConfig } from '../guardrails/loop-guard';
import type { RunMiddleware } from '../middleware/run-middleware';
import type { DailyBudgets, RunBudgets } from '../run-budgets';
import type { TracingOptions } from '../tracing/tracing-options';
import type { IdentityResolver } from '../../ports/identity';
import type { HistoryStore } from '../../history/history-store';
import type { CodeExecution } from '../code/code-execution';
import type { ImageDelivery } from '../images/image-delivery';
import type { SpendLedger } from '../budgets/spend-ledger';
import type { ResolvedLearningOptions } from '../learning/learning-options';
import type { LearningReviews } from '../learning/learning-reviews';
import type { StepReplies } from './step-writes';

/** Settings of the run driver. @public */
export interface RunDriverSettings {
  /** Model id sent to the provider. */
  model: string;
  /** Max output tokens per model call (default: provider default). */
  maxTokens: number | undefined;
  /** Reasoning effort of every model call (default: the provider's, `off`). */
  thinking?: ThinkingLevel | undefined;
  /** Sampling temperature of every model call (default: the provider's). */
  temperature?: number | undefined;
  /** Host system prompt layers, after the runtime's own. */
  systemPrompt: string | undefined;
  /** Daily limits. */
  daily: DailyBudgets;
  /** Seconds between goal-settled polls. */
  goalPollSec: number;
  /** Deadline of a capability's `impact` when an approval is asked for, in ms (the host's `impactTimeoutMs`). */
  impactTimeoutMs?: number;
  /** Longest wait for facts to settle, in hours. */
  goalWaitHours: number;
  /** Largest number of queued steering messages applied before one model call (the inbox bound, default 16). */
  inboxCapacity: number;
  /** Loop guard thresholds (defaults documented on each field). */
  loopGuard: Partial<LoopGuardConfig> | undefined;
  /** Capabilities offered on the first model call, ranked against the goal; 0 offers all. */
  maxTools: number;
  /** The model's context window in tokens. */
  contextWindowTokens: number;
  /** Compaction threshold as a share of the window; 0 turns compaction off. */
  compactionThreshold: number;
  /** Largest tool-call argument text accepted from the model, in bytes (the invocation path's input limit, default 1 MiB). */
  maxInputBytes: number;
  /** Wait before the model call that follows a turn whose every call was refused, in ms; doubles per such turn in a row, at most 30 000 (default 1000). */
  refusedTurnPauseMs: number;
  /**
   * How long a step's writes may wait to commit with the steps after it, in ms, when what runs next changes nothing
   * outside the run (a model call, a read, a `replay: 'safe'` call); 0 commits every step before the next begins
   * (default `DEFAULT_COMMIT_WINDOW_MS`, 50). See docs/architecture.md#the-commit-window.
   */
  commitWindowMs?: number;
  /** Longest verification of an automatic recovery run, in seconds (default 600). */
  recoverVerifySec?: number;
}

/** Everything the driver needs. @public */
export interface RunDriverDeps {
  /** Storage. */
  storage: StorageAdapter;
  /**
   * Who is an administrator: a run is offered an admin-only capability only when its owner is one (the
   * invocation path refuses the call anyway). Default: every `user:*` actor (`DEFAULT_IDENTITY_RESOLVER`).
   */
  identity?: IdentityResolver;
  /** The one invocation path. */
  capabilities: CapabilityRegistry;
  /** Ledger (crash reconciliation of a run). */
  ledger: InvocationLedger;
  /** Approvals (requested when a plan execution is denied). */
  approvals: ApprovalService;
  /** The model. */
  provider: ModelProvider;
  /**
   * The fallback chain (`model.fallbacks`), when the host has one: entry 0 is `provider` with the run settings'
   * model; without one, every turn calls `provider`.
   */
  route?: ModelRoute;
  /** Business facts for the goal report. */
  goalFacts: GoalFacts;
  /** Events. */
  bus: RunEventBus;
  /** Time. */
  clock: Clock;
  /** Ids. */
  ids: IdGenerator;
  /** Logger. */
  logger: Logger;
  /** Large tool results kept for paging with `read_tool_result`. */
  results: ToolResultStore;
  /** Token counting for compaction and the tool budget. */
  counter: TokenCounter;
  /** Creates a read-only subagent run (queued) for `delegate`; the driver drives it inline. */
  startSubagent: (
    parent: RunRecord,
    goal: string,
    capabilityIds: string[],
    budgets: RunBudgets,
    leaseOwner: string,
  ) => Promise<RunRecord>;
  /** Settings. */
  settings: RunDriverSettings;
  /**
   * Host middleware, after the runtime's own (compaction, tool discovery, repeated results, result
   * spill, loop guard); see {@link RunMiddleware}. Default none.
   */
  middleware?: readonly RunMiddleware[];
  /** The history archive: captures top-level user runs and answers `session_search` (default none). */
  history?: HistoryStore;
  /** OpenTelemetry spans of runs, model calls, tool calls and approval waits (default: the global provider, no content). */
  tracing?: TracingOptions;
  /** Personal skills: offers `skills_list`, `skill_view`, `skill_manage` and answers `/skills` commands (default none: off). */
  skills?: SkillStore;
  /**
   * Derives what a channel run says in each step (outbox rows written with the step; `runtime/channels`). Default
   * none: no channels.
   */
  replies?: StepReplies;
  /**
   * Called after a step commit that inserted channel outbox rows (wakes the outbox dispatcher, which polls
   * otherwise); a throw is ignored. Default none.
   */
  onOutboxWritten?: () => void;
  /** Called after a run's processing ended (terminal or waiting for a person), with the run as stored; a throw is logged. */
  onRunEnd?: (run: RunRecord) => Promise<void>;
  /**
   * Stable memory: the snapshot in each top-level run's system prompt, the `memory` and
   * `search_memory` tools and the `/memory` chat commands (default none: memory off).
   */
  memory?: MemoryService;
  /** Read-only code orchestration (`execute_code`), when the host turned it on (`runs.code`). */
  code?: CodeExecution;
  /** Background learning reviews (the `learning` option), when on: their settings and the reviews running in this process. */
  learning?: { settings: ResolvedLearningOptions; reviews: LearningReviews };
  /** Images in tool results: held in memory, sent to models that accept them (`runs.images`); none: images become notes. */
  images?: ImageDelivery;
  /**
   * The spending budgets per person and for the household (docs/budgets.md): each model call is reserved before
   * it is sent and settled after; each top-level run's start is counted. None: no spending budgets.
   */
  spending?: SpendLedger;
}

/** A lease the driver works under; `signal` aborts when the run is aborted, the lease is lost or the host stops. @public */
export interface RunLease {
  /** Worker id that holds the lease. */
  owner: string;
  /** Aborted on run abort, lost lease, or when a host stop's drain time (`drainMs`) ran out: aborts the step in flight. */
  signal: AbortSignal;
  /**
   * Aborted when the host begins to stop (`host.stop({ drainMs })`): the drive ends at its next step boundary (the
   * step in flight finishes and commits; a wait between steps ends at once), leaving the run for another worker.
   * Absent: never drained.
   */
  drain?: AbortSignal;
  /** Why the signal aborted. */
  reason(): 'abort' | 'lost' | 'stop' | undefined;
  /**
   * Renews the lease of another run (a subagent driven inline) together with this one, until the
   * returned function is called.
   * @param runId - the run leased to the same owner
   * @returns stops renewing it
   */
  adopt(runId: string): () => void;
}
