// Typed errors of the model layer. None of them ever carries an API key: messages taken from
// provider responses pass through redactSecrets() first.
import type { ErrorCode } from '../core/error-codes';
import { MediaAgentError } from '../core/errors';
import { SECRET_TEXT_PATTERNS } from '../core/secret-patterns';

/**
 * Base class of model-provider failures.
 *
 * @remarks
 * `details` always holds `provider` and, for HTTP failures, `status`; `retryable` says whether
 * retrying the same request later may succeed.
 *
 * @public
 */
export class ProviderError extends MediaAgentError {
  /** Whether the same request may succeed if retried later (429, 529, 5xx, connection failures). */
  readonly retryable: boolean;
  /**
   * @param code - stable error code (`PROVIDER_*`)
   * @param message - explanation (already redacted)
   * @param details - structured facts, never secrets
   * @param retryable - see {@link ProviderError.retryable}
   * @param options - `ErrorOptions` such as `{ cause }`
   */
  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown>,
    retryable: boolean,
    options?: ErrorOptions,
  ) {
    super(code, message, details, options);
    this.retryable = retryable;
  }
}

/**
 * 401 or 403 from the provider: the key is missing, wrong or lacks permission. Never retried.
 * Code `PROVIDER_AUTH`.
 *
 * @public
 */
export class ProviderAuthError extends ProviderError {
  /** @param message - redacted explanation; @param details - `{ provider, status }` */
  constructor(message: string, details: Record<string, unknown>) {
    super('PROVIDER_AUTH', message, details, false);
  }
}

/**
 * The prompt does not fit the model's context window (HTTP 400/413, or llama.cpp's 500, with a
 * context-length message in any of the servers' documented forms). Never retried as it is: the
 * runtime compacts the conversation to a smaller budget and resends, at most twice. Code
 * `PROVIDER_CONTEXT_OVERFLOW`.
 *
 * @public
 */
export class ContextOverflowError extends ProviderError {
  /**
   * @param message - redacted explanation
   * @param details - `{ provider, status }`, plus `promptTokens` and `limitTokens` (tokens) when the server
   *   stated the prompt's size and the model's limit
   */
  constructor(message: string, details: Record<string, unknown>) {
    super('PROVIDER_CONTEXT_OVERFLOW', message, details, false);
  }
}

/**
 * 429 after all retries (or a rate-limit error reported inside a stream after output, or after
 * all retries). `details.retryAfterMs` holds the server's requested wait when it sent one, and
 * `details.retryAfterCapped` is true when that wait exceeded `RetryOptions.maxRetryAfterMs`.
 * Code `PROVIDER_RATE_LIMITED`.
 *
 * @public
 */
export class ProviderRateLimitError extends ProviderError {
  /** @param message - redacted explanation; @param details - `{ provider, status, attempts, retryAfterMs? }` */
  constructor(message: string, details: Record<string, unknown>) {
    super('PROVIDER_RATE_LIMITED', message, details, true);
  }
}

/**
 * 529 / 503 overload or another 5xx after all retries, or an in-stream `overloaded_error` /
 * `api_error` / `server_error` event (or `finish_reason: insufficient_system_resource`) after
 * output was emitted or after all retries (`details.inStream: true`). Code `PROVIDER_UNAVAILABLE`.
 *
 * @public
 */
export class ProviderUnavailableError extends ProviderError {
  /** @param message - redacted explanation; @param details - `{ provider, status?, attempts? }` */
  constructor(message: string, details: Record<string, unknown>) {
    super('PROVIDER_UNAVAILABLE', message, details, true);
  }
}

/**
 * 402 Payment Required after the provider's retries: the account is out of credit (or its spending limit is
 * reached). Not retried on the same provider (it will answer 402 again until someone pays); a fallback chain
 * moves to its next entry. Code `PROVIDER_OUT_OF_CREDIT`.
 *
 * @public
 */
export class ProviderOutOfCreditError extends ProviderError {
  /** @param message - redacted explanation; @param details - `{ provider, status: 402, type? }` */
  constructor(message: string, details: Record<string, unknown>) {
    super('PROVIDER_OUT_OF_CREDIT', message, details, false);
  }
}

/**
 * A connect, first-byte (response headers) or idle-stream (gap between body chunks) timeout.
 * `details.phase` is `connect`, `first_byte` or `idle`; `details.timeoutMs` the limit in ms.
 * Code `PROVIDER_TIMEOUT`.
 *
 * @public
 */
export class ProviderTimeoutError extends ProviderError {
  /** @param message - explanation; @param details - `{ provider, phase, timeoutMs }` */
  constructor(message: string, details: Record<string, unknown>) {
    super('PROVIDER_TIMEOUT', message, details, true);
  }
}

/**
 * The provider could not be reached (connection refused, reset, DNS failure). Code
 * `PROVIDER_UNREACHABLE`.
 *
 * @public
 */
export class ProviderConnectionError extends ProviderError {
  /** @param message - explanation; @param details - `{ provider, cause code }` */
  constructor(message: string, details: Record<string, unknown>, options?: ErrorOptions) {
    super('PROVIDER_UNREACHABLE', message, details, true, options);
  }
}

/**
 * Any other HTTP failure (a 400 that is not context overflow, 404, 422 …). Not retried.
 * Code `PROVIDER_HTTP`.
 *
 * @public
 */
export class ProviderHttpError extends ProviderError {
  /** @param message - redacted explanation; @param details - `{ provider, status, type? }` */
  constructor(message: string, details: Record<string, unknown>) {
    super('PROVIDER_HTTP', message, details, false);
  }
}

/**
 * The response broke the wire protocol: unparsable SSE payload, a stream that ended without its
 * terminal event, an unexpected content type. Code `PROVIDER_PROTOCOL`.
 *
 * @public
 */
export class ProviderProtocolError extends ProviderError {
  /** @param message - explanation; @param details - `{ provider, … }` */
  constructor(message: string, details: Record<string, unknown>) {
    super('PROVIDER_PROTOCOL', message, details, false);
  }
}

/**
 * The scripted provider was asked for another turn but its script has no steps left.
 * Code `SCRIPT_EXHAUSTED`.
 *
 * @public
 */
export class ScriptExhaustedError extends MediaAgentError {
  /** @param message - explanation; @param details - `{ script, turns }` */
  constructor(message: string, details: Record<string, unknown>) {
    super('SCRIPT_EXHAUSTED', message, details);
  }
}

/**
 * A scripted-provider script is not valid (not JSON, not an object, steps that are not a list). Code
 * `SCRIPT_INVALID`. A template that cannot be filled is {@link ScriptTemplateError}.
 *
 * @public
 */
export class ScriptInvalidError extends MediaAgentError {
  /** @param message - explanation; @param details - `{ script, reason }` */
  constructor(message: string, details: Record<string, unknown>) {
    super('SCRIPT_INVALID', message, details);
  }
}

/**
 * A scripted-provider template (`{{capabilityId.path}}`) cannot be filled from the conversation: the
 * capability was not called or its last call did not succeed, or its result holds nothing at the path
 * (e.g. a lookup that matched no title). Code `SCRIPT_TEMPLATE_UNFILLED`. The message names the
 * capability, the path, the call's input and what the result held; `details` has `reference`,
 * `capability`, `path`, `missing` (the first path segment that was not there), `input` and `held`
 * (a short JSON excerpt), those that are known.
 *
 * @public
 */
export class ScriptTemplateError extends MediaAgentError {
  /** @param message - what is missing; @param details - `{ reference, capability?, path?, missing?, input?, held? }` */
  constructor(message: string, details: Record<string, unknown>) {
    super('SCRIPT_TEMPLATE_UNFILLED', message, details);
  }
}

/**
 * Removes API keys from text taken from a provider response (some servers echo the key, whole or
 * masked, in 401 messages): the configured keys verbatim (4 characters or more), and the secret shapes of
 * `SECRET_TEXT_PATTERNS` (key-shaped tokens, bearer tokens, `token=…` pairs, URL passwords). The host's
 * boundary redaction (docs/secrets.md) removes them again, with its own marker, wherever they are stored.
 *
 * @param text - text that may contain a key
 * @param secrets - the configured keys (empty strings are ignored)
 * @returns the text with every key replaced by `[redacted]`
 * @public
 */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  for (const shape of SECRET_TEXT_PATTERNS) out = out.replace(shape, '[redacted]');
  return out;
}

/**
 * A run was started (or resumed) on a host created without a model. Code `MODEL_NOT_CONFIGURED`.
 *
 * @remarks
 * A host chooses its model explicitly: `createAgentHost({ model: { provider, model } })` with a
 * provider configuration or instance, or a `Tokens.ModelProvider` registration. A host that only
 * invokes capabilities needs none; `startRun` is where the missing model fails. For tests and demos
 * the scripted provider is one line away: `model: { provider: new ScriptedProvider() }` with
 * `ScriptedProvider` from `@media-agent/sdk/testing`.
 *
 * @public
 */
export class ModelNotConfiguredError extends MediaAgentError {
  constructor() {
    super(
      'MODEL_NOT_CONFIGURED',
      'no model is configured: pass createAgentHost({ model: { provider, model } }) (for tests and demos, ScriptedProvider from @media-agent/sdk/testing) or register Tokens.ModelProvider',
    );
  }
}
