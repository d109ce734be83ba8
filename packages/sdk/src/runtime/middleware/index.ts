/**
 * Run middleware: the public extension point of the run loop.
 * @packageDocumentation
 */
export {
  RunMiddlewareError,
  RUNTIME_MIDDLEWARE_NAMES,
  type DriveStartContext,
  type MiddlewareState,
  type ModelRequestContext,
  type ModelTurnContext,
  type RunEndContext,
  type RunMiddleware,
  type RunMiddlewareContext,
  type RunMiddlewareHook,
  type RunMiddlewareRun,
  type RunStepContext,
  type ToolCallContext,
  type ToolCallVerdict,
  type ToolResultContext,
} from './run-middleware';
