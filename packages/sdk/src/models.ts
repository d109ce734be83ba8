/**
 * `@media-agent/sdk/models`: the model provider port, the Anthropic and OpenAI-compatible
 * providers, token counting and cost, and images in model messages (the accepted types and sizes,
 * which models accept them).
 *
 * @remarks
 * A host usually passes a {@link ModelProviderConfig} as `createAgentHost({ model: { provider } })`;
 * this entry is for code that builds a provider itself, writes one, or counts tokens and cost.
 * The scripted provider for tests and demos is in `@media-agent/sdk/testing`.
 *
 * @packageDocumentation
 */
export type {
  AssistantMessage,
  ImagePart,
  ModelEvent,
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelResponseInfo,
  ModelTool,
  ModelUsage,
  ModelWarning,
  PartOrigin,
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
} from './models/types';
export {
  ContextOverflowError,
  ProviderAuthError,
  ProviderConnectionError,
  ProviderError,
  ProviderHttpError,
  ProviderOutOfCreditError,
  ProviderProtocolError,
  ProviderRateLimitError,
  ProviderTimeoutError,
  ProviderUnavailableError,
  ModelNotConfiguredError,
  redactSecrets,
} from './models/errors';
export type { RetryOptions } from './models/retry';
export type { FallbackModel } from './models/routing/fallback-options';
export { FALLBACK_ERROR_CODES, isFallbackWorthy } from './models/routing/fallback-worthy';
export { DEFAULT_FALLBACK_COOLDOWN_MS } from './models/routing/route-state';
export type { HttpProviderOptions } from './models/http';
export { DEFAULT_FIRST_CONTENT_TIMEOUT_MS, DEFAULT_TOTAL_TIMEOUT_MS } from './models/call-deadlines';
export { AnthropicProvider, ANTHROPIC_THINKING_BUDGETS, type AnthropicProviderOptions } from './models/anthropic';
export { OpenAICompatibleProvider, type OpenAICompatibleProviderOptions } from './models/openai-compatible';
export {
  OPENAI_DIALECTS,
  type OpenAIDialect,
  type OpenAIDialectName,
  type ReasoningReplay,
} from './models/openai-dialects';
export { collectStream, complete, type CompletedTurn } from './models/complete';
export { attachResponseInfo, responseInfoOf } from './models/response-info';
export {
  TiktokenCounter,
  type TiktokenCounterOptions,
  type TokenCounter,
  type TokenEncodingName,
} from './models/token-counter';
export { CostMeter, costOf, DEFAULT_PRICES, priceFor, type ModelPrice, type PriceTable } from './models/cost';
export { createModelProvider, type ModelProviderConfig } from './models/factory';
export {
  checkProviderModels,
  DEFAULT_MODEL_CHECK_TIMEOUT_MS,
  type ModelCheckEntry,
  type ModelCheckOptions,
  type ModelCheckResult,
} from './models/local/check-provider-models';
export { isLocalDialect, LOCAL_DIALECTS, type LocalDialectName } from './models/local/local-dialects';
export { ModelNotFoundError } from './models/local/model-not-found-error';
export type { FakeScript, ScriptContext, ScriptedProviderOptions, ScriptStep, ScriptToolCall } from './models/scripted';
export {
  checkProviderSchema,
  validateProviderSchema,
  REQUIRED_PROVIDER_FAMILIES,
  type JsonSchemaObject,
  type ProviderFamily,
  type ProviderSchemaCheck,
  type ProviderSchemaProblem,
  type ProviderSchemaRewrite,
} from './models/provider-schema';
export { IMAGE_LIMITS, IMAGE_MEDIA_TYPES, type ImageProblemCode } from './runtime/images/image-parts';
export { VISION_MODEL_TABLE, modelAcceptsImages } from './models/vision-models';
// the host's `runs.images` option: how images in tool results reach the model
export type { ToolImageOptions } from './runtime/images/image-delivery';
