// Public exports of the model layer (ModelProvider port, providers, token counting, cost).
export type {
  AssistantMessage,
  ImagePart,
  ModelEvent,
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelTool,
  ModelUsage,
  ModelWarning,
  StopReason,
  SystemMessage,
  TextPart,
  ThinkingLevel,
  ThinkingPart,
  ToolCallFailure,
  ToolCallPart,
  ToolResultMessage,
  ToolResultStatus,
  UserMessage,
} from './types';
export {
  ContextOverflowError,
  ProviderAuthError,
  ProviderConnectionError,
  ProviderError,
  ProviderHttpError,
  ProviderProtocolError,
  ProviderRateLimitError,
  ProviderTimeoutError,
  ProviderUnavailableError,
  ScriptExhaustedError,
  ScriptInvalidError,
  ScriptTemplateError,
  redactSecrets,
} from './errors';
export { SseParser, readSse, readSseBatches, type SseEvent } from './sse';
export { ToolNameMap, parseToolArguments, PROVIDER_TOOL_NAME_PATTERN, type ToolArgumentsResult } from './tools';
export {
  normalizeConversation,
  UNKNOWN_OUTCOME_TEXT,
  type NormalizeOptions,
  type NormalizedConversation,
} from './conversation';
export { backoffDelay, isRetryableStatus, parseRetryAfter, type RetryOptions, type ResolvedRetry } from './retry';
export { isContextOverflowMessage, joinApiUrl, type HttpProviderOptions } from './http';
export { AnthropicProvider, ANTHROPIC_THINKING_BUDGETS, type AnthropicProviderOptions } from './anthropic';
export { OpenAICompatibleProvider, type OpenAICompatibleProviderOptions } from './openai-compatible';
export { OPENAI_DIALECTS, type OpenAIDialect, type OpenAIDialectName } from './openai-dialects';
export { collectStream, complete, type CompletedTurn } from './complete';
export {
  encodingForModel,
  IMAGE_TOKENS_ESTIMATE,
  MESSAGE_OVERHEAD_TOKENS,
  TiktokenCounter,
  UsageReconciler,
  type TiktokenCounterOptions,
  type TokenCounter,
  type TokenEncodingName,
} from './token-counter';
export { CostMeter, costOf, DEFAULT_PRICES, priceFor, type ModelPrice, type PriceTable } from './cost';
export { createModelProvider, type ModelProviderConfig } from './factory';
export type { FakeScript, ScriptContext, ScriptedProviderOptions, ScriptStep, ScriptToolCall } from './scripted';
