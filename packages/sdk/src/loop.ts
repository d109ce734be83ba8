/**
 * `@media-agent/sdk/loop`: the run loop beyond the model — the contexts a run middleware's hooks receive
 * (when a drive starts, around each model request and tool call, after each step, at the run's end) with
 * the verdict a tool-call hook may return; the loop guard's thresholds and their defaults; the limits of
 * the store for large tool results; the assumed context window; and tracing.
 *
 * @remarks
 * A host sets these with `createAgentHost({ runs: { middleware, loopGuard, results, contextWindowTokens },
 * tracing })`; every setting has a documented default. `RunMiddleware` itself is in the root entry too.
 * See docs/architecture.md.
 *
 * @example
 * ```ts
 * import { createAgentHost, type RunMiddleware } from '@media-agent/sdk';
 * import { DEFAULT_LOOP_GUARD_CONFIG, type ToolCallContext, type ToolCallVerdict } from '@media-agent/sdk/loop';
 *
 * const noDeletes: RunMiddleware = {
 *   name: 'no-deletes',
 *   beforeToolCall(ctx: ToolCallContext): ToolCallVerdict | undefined {
 *     if (!ctx.call.name.endsWith('.delete')) return undefined;
 *     return { action: 'refuse', code: 'DELETES_OFF', message: 'Deletes are off in this house.' };
 *   },
 * };
 * const host = createAgentHost({
 *   runs: { middleware: [noDeletes], loopGuard: { identicalCallsStopAt: DEFAULT_LOOP_GUARD_CONFIG.identicalCallsStopAt - 1 } },
 *   tracing: { captureContent: false },
 * });
 * ```
 *
 * @packageDocumentation
 */
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
export { DEFAULT_LOOP_GUARD_CONFIG, type LoopGuardConfig } from './runtime/guardrails/loop-guard';
export type { GuardCallKind } from './runtime/guardrails/types';
export type { ToolResultStoreOptions } from './runtime/context/tool-result-store';
export { DEFAULT_CONTEXT_WINDOW_TOKENS } from './runtime/context/tool-discovery';
export type { TracingOptions } from './runtime/tracing/tracing-options';
