// The public extension point of the run loop: ordered hooks around the model request, the model
// turn, each tool call and the end of a run.
import type { CapabilityDescriptor } from '../../core/capability-descriptor';
import type { InvocationStatus } from '../../capabilities/invocation';
import { MediaAgentError } from '../../core/errors';
import type {
  AssistantMessage,
  ModelMessage,
  ModelRequest,
  ModelTool,
  ToolCallPart,
  ToolResultMessage,
} from '../../models/types';
import type { JsonValue } from '../../core/records';
import type { RunMode, RunOrigin, RunStatus, RunUsage } from '../../core/run-records';
import type { GuardCallKind } from '../guardrails/types';

/**
 * What a middleware sees of the run it works on (read-only; the run record itself is never exposed).
 * @public
 */
export interface RunMiddlewareRun {
  /** Run id (the same in events, ledger entries and audit rows). */
  readonly id: string;
  /** The user's goal. */
  readonly goal: string;
  /** `execute` or `plan_only`. */
  readonly mode: RunMode;
  /** `interactive`, `background` or `channel`: decides what {@link RunStepContext.stopRun} does. */
  readonly origin: RunOrigin;
  /** 0 for a run a host started, 1 or 2 for a subagent. */
  readonly depth: number;
  /** The delegating run of a subagent, else null. */
  readonly parentRunId: string | null;
  /** Capability ids the run is limited to, or null for no limit. */
  readonly capabilityAllowlist: readonly string[] | null;
  /** Who started the run (`user:…`, `apikey:…`, `system:…`, `agent:…`). */
  readonly startedBy: string;
}

/**
 * A middleware's own state on one run.
 *
 * @remarks
 * `get`/`set` is JSON saved in the run's runtime state, written in the same storage transaction as
 * the step that set it, and read back when the run is resumed (after a crash, on another worker, or
 * when a person wakes it). `local` holds objects derived from it in memory for as long as this
 * process drives the run (dropped when the drive ends; never persisted).
 * @public
 */
export interface MiddlewareState {
  /** The JSON this middleware saved on the run, or undefined. */
  get(): JsonValue | undefined;
  /**
   * Replaces it; persisted with the current step (nothing is written when the step fails). The value
   * is serialized when the step commits, as it is then: set a fresh object, or one the middleware
   * keeps up to date and sets again whenever it changed.
   */
  set(value: JsonValue): void;
  /**
   * An in-memory object for this run, created on first use.
   * @param create - called once per drive of the run
   * @returns the same object on every later call during the drive
   */
  local<T>(create: () => T): T;
}

/**
 * What every hook gets.
 * @public
 */
export interface RunMiddlewareContext {
  /** The run. */
  readonly run: RunMiddlewareRun;
  /** Usage so far (tool calls, tokens, cost in USD, model calls), including the current step. */
  readonly usage: Readonly<RunUsage>;
  /** Aborted when the run is aborted, the lease is lost or the host stops; pass it to anything slow. */
  readonly signal: AbortSignal;
  /** This middleware's state on the run. */
  readonly state: MiddlewareState;
}

/**
 * The context of the hooks that run while the run is driven (every hook except `onRunEnd`).
 * @public
 */
export interface RunStepContext extends RunMiddlewareContext {
  /**
   * Adds a `warning` run event (`source: 'runtime'`, `details.middleware` = this middleware's name),
   * written with the current step.
   * @param code - stable upper-snake-case code
   * @param message - text for people
   * @param details - more JSON facts
   */
  warn(code: string, message: string, details?: Record<string, JsonValue>): void;
  /**
   * Ends the drive after the current step, like the loop guard does: an `interactive` run waits for
   * its user (a message resumes it), a `background` or `channel` run ends `failed` with `code`. A
   * `warning` event carries the reason. Calls of the current model turn that have not run yet are
   * answered "blocked" and not run. The first request of a step wins.
   * @param code - stable upper-snake-case code (becomes the run error's code when it fails)
   * @param message - the reason, for people and for the model
   */
  stopRun(code: string, message: string): void;
  /**
   * Ends the drive after the current step with the run `failed` (whatever its origin), error `code`.
   * Calls of the current model turn that have not run yet are not run.
   * @param code - stable upper-snake-case code of the run error
   * @param message - the run error's message
   */
  failRun(code: string, message: string): void;
  /**
   * Adds what a middleware spent on the run's behalf (a summary call, a background review) to the run's
   * usage: saved with the current step, counted against the run's budgets and the daily cost. Negative
   * or non-finite figures count 0.
   * @param usage - model calls, input and output tokens, cost in USD
   */
  chargeUsage(usage: Partial<Pick<RunUsage, 'modelCalls' | 'inputTokens' | 'outputTokens' | 'costUsd'>>): void;
}

/**
 * `onDriveStart`: a drive of the run begins (first start, resume after a crash, or a wake).
 * @public
 */
export interface DriveStartContext extends RunStepContext {
  /** True when a message (or a decided approval) woke the run for this drive. */
  readonly woken: boolean;
  /** The capabilities this run may be offered (its mode and allowlist applied), as registered. */
  readonly catalog: readonly CapabilityDescriptor[];
  /**
   * The runtime's own tools this run may use, in their order: `update_plan`, `search_tools`,
   * `read_tool_result` and (below the subagent depth limit) `delegate`. `search_tools` is only useful
   * with a tool discovery and is not part of the default offer.
   */
  readonly runtimeTools: readonly ModelTool[];
  /**
   * The tools every model request of this drive starts from. Default: every capability of
   * `catalog` and the runtime tools except `search_tools`. Replace it to offer fewer tools (offering
   * a tool grants nothing: every call is still authorized on the invocation path).
   */
  tools: ModelTool[];
}

/**
 * `beforeModelRequest`: the outbound request is being assembled. Everything here is a copy made for
 * this request; stored messages never change.
 * @public
 */
export interface ModelRequestContext extends RunStepContext {
  /** The working conversation (after earlier compactions), without the system prompt. */
  readonly history: readonly ModelMessage[];
  /**
   * The messages to send (without the system prompt, which the runtime puts first). Starts as a
   * shallow copy of `history`; rewrite or replace it freely (e.g. add a `system` note at the front).
   */
  messages: ModelMessage[];
  /** The tools to send. Starts as the drive's base offer ({@link DriveStartContext.tools}). */
  tools: ModelTool[];
  /**
   * Estimated prompt tokens of the request (system prompt, tools, messages) when a middleware
   * before this one counted them (the compaction middleware does), so later ones need not count
   * again; undefined otherwise.
   */
  requestTokens: number | undefined;
  /**
   * Replaces the older part of the working conversation by a summary, persistently for this run: the
   * working conversation becomes `[summary, …its last keep messages]` (and so do `messages`). Every
   * original message stays in storage; the change is saved with the step.
   * @param summary - the message that stands for what is dropped
   * @param keep - how many of the latest working messages to keep (0 … `history.length`)
   * @throws `RangeError` for a `keep` outside that range
   */
  compactHistory(summary: ModelMessage, keep: number): void;
}

/**
 * `afterModelTurn`: the model's reply is assembled (and will be stored with the step).
 * @public
 */
export interface ModelTurnContext extends RunStepContext {
  /** The assistant message as it will be stored (runtime call ids; oversized arguments omitted). Read-only. */
  readonly message: Readonly<AssistantMessage>;
  /** Its tool calls, in model order (empty for a final reply). */
  readonly calls: readonly Readonly<ToolCallPart>[];
  /** The reply's text (all text parts joined). */
  readonly text: string;
  /**
   * The request the reply answers, exactly as sent to the provider: the system prompt first, the
   * messages after every `beforeModelRequest` rewrite, the tools, and the model settings (model id,
   * `maxTokens`, `thinking`, `temperature`). Read-only.
   */
  readonly request: Readonly<ModelRequest>;
  /**
   * For a reply without tool calls: do not end the drive; add `prompt` as a user message and call
   * the model again (the loop guard uses this for replies that announce an action but call nothing).
   * Ignored when the turn has tool calls.
   * @param prompt - the message for the model
   */
  continueWith(prompt: string): void;
}

/**
 * `beforeToolCall` and `afterToolCall`: one tool call of the current model turn.
 * @public
 */
export interface ToolCallContext extends RunStepContext {
  /** The call (runtime id, name, parsed input). Read-only. */
  readonly call: Readonly<ToolCallPart>;
  /** Its position in the model turn, 0-based. */
  readonly index: number;
  /** The kind of what it runs: the capability's kind, or `internal` for the runtime's tools and unknown names. */
  readonly kind: GuardCallKind;
}

/**
 * What `beforeToolCall` may decide. Returning nothing lets the call run.
 *
 * - `refuse`: the call is not run; the model gets a failed result with `code` and `message`, a
 *   `tool_call` event says `blocked`, and the run goes on.
 * - `stop`: as `refuse`, then the drive ends after this step as with {@link RunStepContext.stopRun}.
 * @public
 */
export type ToolCallVerdict =
  | { action: 'refuse'; code: string; message: string }
  | { action: 'stop'; code: string; message: string };

/**
 * `afterToolCall`: the call ran (or was answered without running: denied, invalid, unknown tool).
 * @public
 */
export interface ToolResultContext extends ToolCallContext {
  /** The outcome of the call. */
  readonly status: InvocationStatus;
  /**
   * The result message the model will see and that will be stored. Rewrite `content` to annotate or
   * shorten it (keep `toolCallId`, `name` and `status`: they tie it to the call).
   */
  result: ToolResultMessage;
}

/**
 * `onRunEnd`: the run reached `waiting` or a terminal status, already stored.
 * @public
 */
export interface RunEndContext {
  /** The run. */
  readonly run: RunMiddlewareRun;
  /** `waiting`, or the terminal status the run ended with. */
  readonly status: RunStatus;
  /** True unless the status is `waiting` (a later message or poll drives the run again). */
  readonly terminal: boolean;
  /** Why it ended (the `run_status` event's reason). */
  readonly reason: string;
  /** Tool calls, model calls, tokens and cost used by the run up to now. */
  readonly usage: Readonly<RunUsage>;
}

/**
 * A middleware of the run loop: named, ordered hooks a host (and the runtime itself) attaches to
 * every run.
 *
 * @remarks
 * Hooks run in order: the runtime's own middleware first — compaction (`compaction`), tool
 * discovery (`tool_discovery`), repeated-result references (`repeated_results`), large-result spill
 * (`result_spill`), the loop guard (`loop_guard`) — then the host's, in the order given to
 * {@link RunOptions.middleware}. Per step:
 *
 * 1. `onDriveStart` once per drive (start, crash resume, wake);
 * 2. `beforeModelRequest` before every model call;
 * 3. `afterModelTurn` after the reply is assembled;
 * 4. `beforeToolCall` for each call in model order (the first `refuse`/`stop` wins; later
 *    middleware are not asked about that call) and, for each call that was not refused,
 *    `afterToolCall` once it has run;
 * 5. `onRunEnd` when the run is `waiting` or terminal.
 *
 * What a middleware changes (state, notes, rewritten results, stop requests) is written with the
 * step, in one storage transaction. A middleware never gets the capability registry, grants or
 * approvals: it can refuse or annotate a call, rewrite the outbound copy of a request, add events
 * and end the run, but every call it lets through still takes the one invocation path
 * (authorization, ledger, audit) as `agent:<runId>`.
 *
 * Errors: a hook that throws (while the run is not being aborted) fails the step with a
 * `RUN_MIDDLEWARE_FAILED` ({@link MediaAgentError}, `details.middleware`, `details.hook`): nothing of
 * that step is written, and the run ends `failed` with that code and a `warning` event naming the
 * middleware. A throw from `onRunEnd` cannot change an outcome already stored: it is logged and
 * reported as such a `warning` event.
 *
 * @example
 * Refuse downloads outside office hours, and keep a count of tool calls per run:
 * ```ts
 * import { createAgentHost, type RunMiddleware } from '@media-agent/sdk';
 *
 * const officeHours: RunMiddleware = {
 *   name: 'office-hours',
 *   beforeToolCall(ctx) {
 *     const hour = new Date().getHours();
 *     if (ctx.kind === 'execute' && (hour < 8 || hour >= 18)) {
 *       return { action: 'refuse', code: 'OUTSIDE_OFFICE_HOURS', message: 'writes run 08:00–18:00; plan it and report' };
 *     }
 *   },
 *   afterToolCall(ctx) {
 *     const calls = ((ctx.state.get() as number | undefined) ?? 0) + 1;
 *     ctx.state.set(calls); // saved with this step
 *     if (calls > 30) ctx.stopRun('TOO_MANY_CALLS', 'over 30 tool calls: ask the user how to go on');
 *   },
 * };
 *
 * const host = createAgentHost({ runs: { middleware: [officeHours] } });
 * ```
 * @public
 */
export interface RunMiddleware {
  /**
   * Unique name (non-empty; not one of the runtime's own names): named by errors and events, and
   * the key of its state on runs (renaming a middleware forgets the state of runs in flight).
   */
  readonly name: string;
  /** A drive begins: restore per-run objects, change the drive's base tool offer. */
  onDriveStart?(ctx: DriveStartContext): void | Promise<void>;
  /** Before each model call: rewrite the outbound messages and tools, compact, end the run. */
  beforeModelRequest?(ctx: ModelRequestContext): void | Promise<void>;
  /** After the reply is assembled: inspect it, ask for another turn, end the run. */
  afterModelTurn?(ctx: ModelTurnContext): void | Promise<void>;
  /** Before a tool call runs: refuse it or stop the run (return nothing to let it run). */
  // biome-ignore lint/suspicious/noConfusingVoidType: `void` lets a hook that only observes be written `(ctx) => { … }`.
  beforeToolCall?(
    ctx: ToolCallContext,
  ): void | ToolCallVerdict | undefined | Promise<void | ToolCallVerdict | undefined>;
  /** After a tool call: rewrite or annotate its result, end the run. */
  afterToolCall?(ctx: ToolResultContext): void | Promise<void>;
  /** The run is `waiting` or terminal (stored): release what the middleware holds for it. */
  onRunEnd?(ctx: RunEndContext): void | Promise<void>;
}

/** The hooks of a {@link RunMiddleware}. @public */
export type RunMiddlewareHook =
  | 'onDriveStart'
  | 'beforeModelRequest'
  | 'afterModelTurn'
  | 'beforeToolCall'
  | 'afterToolCall'
  | 'onRunEnd';

/**
 * A middleware hook threw. Code `RUN_MIDDLEWARE_FAILED`; `details.middleware` is its name,
 * `details.hook` the hook, `details.cause` the thrown error's code (or `ERROR`) and message. The
 * step it failed is not written; the run ends `failed` with this code.
 * @public
 */
export class RunMiddlewareError extends MediaAgentError {
  /**
   * @param middleware - name of the middleware
   * @param hook - the hook that threw
   * @param cause - what it threw
   */
  constructor(middleware: string, hook: RunMiddlewareHook, cause: unknown) {
    const causeCode = cause instanceof MediaAgentError ? cause.code : 'ERROR';
    const causeMessage = cause instanceof Error ? cause.message : String(cause);
    super(
      'RUN_MIDDLEWARE_FAILED',
      `middleware ${JSON.stringify(middleware)} failed in ${hook}: ${causeMessage}`,
      { middleware, hook, cause: { code: causeCode, message: causeMessage } },
      { cause },
    );
  }
}

/** Names of the runtime's own middleware, in their order (a host middleware may not reuse them). @public */
export const RUNTIME_MIDDLEWARE_NAMES: readonly string[] = Object.freeze([
  'history_capture',
  'compaction',
  'tool_discovery',
  'repeated_results',
  'result_spill',
  'loop_guard',
  'code_execution',
  'tool_images',
  'learning_review',
]);
