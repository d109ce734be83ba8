import type { ChannelsOptions, ResolvedChannelsOptions } from './channels/channels-options';
import type { IntentOptions } from '../capabilities/intent-join';
import type { ModelProviderConfig } from '../models/factory';
import type { FallbackModel } from '../models/routing/fallback-options';
import type { DEFAULT_IDENTITY_RESOLVER, IdentityResolver } from '../ports/identity';
import type { ModelProvider, ThinkingLevel } from '../models/types';
import type { LearningOptions, ResolvedLearningOptions } from './learning/learning-options';
import type { GoalFacts } from './goal-facts';
import type { DailyBudgets, RunBudgets } from './run-budgets';
import type { LoopGuardConfig } from './guardrails/loop-guard';
import type { ToolResultStoreOptions } from './context/tool-result-store';
import type { RunMiddleware } from './middleware/run-middleware';
import type { SkillStore } from '../ports/skill-store';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Logger } from '../ports/logger';
import type { AgentContainer } from '../ports/agent-container';
import type { StorageAdapter } from '../ports/storage-adapter';
import type { TracingOptions } from './tracing/tracing-options';
import type { HistoryStore } from '../history/history-store';
import type { DecisionOptions, ResolvedDecisionOptions } from './decisions/decision-settings';
import type { MemoryOptions } from '../memory/memory-options';
import type { CodeExecutionOptions, ResolvedCodeExecutionOptions } from './code/code-options';
import type { ToolImageOptions } from './images/image-delivery';
import type { SpendingBudgets, SpendingOptions } from './budgets/spending-settings';
import type { HostLimitOptions, HostLimits } from './limits/host-limits';
import type { RedactOptions } from '../core/secret-redactor';
import type { ResolvedRetention, RetentionOptions } from './maintenance/retention-options';
import type { AuditOptions } from './audit-trail';
import type { MaintenanceOptions, ResolvedMaintenanceOptions } from './maintenance/maintenance-options';
import type { ResolvedScheduleOptions, ScheduleOptions } from './schedules/schedule-options';

/**
 * Options of `createAgentContainer` / `createAgentHost`. Every field is optional; defaults suit a
 * test or a small embedded host. A name the host does not know, here or in a group it reads (`model`,
 * `runs` with its `budgets`, `daily` and `loopGuard`, `learning`, `memory`, `history`, `skills`, `limits`,
 * `tracing`, `decisions`), is refused with `OPTIONS_INVALID` naming the option likely meant.
 * @public
 */
export interface AgentOptions {
  /**
   * Where runs, events, the ledger, approvals, grants and audit rows are kept. A `MemoryStorage` (from
   * `@media-agent/sdk/storage`) loses everything when the process ends; use `SqliteStorage` from
   * `@media-agent/sdk/sqlite` to persist.
   * @defaultValue a new `MemoryStorage`
   */
  storage?: StorageAdapter;
  /**
   * Time source for expiries, leases, budgets and event timestamps (tests pass a `ManualClock`).
   * @defaultValue `SystemClock`
   */
  clock?: Clock;
  /**
   * Source of run, plan, approval, grant and event ids.
   * @defaultValue `RandomIdGenerator` (random UUIDs)
   */
  ids?: IdGenerator;
  /**
   * Where the runtime logs (never secrets).
   * @defaultValue `ConsoleLogger` at level `warn`
   */
  logger?: Logger;
  /**
   * Largest accepted input JSON of one invocation, and of one plan payload, in UTF-8 bytes; larger ones fail
   * with `INPUT_TOO_LARGE` / `PLAN_TOO_LARGE` before any work.
   * @defaultValue 1 048 576 (1 MiB)
   */
  maxInputBytes?: number;
  /**
   * The default deadline of a capability handler, in ms, for capabilities that set no `timeoutMs` of their own
   * (`defineCapability({ timeoutMs })`). At the deadline the handler's `signal` aborts (reason a
   * `CapabilityTimeoutError`) and the invocation ends whether or not the handler stops: a `read`/`preview` (or
   * `replay: 'safe'`) call fails with `CAPABILITY_TIMEOUT`, any other side-effecting call is settled `unknown`
   * and goes to its verifier when called again, never re-run blindly. A positive finite number, else
   * `OPTIONS_INVALID`.
   * @defaultValue 120 000 (2 min, `DEFAULT_CAPABILITY_TIMEOUT_MS`)
   */
  capabilityTimeoutMs?: number;
  /**
   * Deadline of a capability's `impact` function, in milliseconds: past it the impact is "unknown"
   * (`IMPACT_TIMEOUT`) and the approval or dry run goes on without it. A positive finite number, else
   * `OPTIONS_INVALID`.
   * @defaultValue 3 000 (`DEFAULT_IMPACT_TIMEOUT_MS`)
   */
  impactTimeoutMs?: number;
  /**
   * Lifetime of a new approval, in milliseconds; an expired approval denies with `AUTH_APPROVAL_EXPIRED`.
   * @defaultValue 86 400 000 (24 h)
   */
  approvalTtlMs?: number;
  /**
   * Age in milliseconds after which settled ledger entries are deleted at `start()`; 0 turns cleanup off.
   * `running` and `unknown` entries are never deleted. It also sets the ledger's age limit of `retention.ledger`
   * when that is absent (setting both is refused with `OPTIONS_INVALID`).
   * @defaultValue 0 (keep everything)
   * @deprecated Use `retention: { ledger: { maxAgeDays } }`: `host.maintenance.prune()` (daily by default) applies
   *   it in batches, not only at `start()`.
   */
  ledgerRetentionMs?: number;
  /**
   * How long each record kind is kept; `host.maintenance.prune()` removes the rest, never a live item (a running or
   * waiting run, a pending approval, a `running`/`unknown` ledger entry, …). Per kind `{ maxAgeDays?, maxCount? }`
   * or a bare number of days; 0 keeps forever. Refused at `createAgentHost` with `OPTIONS_INVALID` naming the path
   * for a negative, NaN or non-number value or an unknown kind. History is not here: the history store's own
   * `retentionDays` applies (docs/operations.md#retention-and-prune).
   * @defaultValue `DEFAULT_RETENTION` (from `@media-agent/sdk/operations`): a finished run's events and messages 90 days (its row and report are
   *   kept), audit 730 days, approvals, plans, decisions and grant usage 180 days, the ledger kept
   * @example
   * ```ts
   * createAgentHost({ retention: { runs: { maxAgeDays: 30 }, audit: 365, decisions: { maxCount: 1000 } } });
   * ```
   */
  retention?: RetentionOptions;
  /**
   * Scheduled maintenance: when the host prunes by itself (docs/operations.md#retention-and-prune).
   * @defaultValue daily at 04:00 in the process's local time zone, on the host's clock
   */
  maintenance?: MaintenanceOptions;
  /**
   * Schedules (`host.schedules`, docs/schedules.md): whether this process fires due ticks, how often it looks, how
   * late a tick may fire as on time, the shortest interval a schedule may have and how many schedules one poll
   * handles. Refused at `createAgentHost` with `OPTIONS_INVALID` naming the path (`schedules.minIntervalMs`).
   * @defaultValue `DEFAULT_SCHEDULE_OPTIONS` (from `@media-agent/sdk/operations`): enabled, poll every 1 000 ms,
   *   60 000 ms grace, intervals of at least 60 000 ms, 20 schedules per poll
   * @example
   * ```ts
   * createAgentHost({ schedules: { minIntervalMs: 300_000 } }); // no schedule more often than every 5 minutes
   * ```
   */
  schedules?: ScheduleOptions;
  /**
   * One intent, one job (docs/intents.md): how long a `download` or `organize` intent is held on a media entity. A
   * run holds it until it ends (at most `holdMs` after its last call that took it); a caller outside runs holds it
   * for `directHoldMs`. Each a positive finite number of ms, else `OPTIONS_INVALID` naming the path.
   * @defaultValue `{ holdMs: 21_600_000, directHoldMs: 900_000 }` (6 h, 15 min)
   */
  intents?: IntentOptions;
  /**
   * The audit trail: `checkpointKey`, a secret retention signs its `audit.pruned` checkpoints with so that a database
   * editor cannot forge one (docs/audit.md#signed-checkpoints). Keep it off the database (an environment variable).
   * @example
   * ```ts
   * createAgentHost({ audit: { checkpointKey: process.env.MEDIA_AGENT_AUDIT_KEY } });
   * ```
   */
  audit?: AuditOptions;
  /**
   * The model: a provider instance or configuration, and the model id. No default: without a provider
   * (here or as a `Tokens.ModelProvider` registration) capabilities still run, but `startRun` fails
   * `MODEL_NOT_CONFIGURED`. For tests and demos: `{ provider: new ScriptedProvider() }` with
   * `ScriptedProvider` from `@media-agent/sdk/testing`.
   */
  model?: ModelOptions;
  /**
   * Business facts (library, downloads, organizes) the goal-settled and finalize steps read to verify a run.
   * Without them an execute run cannot be verified and ends `failed`; the host adapters provide them.
   * @defaultValue none
   */
  goalFacts?: GoalFacts;
  /**
   * Who is an administrator: deciding approvals, changing grants and automation settings, admin-only
   * capabilities and other users' runs need role `admin`. Key users by a stable id (`user:<id>`). An answer
   * that takes longer than `IDENTITY_TIMEOUT_MS` (5 000 ms) counts as `user`, with a warning logged.
   * @defaultValue {@link DEFAULT_IDENTITY_RESOLVER}: every `user:*` actor is an administrator
   */
  identity?: IdentityResolver;
  /** Run settings; every field optional, defaults documented per field. */
  runs?: RunOptions;
  /**
   * OpenTelemetry traces of runs (GenAI semantic conventions): the tracer, and whether message and tool
   * content is recorded (docs/architecture.md#traces).
   * @defaultValue the global tracer provider's tracer (a no-op until the host registers a provider), no content
   */
  tracing?: TracingOptions;
  /**
   * The conversation history archive and the `session_search` tool. With it, top-level runs started by
   * a `user:<id>` actor archive that user's input, the model's replies and full tool results (text
   * only, redacted) in `store`, and are offered `session_search` over that user's history; subagents,
   * API-key and system runs are neither archived nor offered the tool.
   * @defaultValue none (nothing archived, no `session_search`)
   * @example
   * ```ts
   * import { SqliteHistoryStore } from '@media-agent/sdk/sqlite';
   * createAgentHost({ history: { store: new SqliteHistoryStore({ directory: './data/history' }) } });
   * ```
   */
  history?: HistoryOptions;
  /**
   * Personal skills per user: offers `skills_list`, `skill_view` and `skill_manage` to runs that act for a
   * person, and answers `/skills restore|adopt|pin|unpin <name>` without a model call. Give a data
   * directory (each user's library is a folder under it) and optionally folders of public skills, or a
   * {@link SkillStore} of your own.
   * @defaultValue none: personal skills are off
   */
  skills?: SkillsOptions;
  /**
   * Decisions for people and their automatic investigation and recovery (docs/decisions.md).
   * @defaultValue no automatic investigation; 8 tool calls, 2 recovery attempts per root cause, 600 s verification
   */
  decisions?: DecisionOptions;
  /** Called after the defaults are registered: register replacements for any token here. */
  configure?: (container: AgentContainer) => void;
  /**
   * Stable memory: per-user `MEMORY.md` / `USER.md` and the global `MEMORY.md` under `dataDir`, shown in
   * each top-level run's system prompt, the `memory` and `search_memory` tools, the `/memory` chat
   * commands and `host.memory` (docs/memory.md).
   * @defaultValue none (memory off)
   */
  memory?: MemoryOptions;
  /**
   * Background learning reviews: after delivered replies of a person's conversations, a review of the
   * conversation maintains the person's skills (needs `skills`) and memory (needs `memory`); see
   * the README, section "Personal skills".
   * @defaultValue on whenever `skills` or `memory` is set (every 10th user turn a memory review, after
   *   10 tool-calling model responses a skill review)
   */
  learning?: LearningOptions;
  /**
   * Limits on what one actor, and the whole host, may open in this process: event streams at once and runs
   * started per minute (docs/http.md#limits). Over a limit a call is refused with `STREAM_LIMIT_REACHED` /
   * `RUN_START_RATE_LIMITED` (HTTP 429 with `Retry-After`).
   * @defaultValue `DEFAULT_HOST_LIMITS` (from `@media-agent/sdk/limits`): 8 streams per actor, 64 in total;
   *   10 run starts per minute per actor, 60 in total
   */
  limits?: HostLimitOptions;
  /**
   * How often an event subscription made on an actor's behalf (`host.events({ actor })`, the HTTP event
   * stream) re-checks that the actor is still signed in and may still see what it streams, in ms of the
   * host's clock (1 – 3 600 000). The host's `identityChanged` hook triggers a re-check at once as well.
   * @defaultValue 30 000 (`DEFAULT_ACCESS_RECHECK_MS` from `@media-agent/sdk/limits`)
   */
  accessRecheckMs?: number;
  /**
   * Secrets the host's one redaction step removes besides those the SDK finds itself (the model provider's
   * API key, secret-looking header values and base-URL credentials; a PostgreSQL store's password; the
   * documented secret shapes): everything the runtime stores or emits — run events, run records, the
   * conversation (stored and sent to the model), audit and ledger rows, history, traces, log lines —
   * passes through it (docs/secrets.md).
   * @defaultValue none
   */
  redact?: RedactOptions;
  /**
   * Message channels (Telegram, Slack …) the household talks to its agent through: the ports `host.start()` starts
   * with the channel router, how many steering messages a run takes, the secret that signs buttons
   * (docs/channels.md). Refused at `createAgentHost` with `OPTIONS_INVALID` naming the path.
   * @example
   * ```ts
   * createAgentHost({ model: { provider }, identity, channels: { ports: [telegramPort], inboxLimit: 8 } });
   * ```
   * @defaultValue none (no channels)
   */
  channels?: ChannelsOptions;
}

/**
 * The model of {@link AgentOptions.model}: every run's model calls, the summaries of compaction and
 * background reviews use these settings.
 * @public
 */
export interface ModelOptions {
  /** A provider instance or a configuration (`createModelProvider`). */
  provider?: ModelProvider | ModelProviderConfig;
  /**
   * Model id sent to the provider, e.g. `claude-sonnet-4-5`.
   * @defaultValue `'scripted'`
   */
  model?: string;
  /** Output limit per model call, in tokens. @defaultValue the provider's */
  maxTokens?: number;
  /**
   * Reasoning effort of every model call (`off`, `low`, `medium`, `high`; the provider maps it, e.g.
   * Anthropic's thinking budget).
   * @defaultValue `'off'`
   */
  thinking?: ThinkingLevel;
  /** Sampling temperature, 0 … 2. @defaultValue the provider's */
  temperature?: number;
  /**
   * A fallback chain: after the primary's own retries are used up on a transient failure (429, 529/5xx, 402 out
   * of credit, unreachable, timeout), the same turn is retried on the first of these entries, then the next
   * (never on a 400, 401/403 or a context overflow). Each entry is a full provider configuration or instance
   * with its own keys and model id. A run that moved stays on its entry (a `model_fallback` run event says who
   * failed, why and who answers) until `fallbackCooldownMs` has passed; an entry that failed is skipped by every
   * run of the host meanwhile. Refused at `createAgentHost` with `OPTIONS_INVALID` naming the entry
   * (`model.fallbacks[1].model`) when not an array, an entry is malformed or repeats the endpoint and model of
   * the primary or an earlier entry; `PROVIDER_UNKNOWN` when it names no provider. See
   * docs/providers.md#fallback-chains.
   * @defaultValue none
   */
  fallbacks?: readonly FallbackModel[];
  /**
   * How long an entry of the chain that failed is skipped, and a run that moved keeps its entry, in milliseconds
   * (measured on the host's clock). Non-negative.
   * @defaultValue 60 000
   */
  fallbackCooldownMs?: number;
  /**
   * The start-up model check of `host.start()` (`checkProviderModels`, docs/providers.md#local-models): the
   * provider's server must answer `GET {baseUrl}/models` as JSON within 5 s and list `model`, else `start()`
   * throws `PROVIDER_UNREACHABLE`, `MODEL_NOT_FOUND`, `PROVIDER_PROTOCOL` (an HTML page), `PROVIDER_TIMEOUT`
   * or `PROVIDER_AUTH`, naming the entry (`model` or `model.fallbacks[i]`; every entry of a fallback chain is checked
   * by the same rule). Unset: only providers of a local dialect (Ollama, llama.cpp, vLLM,
   * LM Studio) are checked, a cloud provider gets no request at start; `true`: every provider with a model
   * list (OpenAI-compatible, Anthropic); `false`: none.
   * @defaultValue local dialects only
   */
  checkOnStart?: boolean;
}

/** The history archive of {@link AgentOptions.history}. @public */
export interface HistoryOptions {
  /** Where history is archived and searched, e.g. `SqliteHistoryStore` from `@media-agent/sdk/sqlite`. */
  store: HistoryStore;
}
/**
 * Where personal skills live: `dataDir` for the default file store (`<dataDir>/users/<key>/skills/`) with
 * optional read-only `publicDir` folders listed first, or a custom `store`.
 * @public
 */
export type SkillsOptions = { dataDir: string; publicDir?: string | readonly string[] } | { store: SkillStore };

/** Run settings. @public */
export interface RunOptions {
  /**
   * Runs driven at once by this process.
   * @defaultValue 2
   */
  concurrency?: number;
  /**
   * Length of a run's lease, in milliseconds; renewed every third of it. Another process takes a run over
   * after its lease expires (docs/architecture.md#leases).
   * @defaultValue 30 000
   */
  leaseMs?: number;
  /**
   * How often an idle worker looks for due runs, in milliseconds.
   * @defaultValue 500
   */
  pollMs?: number;
  /**
   * Seconds between two reads of the goal facts while a run waits for them to settle.
   * @defaultValue 60
   */
  goalPollSec?: number;
  /**
   * Longest wait for the goal facts to settle, in hours; the run is `waiting` meanwhile.
   * @defaultValue 72
   */
  goalWaitHours?: number;
  /**
   * Steering messages applied before one model call; more stay queued for the next call, none is dropped.
   * @defaultValue 16
   */
  inboxCapacity?: number;
  /**
   * Per-run budgets; a run over one ends `budget_exceeded`.
   * @defaultValue 40 tool calls, 90 model calls, 900 s, no token or cost limit (`DEFAULT_RUN_BUDGETS`)
   */
  budgets?: Partial<RunBudgets>;
  /**
   * The household's daily caps: runs started and model cost in USD per UTC day, everyone's runs together (the
   * same as `spending.household.day.runs` / `.costUsd`, which win when both are set). A run at a cap waits
   * (`budget_reached`) instead of failing; a run that never started counts nowhere (docs/budgets.md).
   * @defaultValue 50 runs, 5 USD
   */
  daily?: Partial<DailyBudgets>;
  /**
   * Spending budgets per person and for the household, per UTC day and UTC month: runs started, model calls,
   * model tokens, USD (docs/budgets.md). Each person gets their role's caps (`admin` or `user`, from `identity`;
   * API keys and system actors are `user`), overridden by `people[actor]`. Every model call reserves its worst
   * case before it is sent; at a cap the run waits (`budget_reached`) until the cap is raised
   * (`host.budgets.update`) or the period ends. `null` removes a cap.
   * @defaultValue `DEFAULT_SPENDING_BUDGETS`: a user 20 runs and 2 USD a day, 30 USD a month; an administrator
   *   40 runs and 4 USD a day, 60 USD a month; the household 50 runs and 5 USD a day, 100 USD a month
   */
  spending?: SpendingOptions;
  /**
   * The host's part of the system prompt, added after the runtime's own (tone, house rules, the user's language).
   * @defaultValue none
   */
  systemPrompt?: string;
  /** Loop guard thresholds (defaults documented on each field). */
  loopGuard?: Partial<LoopGuardConfig>;
  /**
   * Capabilities offered on the first model call, ranked against the goal; the model finds more through
   * `search_tools`. 0 offers every capability and turns tool discovery off.
   * @defaultValue 0
   */
  maxTools?: number;
  /**
   * The model's context window, in tokens; compaction and tool discovery budget against it. Set the
   * model's own.
   * @defaultValue `DEFAULT_CONTEXT_WINDOW_TOKENS` (128 000, the window of the common current models)
   */
  contextWindowTokens?: number;
  /**
   * Share of the context window (from 0, below 1) above which older turns are compacted.
   * @defaultValue 0.8
   */
  compactionThreshold?: number;
  /** Large tool result limits (defaults: 64 KiB preview, 1 MiB per result, 8 and 4 MiB per run, 15 min). */
  results?: ToolResultStoreOptions;
  /**
   * Wait before the model call that follows a model turn whose every tool call the loop guard
   * refused, in ms; doubles per such turn in a row, at most 30 000 (default 1000). A `warning` run
   * event (`LOOP_PAUSED`) announces each wait.
   */
  refusedTurnPauseMs?: number;
  /**
   * How long a step's writes may wait to commit together with the steps after it, in milliseconds, counted from the
   * end of the first of them — when what runs next changes nothing outside the run: a model call, a read, a
   * `replay: 'safe'` call. Fast steps then share one commit (fewer writes to disk), and people watching the run see
   * each step at most this late. The claim of every other side effect, and the steps before it, are still committed
   * before its handler runs, and what a turn's calls returned is committed before another handler runs; a crash
   * inside the window asks the model turns in it again. `0` commits every step before the next begins
   * (docs/architecture.md#the-commit-window).
   * @defaultValue 50
   */
  commitWindowMs?: number;
  /**
   * Host middleware of the run loop, after the runtime's own (compaction, tool discovery, repeated
   * results, result spill, loop guard), in this order; see {@link RunMiddleware} (default none).
   * Names must be unique and differ from the runtime's own middleware names (`history_capture`, `compaction`,
   * `loop_guard`, …).
   *
   * @example
   * ```ts
   * const audit: RunMiddleware = {
   *   name: 'audit-log',
   *   afterToolCall(ctx) {
   *     console.log(ctx.run.id, ctx.call.name, ctx.status);
   *   },
   * };
   * createAgentHost({ runs: { middleware: [audit] } });
   * ```
   */
  middleware?: readonly RunMiddleware[];
  /**
   * Read-only code orchestration: given (`{}` for the defaults), top-level runs whose actor is an
   * administrator get the `execute_code` tool, which runs JavaScript in a WebAssembly sandbox with
   * read-only capability calls (docs/code-execution.md). Needs the optional peer dependency
   * `quickjs-emscripten`.
   * @defaultValue off
   * @example
   * ```ts
   * createAgentHost({ runs: { code: { timeoutMs: 120_000 } } }); // or `code: {}` for the defaults
   * ```
   */
  code?: CodeExecutionOptions;
  /**
   * Images in tool results (PNG, JPEG, WebP, GIF; 768 KiB per image): sent as image blocks to models
   * that accept images, a text note otherwise; never stored. The host switch, per-model overrides of
   * the built-in table, and what unknown models get.
   * @defaultValue `{ enabled: true, unknownModels: true }`
   */
  images?: ToolImageOptions;
}

/** Options after defaults were applied. @public */
export interface ResolvedAgentOptions {
  /** The message channels, checked (absent: none). */
  channels?: ResolvedChannelsOptions | undefined;
  /**
   * Which providers the start-up model check asks (see {@link ModelOptions.checkOnStart}): `local` (unset),
   * `all` (`true`) or `none` (`false`).
   */
  modelCheck: 'local' | 'all' | 'none';
  /** See {@link AgentOptions.maxInputBytes}. */
  maxInputBytes: number;
  /** See {@link AgentOptions.approvalTtlMs}. */
  approvalTtlMs: number;
  /** See {@link AgentOptions.capabilityTimeoutMs}. */
  capabilityTimeoutMs: number;
  /** See {@link AgentOptions.impactTimeoutMs}. */
  impactTimeoutMs: number;
  /** See {@link AgentOptions.ledgerRetentionMs}. */
  ledgerRetentionMs: number;
  /** See {@link AgentOptions.retention}: every kind's rule after defaults. */
  retention: ResolvedRetention;
  /** See {@link AgentOptions.maintenance}. */
  maintenance: ResolvedMaintenanceOptions;
  /** See {@link AgentOptions.schedules}. */
  schedules: ResolvedScheduleOptions;
  /** See {@link AgentOptions.intents}. */
  intents: Required<IntentOptions>;
  /** See {@link AgentOptions.audit}: the checkpoint key, when set. */
  auditCheckpointKey: string | undefined;
  /** Model id. */
  model: string;
  /** Max output tokens per model call. */
  maxTokens: number | undefined;
  /** Reasoning effort of every model call, when set. */
  thinking: ThinkingLevel | undefined;
  /** Sampling temperature, when set. */
  temperature: number | undefined;
  /** The fallback chain after the primary (`model.fallbacks`, checked), in order; empty without one. */
  fallbacks: readonly FallbackModel[];
  /** How long a failed entry of the chain is skipped, in ms (`model.fallbackCooldownMs`), when set. */
  fallbackCooldownMs: number | undefined;
  /** See {@link AgentOptions.learning}: background reviews, or undefined when they are off. */
  learning: ResolvedLearningOptions | undefined;
  /** See {@link AgentOptions.tracing}. */
  tracing: TracingOptions | undefined;
  /** See {@link AgentOptions.history}. */
  history?: HistoryOptions | undefined;
  /** See {@link AgentOptions.decisions}. */
  decisions: ResolvedDecisionOptions;
  /** See {@link AgentOptions.limits}. */
  limits: HostLimits;
  /** See {@link AgentOptions.accessRecheckMs}. */
  accessRecheckMs: number;
  /** Run settings with defaults applied. */
  runs: Required<
    Omit<
      RunOptions,
      | 'budgets'
      | 'daily'
      | 'spending'
      | 'systemPrompt'
      | 'loopGuard'
      | 'results'
      | 'maxTools'
      | 'contextWindowTokens'
      | 'compactionThreshold'
      | 'middleware'
      | 'code'
      | 'images'
    >
  > & {
    maxTools: number;
    contextWindowTokens: number;
    compactionThreshold: number;
    budgets: RunBudgets;
    daily: DailyBudgets;
    /** See {@link RunOptions.spending}: the settings with defaults and `daily` applied. */
    spending: SpendingBudgets;
    systemPrompt: string | undefined;
    loopGuard: Partial<LoopGuardConfig> | undefined;
    results: ToolResultStoreOptions | undefined;
    /** Host middleware (empty when none). */
    middleware: readonly RunMiddleware[];
    /** Code orchestration options with defaults applied, or undefined when it is off. */
    code: ResolvedCodeExecutionOptions | undefined;
    /** See {@link RunOptions.images}. */
    images: ToolImageOptions;
  };
}

/** Identity of the run a child container serves. @public */
export interface RunScope {
  /** Run id. */
  runId: string;
  /** The run's actor, `agent:<runId>` by default. */
  actor: string;
}
