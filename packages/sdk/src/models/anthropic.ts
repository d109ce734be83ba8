// Anthropic Messages API provider over undici + SSE: the request body and the HTTP call; the
// stream's events are translated in anthropic-stream.ts.
// API reference: https://docs.anthropic.com/en/api/messages
import type { Dispatcher } from 'undici';
import { checkProviderOptions } from './provider-config';
import { normalizeConversation } from './conversation';
import { AnthropicTranslator } from './anthropic-stream';
import { createDispatcher, guardStream, joinApiUrl, providerSecrets, type HttpProviderOptions } from './http';
import { streamTranslated } from './sse-translator';
import { RequestTools } from './tools';
import { anthropicThinkingAllowed } from './translation/anthropic-thinking-mode';
import { withoutForeignParts } from './translation/foreign-parts';
import { targetAcceptsImages } from './translation/images';
import { remapToolCallIds } from './translation/tool-call-ids';
import type { ModelEvent, ModelProvider, ModelRequest, TextPart, ImagePart, ThinkingLevel } from './types';

/**
 * Settings of {@link AnthropicProvider}.
 *
 * @public
 */
export interface AnthropicProviderOptions extends HttpProviderOptions {
  /** API key, sent as `x-api-key`; never logged or put in errors. */
  apiKey: string;
  /**
   * Server root without `/v1`; a trailing `/v1` is tolerated.
   * @defaultValue `https://api.anthropic.com`
   */
  baseUrl?: string;
  /**
   * `anthropic-version` header.
   * @defaultValue `2023-06-01`
   */
  apiVersion?: string;
  /** `anthropic-beta` header values, if any. */
  betas?: string[];
  /**
   * Output limit when the request sets none, in tokens.
   * @defaultValue 8192
   */
  defaultMaxTokens?: number;
  /**
   * Mark the system prompt and tool list with `cache_control: ephemeral` for prompt caching.
   * @defaultValue true
   */
  promptCaching?: boolean;
  /**
   * Whether the model accepts images (false: image parts go as a text note).
   * @defaultValue the request model's row in `VISION_MODEL_TABLE`, else true
   */
  supportsImages?: boolean;
}

/**
 * Thinking budget per level, in tokens (`thinking.budget_tokens`; the API minimum is 1024).
 * Source: Anthropic "Building with extended thinking".
 *
 * @public
 */
export const ANTHROPIC_THINKING_BUDGETS: Readonly<Record<Exclude<ThinkingLevel, 'off'>, number>> = {
  low: 2048,
  medium: 8192,
  high: 24576,
};

type Json = Record<string, unknown>;

/**
 * Streams Anthropic Messages API calls over undici.
 *
 * @remarks
 * Thinking blocks (with their signatures) and redacted thinking blocks are surfaced as
 * `thinking_delta` events, the first delta of each block marked `start`, so each block becomes a
 * thinking part of its own; they must be sent back verbatim on the next turn, each in its place
 * (interleaved thinking between tool uses included). This provider sends every `thinking` part that
 * carries a signature as a `thinking` block (`type`, `thinking`, `signature`, the API's own key order)
 * and every part with a redacted payload as a `redacted_thinking` block (`type`, `data`), in part
 * order, when the part is its own (its `origin` names this provider and the request's model, or it has none;
 * see `buildAnthropicBody`), and drops unsigned thinking, which the API would reject: thinking from another provider, and an
 * Anthropic block that arrived without a signature or with an empty one (reported when streamed as a
 * `warning` with code `PROVIDER_THINKING_UNSIGNED`; sending it with its empty signature is refused too).
 * A signature sent in `content_block_start` (gateways replaying non-streamed blocks) or before the
 * block's text is kept with that block. Source:
 * "Preserving thinking blocks"
 * (https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks).
 * Capability ids are mapped to
 * wire-safe tool names and back. Errors: see {@link ProviderError} subclasses; the stream itself
 * never throws. A transient error event inside the stream (`overloaded_error`,
 * `rate_limit_error`, `api_error`) is retried with the same backoff and attempt budget as HTTP
 * 429/529 while nothing of the turn was emitted yet, and so is a stream cut short before its first
 * content (it ends before `message_stop`, e.g. right after `message_start`, or its connection
 * breaks); after output the stream ends with `error` + `done('error')`.
 *
 * A request that asks for thinking but continues a tool loop begun by another provider family or model goes
 * without `thinking` (see `buildAnthropicBody`); its stream starts with one `warning` with code
 * `PROVIDER_THINKING_SUSPENDED` (`details.provider`, `details.model`, `details.thinking`).
 *
 * @public
 */
export class AnthropicProvider implements ModelProvider {
  /** {@inheritDoc ModelProvider.id} */
  readonly id = 'anthropic';
  /** The API base URL (default `https://api.anthropic.com`). */
  readonly baseUrl: string;
  readonly #options: AnthropicProviderOptions;
  readonly #dispatcher: Dispatcher;
  readonly #url: string;

  /** @param options - key, base URL, timeouts, retries */
  constructor(options: AnthropicProviderOptions) {
    checkProviderOptions('anthropic', options, 'AnthropicProvider', ['provider']); // `provider` when made by createModelProvider
    this.#options = options;
    this.#dispatcher = createDispatcher(options);
    this.baseUrl = options.baseUrl ?? 'https://api.anthropic.com';
    this.#url = joinApiUrl(this.baseUrl, 'messages');
  }

  /**
   * Builds the JSON body of a Messages request (exposed for inspection and tests).
   * @param request - the provider-neutral request
   * @returns the body object, with `stream: true`
   */
  buildBody(request: ModelRequest): Record<string, unknown> {
    return buildAnthropicBody(request, this.#options, new RequestTools(request.tools));
  }

  /** {@inheritDoc ModelProvider.stream} */
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> {
    const options = this.#options;
    return guardStream(
      this.id,
      signal,
      options,
      async function* (this: AnthropicProvider) {
        const tools = new RequestTools(request.tools);
        const body = buildAnthropicBody(request, options, tools);
        if ((request.thinking ?? 'off') !== 'off' && body.thinking === undefined) {
          yield [
            {
              type: 'warning',
              warning: {
                code: 'PROVIDER_THINKING_SUSPENDED',
                message: `${this.id}: thinking is off for this request: the tool loop in progress was begun by another provider or model, whose turn has no thinking block for ${request.model} to continue from`,
                details: { provider: this.id, model: request.model, thinking: request.thinking },
              },
            } satisfies ModelEvent,
          ];
        }
        const headers: Record<string, string> = {
          ...options.headers,
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'x-api-key': options.apiKey,
          'anthropic-version': options.apiVersion ?? '2023-06-01',
        };
        if (options.betas?.length) headers['anthropic-beta'] = options.betas.join(',');
        yield* streamTranslated(
          {
            provider: this.id,
            url: this.#url,
            headers,
            body: JSON.stringify(body),
            signal,
            dispatcher: this.#dispatcher,
            options,
            secrets: providerSecrets(options),
          },
          () => new AnthropicTranslator(tools, this.id, providerSecrets(options)),
        );
      }.bind(this),
    );
  }

  /**
   * The credentials this provider holds (API key, secret-looking header values, base-URL credentials), so a
   * host's redaction removes them wherever they are echoed (docs/secrets.md).
   */
  secretValues(): readonly string[] {
    return providerSecrets(this.#options);
  }

  /**
   * The headers every request of this provider carries besides the body's (the configured `headers`,
   * `x-api-key`, `anthropic-version`). Used by the start-up model check when asked for
   * (`checkOnStart: true`); never logged.
   * @internal
   */
  requestHeaders(): Record<string, string> {
    return {
      ...this.#options.headers,
      'x-api-key': this.#options.apiKey,
      'anthropic-version': this.#options.apiVersion ?? '2023-06-01',
    };
  }

  /** Closes the provider's connection pool (when it owns one). */
  async close(): Promise<void> {
    if (!this.#options.dispatcher) await this.#dispatcher.close();
  }
}

function contentBlocks(content: string | Array<TextPart | ImagePart>): Json[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((p) =>
    p.type === 'text'
      ? { type: 'text', text: p.text }
      : { type: 'image', source: { type: 'base64', media_type: p.mediaType, data: p.data } },
  );
}

/**
 * Encodes a request as an Anthropic Messages body.
 *
 * @remarks
 * Assistant parts go out in order: a thinking part with a redacted payload as `redacted_thinking`
 * (`type`, `data`), a thinking part with a non-empty signature as `thinking` (`type`, `thinking`,
 * `signature`), both byte for byte as received; a thinking part without a signature is left out (the API
 * accepts no thinking block without its signature; an Anthropic block that streamed unsigned was reported
 * then as `PROVIDER_THINKING_UNSIGNED`).
 *
 * Turns of another provider family or model are translated first (docs/providers.md, "Switching provider
 * family mid-conversation"): thinking parts whose `origin` is not this provider and model are dropped
 * (`thinkingGoesBack`), tool call ids the API refuses are remapped in calls and results alike
 * (`remapToolCallIds`, rule `anthropic`), images follow `targetAcceptsImages`, and when the tool loop in
 * progress was begun by another family (its last assistant message has no thinking block to start with),
 * the request goes without `thinking` (`anthropicThinkingAllowed`).
 * @internal
 */
export function buildAnthropicBody(
  request: ModelRequest,
  options: AnthropicProviderOptions,
  tools: RequestTools,
): Json {
  const own = withoutForeignParts(request.messages, {
    provider: 'anthropic',
    model: request.model,
    family: 'anthropic',
  });
  const normalized = normalizeConversation(own, {
    supportsImages: targetAcceptsImages(request.model, options.supportsImages),
  });
  const system = normalized.system;
  const messages = remapToolCallIds(normalized.messages, 'anthropic');
  const caching = options.promptCaching ?? true;
  const wire: Array<{ role: 'user' | 'assistant'; content: Json[] }> = [];
  const push = (role: 'user' | 'assistant', blocks: Json[]) => {
    if (blocks.length === 0) return;
    const last = wire[wire.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else wire.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'user') push('user', contentBlocks(m.content));
    else if (m.role === 'tool') {
      const content = typeof m.content === 'string' ? m.content : contentBlocks(m.content);
      push('user', [
        { type: 'tool_result', tool_use_id: m.toolCallId, content, ...(m.status === 'ok' ? {} : { is_error: true }) },
      ]);
    } else {
      const blocks: Json[] = [];
      for (const p of m.content) {
        if (p.type === 'thinking') {
          if (p.redacted !== undefined) blocks.push({ type: 'redacted_thinking', data: p.redacted });
          else if (p.signature) blocks.push({ type: 'thinking', thinking: p.thinking, signature: p.signature });
        } else if (p.type === 'text') {
          if (p.text !== '') blocks.push({ type: 'text', text: p.text });
        } else blocks.push({ type: 'tool_use', id: p.id, name: tools.names.toWire(p.name), input: p.input ?? {} });
      }
      push('assistant', blocks);
    }
  }
  const body: Json = { model: request.model, stream: true, messages: wire };
  const thinking = request.thinking ?? 'off';
  let maxTokens = request.maxTokens ?? options.defaultMaxTokens ?? 8192;
  if (thinking !== 'off') {
    const budget = ANTHROPIC_THINKING_BUDGETS[thinking];
    maxTokens = Math.max(maxTokens, budget + 1024);
    if (anthropicThinkingAllowed(wire)) body.thinking = { type: 'enabled', budget_tokens: budget };
  } else if (request.temperature !== undefined) body.temperature = request.temperature;
  body.max_tokens = maxTokens;
  if (system !== '')
    body.system = [{ type: 'text', text: system, ...(caching ? { cache_control: { type: 'ephemeral' } } : {}) }];
  if (tools.tools.length > 0) {
    body.tools = tools.tools.map((t, i) => ({
      name: tools.names.toWire(t.name),
      description: t.description,
      input_schema: t.inputSchema,
      ...(caching && i === tools.tools.length - 1 ? { cache_control: { type: 'ephemeral' } } : {}),
    }));
  }
  return body;
}
