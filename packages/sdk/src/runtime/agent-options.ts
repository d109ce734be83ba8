import type { ModelProviderConfig } from '../models/factory';
import type { ModelProvider } from '../models/types';
import type { GoalFacts } from './goal-facts';
import type { DailyBudgets, RunBudgets } from './run-budgets';
import type { LoopGuardConfig } from './guardrails/loop-guard';
import type { ToolResultStoreOptions } from './context/tool-result-store';
import type { RunMiddleware } from './middleware/run-middleware';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Logger } from '../ports/logger';
import type { AgentContainer } from '../ports/tokens';
import type { StorageAdapter } from '../storage/storage-adapter';

/**
 * Options of `createAgentContainer` / `createAgentHost`. Every field is optional; defaults suit a
 * test or a small embedded host.
 * @public
 */
export interface AgentOptions {
  /** Storage (default: a new {@link MemoryStorage}; use `SqliteStorage` from `@media-agent/sdk/sqlite` to persist). */
  storage?: StorageAdapter;
  /** Time source (default {@link SystemClock}). */
  clock?: Clock;
  /** Id source (default {@link RandomIdGenerator}). */
  ids?: IdGenerator;
  /** Logger (default {@link ConsoleLogger} at `warn`). */
  logger?: Logger;
  /** Largest accepted input JSON, in bytes (default 1 MiB). */
  maxInputBytes?: number;
  /** Lifetime of a new approval in ms (default 24 h). */
  approvalTtlMs?: number;
  /** Ledger retention in ms for settled entries; 0 turns cleanup off (default 0). `running`/`unknown` are never deleted. */
  ledgerRetentionMs?: number;
  /**
   * The model: a provider instance or configuration, and the model id. No default: without a provider
   * (here or as a `Tokens.ModelProvider` registration) capabilities still run, but `startRun` fails
   * `MODEL_NOT_CONFIGURED`. For tests and demos: `{ provider: new ScriptedProvider() }` with
   * `ScriptedProvider` from `@media-agent/sdk/testing`.
   */
  model?: { provider?: ModelProvider | ModelProviderConfig; model?: string; maxTokens?: number };
  /** Business facts for verified goal reports (default: none, so execute runs cannot be verified and end `failed`). */
  goalFacts?: GoalFacts;
  /** Run settings; every field optional, defaults documented per field. */
  runs?: RunOptions;
  /** Called after the defaults are registered: register replacements for any token here. */
  configure?: (container: AgentContainer) => void;
}

/** Run settings. @public */
export interface RunOptions {
  /** Runs driven at once by this process (default 2). */
  concurrency?: number;
  /** Lease length in ms (default 30 000). */
  leaseMs?: number;
  /** Idle worker poll interval in ms (default 500). */
  pollMs?: number;
  /** Seconds between goal-settled polls (default 60). */
  goalPollSec?: number;
  /** Longest wait for facts to settle in hours (default 72). */
  goalWaitHours?: number;
  /** Steering messages applied before one model call (default 16). */
  inboxCapacity?: number;
  /** Per-run budgets (defaults: 40 tool calls, 900 s, no token or cost limit). */
  budgets?: Partial<RunBudgets>;
  /** Per-day budgets (defaults: 50 runs, 5 USD). */
  daily?: Partial<DailyBudgets>;
  /** Host layer of the system prompt. */
  systemPrompt?: string;
  /** Loop guard thresholds (defaults documented on each field). */
  loopGuard?: Partial<LoopGuardConfig>;
  /** Capabilities offered on the first model call, ranked against the goal; more through `search_tools`. */
  maxTools?: number;
  /** The model's context window in tokens. */
  contextWindowTokens?: number;
  /** Compact the conversation above this share of the window. */
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
   * Host middleware of the run loop, after the runtime's own (compaction, tool discovery, repeated
   * results, result spill, loop guard), in this order; see {@link RunMiddleware} (default none).
   * Names must be unique and not one of {@link RUNTIME_MIDDLEWARE_NAMES}.
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
}

/** Options after defaults were applied. @public */
export interface ResolvedAgentOptions {
  /** See {@link AgentOptions.maxInputBytes}. */
  maxInputBytes: number;
  /** See {@link AgentOptions.approvalTtlMs}. */
  approvalTtlMs: number;
  /** See {@link AgentOptions.ledgerRetentionMs}. */
  ledgerRetentionMs: number;
  /** Model id. */
  model: string;
  /** Max output tokens per model call. */
  maxTokens: number | undefined;
  /** Run settings with defaults applied. */
  runs: Required<Omit<RunOptions, 'budgets' | 'daily' | 'systemPrompt' | 'loopGuard' | 'results' | 'maxTools' | 'contextWindowTokens' | 'compactionThreshold' | 'middleware'>> & {
    maxTools: number;
    contextWindowTokens: number;
    compactionThreshold: number;
    budgets: RunBudgets;
    daily: DailyBudgets;
    systemPrompt: string | undefined;
    loopGuard: Partial<LoopGuardConfig> | undefined;
    results: ToolResultStoreOptions | undefined;
    /** Host middleware (empty when none). */
    middleware: readonly RunMiddleware[];
  };
}

/** Identity of the run a child container serves. @public */
export interface RunScope {
  /** Run id. */
  runId: string;
  /** The run's actor, `agent:<runId>` by default. */
  actor: string;
}
