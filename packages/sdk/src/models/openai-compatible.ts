// OpenAI-compatible Chat Completions provider over undici + SSE: the request body and the HTTP
// call; the stream's chunks are translated in openai-stream.ts.
import type { Dispatcher } from 'undici';
import { checkProviderOptions } from './provider-config';
import { normalizeConversation } from './conversation';
import { createDispatcher, guardStream, joinApiUrl, providerSecrets, type HttpProviderOptions } from './http';
import { encodeAssistantMessage, replayedReasoning } from './openai-assistant';
import { OPENAI_DIALECTS, type OpenAIDialect, type OpenAIDialectName } from './openai-dialects';
import { OpenAITranslator } from './openai-stream';
import { applyStrictFields, learnRefusedFields, newStrictFieldState, type StrictFieldState } from './openai-strict';
import { streamTranslated } from './sse-translator';
import { RequestTools } from './tools';
import { withoutForeignParts } from './translation/foreign-parts';
import { targetAcceptsImages } from './translation/images';
import { remapToolCallIds } from './translation/tool-call-ids';
import type { ImagePart, ModelEvent, ModelProvider, ModelRequest, ModelWarning, TextPart } from './types';

/**
 * Settings of {@link OpenAICompatibleProvider}.
 *
 * @public
 */
export interface OpenAICompatibleProviderOptions extends HttpProviderOptions {
  /** API key sent as `Authorization: Bearer`; omit for local servers without auth. Never logged. */
  apiKey?: string;
  /** Server base URL with or without `/v1` (`https://api.deepseek.com`, `http://localhost:11434/v1`); default per dialect. */
  baseUrl?: string;
  /**
   * A built-in dialect name or a custom dialect.
   * @defaultValue `openai`
   */
  dialect?: OpenAIDialectName | OpenAIDialect;
  /**
   * Output limit when the request sets none, in tokens.
   * @defaultValue not sent
   */
  defaultMaxTokens?: number;
  /**
   * Whether the model accepts images; tool-result images go in a user message after the tool results
   * (false: image parts go as a text note).
   * @defaultValue the request model's row in `VISION_MODEL_TABLE`, else true
   */
  supportsImages?: boolean;
}

type Json = Record<string, unknown>;

/**
 * Streams Chat Completions calls to OpenAI and compatible servers (DeepSeek, Kimi, GLM,
 * Qwen/DashScope, OpenRouter, Mistral, Gemini, Groq, xAI, SiliconFlow, Ollama, vLLM, llama.cpp
 * server …) over undici.
 *
 * @remarks
 * Tool calls are assembled by `index` from fragments (a different non-empty id at the same index
 * starts a new call, fragments repeating the id or carrying none continue it; a fragment without
 * `index` continues the call with the same id, else the last call; a call whose id is missing gets
 * a generated one, unique within the stream); arguments `""` mean `{}`; calls end when `finish_reason` arrives (or at `[DONE]`), where their
 * arguments are parsed and validated once. `reasoning_content` (or `reasoning`) becomes
 * `thinking_delta` and is sent back per the dialect's `reasoningReplay` and `reasoningWire`
 * (OpenRouter `reasoning_details` items as received, Mistral thinking parts); a tool call's Gemini
 * `thought_signature` goes back on the same call when the dialect says `toolCallSignatures`. Usage
 * comes from the chunk that carries it (with `include_usage`, the final one). The stream itself never throws.
 * A transient error chunk (`server_error`, `rate_limit_exceeded`, `overloaded`, `api_error`, by
 * `type` or `code`) or `finish_reason: insufficient_system_resource` is retried with the same
 * backoff and attempt budget as HTTP 429/503 while nothing of the turn was emitted yet; after
 * output the stream ends with `error` + `done('error')`.
 *
 * Strict servers: when the server answers 400/422 saying the body has a field it does not accept
 * ("Extra inputs are not permitted", "Unrecognized request argument supplied: stream_options",
 * "unknown field", "Unsupported parameter: …"), the request is sent again at once without the
 * optional fields it names (`stream_options`, the dialect's thinking parameters, `temperature`,
 * `reasoning_content` replay; a refused `max_completion_tokens` becomes `max_tokens` and the
 * reverse), or, when it names none, without all of them (`stream_options`, thinking parameters,
 * `max_completion_tokens` → `max_tokens`). The instance remembers this: later calls send the
 * reduced body straight away. The stream where it happened carries one `warning` with code
 * `PROVIDER_FIELDS_DROPPED` (`details.fields`, `details.reason` `named` | `unnamed`,
 * `details.maxTokensField` when the output-limit field changed). Without `stream_options` most
 * servers report no usage.
 *
 * @public
 */
export class OpenAICompatibleProvider implements ModelProvider {
  /** {@inheritDoc ModelProvider.id} */
  readonly id: string;
  /** The API base URL (the dialect's default unless the options name one). */
  readonly baseUrl: string;
  /** The dialect in use. */
  readonly dialect: OpenAIDialect;
  readonly #options: OpenAICompatibleProviderOptions;
  readonly #dispatcher: Dispatcher;
  readonly #url: string;
  /** Optional fields this instance's server refused (learned from 400/422 answers, kept for later calls). */
  readonly #strict: StrictFieldState = newStrictFieldState();

  /** @param options - key, base URL, dialect, timeouts, retries */
  constructor(options: OpenAICompatibleProviderOptions = {}) {
    checkProviderOptions('openai-compatible', options, 'OpenAICompatibleProvider', ['provider']); // `provider` when made by createModelProvider
    this.#options = options;
    this.dialect = typeof options.dialect === 'object' ? options.dialect : OPENAI_DIALECTS[options.dialect ?? 'openai'];
    this.id = `openai-compatible:${this.dialect.name}`;
    this.#dispatcher = createDispatcher(options);
    this.baseUrl = options.baseUrl ?? this.dialect.defaultBaseUrl;
    this.#url = joinApiUrl(this.baseUrl, 'chat/completions');
  }

  /**
   * Builds the JSON body of a Chat Completions request (exposed for inspection and tests), as the
   * next call would send it: without the optional fields this provider's server has refused.
   * @param request - the provider-neutral request
   * @returns the body object, with `stream: true`
   */
  buildBody(request: ModelRequest): Record<string, unknown> {
    return buildOpenAIBody(request, this.#options, this.dialect, new RequestTools(request.tools), this.#strict);
  }

  /** {@inheritDoc ModelProvider.stream} */
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> {
    const options = this.#options;
    return guardStream(
      this.id,
      signal,
      options,
      async function* (this: OpenAICompatibleProvider) {
        const tools = new RequestTools(request.tools);
        const strict = this.#strict;
        let sent = buildOpenAIBody(request, options, this.dialect, tools, strict);
        const thinkingKeys =
          request.thinking && request.thinking !== 'off'
            ? Object.keys(this.dialect.thinkingParams(request.thinking) ?? {})
            : [];
        const dropped: string[] = [];
        const reshape = (status: number, text: string) => {
          const learned = learnRefusedFields(status, text, sent, strict, thinkingKeys);
          if (!learned) return undefined;
          const next = buildOpenAIBody(request, options, this.dialect, tools, strict);
          const nextText = JSON.stringify(next);
          if (nextText === JSON.stringify(sent)) return undefined;
          sent = next;
          for (const f of learned.fields) if (!dropped.includes(f)) dropped.push(f);
          const maxTokensField = strict.maxTokensField;
          const warning: ModelWarning = {
            code: 'PROVIDER_FIELDS_DROPPED',
            message: `${this.id}: the server refused optional request fields (${dropped.join(', ')}); sent again without them, and later calls of this provider leave them out`,
            details: {
              provider: this.id,
              status,
              fields: [...dropped],
              reason: learned.reason,
              ...(maxTokensField !== undefined ? { maxTokensField } : {}),
            },
          };
          return { body: nextText, warning };
        };
        const headers: Record<string, string> = {
          ...options.headers,
          'content-type': 'application/json',
          accept: 'text/event-stream',
        };
        if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
        yield* streamTranslated(
          {
            provider: this.id,
            url: this.#url,
            headers,
            body: JSON.stringify(sent),
            signal,
            dispatcher: this.#dispatcher,
            options,
            secrets: providerSecrets(options),
            reshape,
          },
          () => new OpenAITranslator(tools, this.id, providerSecrets(options)),
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
   * The headers every request of this provider carries besides the body's: the configured `headers`, and
   * `authorization: Bearer <apiKey>` only when a key is given (a local server gets none). Used by the
   * start-up model check (`GET {baseUrl}/models`); never logged.
   * @internal
   */
  requestHeaders(): Record<string, string> {
    const headers: Record<string, string> = { ...this.#options.headers };
    if (this.#options.apiKey) headers.authorization = `Bearer ${this.#options.apiKey}`;
    return headers;
  }

  /** Closes the provider's connection pool (when it owns one). */
  async close(): Promise<void> {
    if (!this.#options.dispatcher) await this.#dispatcher.close();
  }
}

function userContent(content: string | Array<TextPart | ImagePart>): string | Json[] {
  if (typeof content === 'string') return content;
  return content.map((p) =>
    p.type === 'text'
      ? { type: 'text', text: p.text }
      : { type: 'image_url', image_url: { url: `data:${p.mediaType};base64,${p.data}` } },
  );
}

/**
 * Encodes a request as a Chat Completions body.
 *
 * @remarks
 * Turns of another provider family are translated first (docs/providers.md, "Switching provider family
 * mid-conversation"): thinking parts and tool-call signatures whose `origin` is another provider (dialect)
 * are dropped (`withoutForeignParts`), tool call ids the dialect refuses are remapped in calls and results
 * alike (`remapToolCallIds`, the dialect's `toolCallIds` rule), and images follow `targetAcceptsImages`.
 * @param request - the provider-neutral request
 * @param options - provider settings (images, default output limit)
 * @param dialect - the server family
 * @param tools - the request's tools
 * @param strict - optional fields the server refused (left out, output-limit field moved)
 * @returns the body object, with `stream: true`
 * @internal
 */
export function buildOpenAIBody(
  request: ModelRequest,
  options: OpenAICompatibleProviderOptions,
  dialect: OpenAIDialect,
  tools: RequestTools,
  strict?: StrictFieldState,
): Json {
  const supportsImages = targetAcceptsImages(request.model, options.supportsImages);
  const target = {
    provider: `openai-compatible:${dialect.name}`,
    model: request.model,
    family: 'openai-compatible',
  } as const;
  const normalized = normalizeConversation(withoutForeignParts(request.messages, target), { supportsImages });
  const system = normalized.system;
  const messages = remapToolCallIds(normalized.messages, dialect.toolCallIds ?? 'openai');
  const wire: Json[] = [];
  if (system !== '') wire.push({ role: 'system', content: system });
  const replayed = replayedReasoning(messages, strict?.noReasoningReplay ? 'none' : dialect.reasoningReplay);
  let pendingImages: Json[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    wire.push({
      role: 'user',
      content: [{ type: 'text', text: 'Images returned by the tool calls above:' }, ...pendingImages],
    });
    pendingImages = [];
  };
  messages.forEach((m, i) => {
    if (m.role !== 'tool') flushImages();
    if (m.role === 'user') wire.push({ role: 'user', content: userContent(m.content) });
    else if (m.role === 'tool') {
      let text =
        typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
      if (typeof m.content !== 'string') {
        for (const p of m.content)
          if (p.type === 'image')
            pendingImages.push({ type: 'image_url', image_url: { url: `data:${p.mediaType};base64,${p.data}` } });
      }
      if (m.status === 'error') text = `error: ${text}`;
      wire.push({ role: 'tool', tool_call_id: m.toolCallId, content: text });
    } else wire.push(encodeAssistantMessage(m, dialect, tools.names, replayed.has(i)));
  });
  flushImages();
  const body: Json = { model: request.model, messages: wire, stream: true };
  if (dialect.includeUsage) body.stream_options = { include_usage: true };
  const maxTokens = request.maxTokens ?? options.defaultMaxTokens;
  if (maxTokens !== undefined) body[dialect.maxTokensField] = maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.thinking && request.thinking !== 'off') Object.assign(body, dialect.thinkingParams(request.thinking));
  if (tools.tools.length > 0) {
    body.tools = tools.tools.map((t) => ({
      type: 'function',
      function: { name: tools.names.toWire(t.name), description: t.description, parameters: t.inputSchema },
    }));
  }
  return strict ? applyStrictFields(body, dialect.maxTokensField, strict) : body;
}
