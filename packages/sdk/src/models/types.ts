// The ModelProvider port: the provider-neutral conversation, the request, and the closed union of
// normalized stream events. Dependency-free on purpose (no undici, no typebox): providers,
// the scripted model and the runtime all meet here.

/**
 * Why a model turn ended, normalized across providers.
 *
 * - `end_turn`: the model finished (Anthropic `end_turn`/`stop_sequence`, OpenAI `stop`).
 * - `tool_use`: the model wants tool results (Anthropic `tool_use`, OpenAI `tool_calls`/`function_call`).
 * - `max_tokens`: the output limit cut the turn (Anthropic `max_tokens`, OpenAI `length`).
 * - `refusal`: the provider refused or filtered (Anthropic `refusal`, OpenAI `content_filter`).
 * - `aborted`: the caller's `AbortSignal` fired.
 * - `error`: the call failed; an `error` event precedes the `done` event.
 *
 * @public
 */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'aborted' | 'error';

/**
 * Token counts of one model call, in tokens.
 *
 * @remarks
 * `inputTokens` counts uncached input only on Anthropic (its `input_tokens`) and all prompt tokens
 * minus cached ones on OpenAI-compatible servers, so that
 * `inputTokens + cacheReadTokens + cacheWriteTokens` is the whole prompt on both.
 *
 * @public
 */
export interface ModelUsage {
  /** Prompt tokens billed at the normal input price. */
  inputTokens: number;
  /** Completion tokens (including reasoning tokens). */
  outputTokens: number;
  /** Prompt tokens read from the provider's prompt cache. */
  cacheReadTokens: number;
  /** Prompt tokens written to the provider's prompt cache. */
  cacheWriteTokens: number;
  /** Reasoning tokens inside `outputTokens`, when the provider reports them. */
  reasoningTokens?: number;
}

/**
 * A tool the model may call: a capability, described by its JSON Schema input.
 *
 * @public
 */
export interface ModelTool {
  /** Capability id, e.g. `download.submit`; providers map it to a wire-safe name and back. */
  name: string;
  /**
   * `'function'` (or absent): a client-side function whose calls the runtime executes. Any other value
   * marks a provider-native (hosted) tool, e.g. Anthropic's `web_search_20250305`, that a custom provider
   * forwards and the provider runs itself; the built-in providers send function tools only. The runtime
   * cannot constrain what a hosted tool does, so background learning reviews skip a conversation whose
   * request carries one.
   */
  type?: string;
  /** What the tool does, for the model. */
  description: string;
  /**
   * JSON Schema of the input as sent to the provider (TypeBox schemas are JSON Schema); arguments are
   * validated against it at `tool_call_end` unless `validationSchema` is given.
   */
  inputSchema: Record<string, unknown>;
  /**
   * The schema arguments are validated against at `tool_call_end` when it differs from what the
   * provider is sent (never sent itself, not counted as tool tokens): capability tools whose input schema
   * was rewritten for the providers (see `checkProviderSchema`) carry their original input schema here.
   * Default: `inputSchema`.
   */
  validationSchema?: Record<string, unknown>;
}

/** Plain text in a message. @public */
export interface TextPart {
  /** Discriminator. */
  type: 'text';
  /** The text. */
  text: string;
}

/**
 * A base64 image (user messages and tool results).
 *
 * @public
 */
export interface ImagePart {
  /** Discriminator. */
  type: 'image';
  /** MIME type such as `image/png` or `image/jpeg`. */
  mediaType: string;
  /** Base64 bytes, without a `data:` prefix. */
  data: string;
}

/**
 * Model reasoning. Kept verbatim and sent back on the next turn: Anthropic rejects a tool-use turn
 * whose thinking block was dropped or altered (its `signature` covers the text).
 *
 * @public
 */
export interface ThinkingPart {
  /** Discriminator. */
  type: 'thinking';
  /** The reasoning text (empty for a redacted block). */
  thinking: string;
  /** Anthropic's opaque signature over the block; absent for OpenAI-compatible `reasoning_content`. */
  signature?: string;
  /** Anthropic `redacted_thinking` payload (opaque, encrypted); sent back unchanged. */
  redacted?: string;
  /**
   * OpenRouter `reasoning_details` items of this turn, exactly as received (in arrival order, never
   * merged or edited): the `openrouter` dialect sends them back as the assistant message's
   * `reasoning_details`, which OpenRouter requires unmodified (they carry signatures and encrypted
   * reasoning, e.g. Gemini's thought signatures). Source: OpenRouter docs "Reasoning Tokens",
   * section "Preserving reasoning blocks" (https://openrouter.ai/docs/use-cases/reasoning-tokens).
   */
  details?: Array<Record<string, unknown>>;
  /**
   * Who produced this part: the provider's id (`ModelProvider.id`, e.g. `anthropic`,
   * `openai-compatible:deepseek`) and the model id the request named. Set by the runtime when the turn
   * is assembled. Providers use it to decide whether the part may go back to them (see the translation
   * rules in docs/providers.md, "Switching provider family mid-conversation"): an Anthropic signature only
   * to Anthropic and the same model, reasoning of an OpenAI-compatible server only to the same dialect.
   * Absent on parts stored before origins were recorded (and on parts built by hand): such a part is
   * treated as the requested provider's own, as before, so a stored conversation keeps working.
   */
  origin?: PartOrigin;
}

/**
 * The provider and model that produced a thinking part or a tool call's signature.
 *
 * @public
 */
export interface PartOrigin {
  /** The producing provider's id (`ModelProvider.id`), e.g. `anthropic`, `openai-compatible:gemini`. */
  provider: string;
  /** The model id the request named, e.g. `claude-sonnet-4-5`. */
  model: string;
}

/**
 * A tool call made by the model, after its arguments were parsed and validated.
 *
 * @public
 */
export interface ToolCallPart {
  /** Discriminator. */
  type: 'tool_call';
  /**
   * Call id, unique within the run's conversation: the runtime assigns it when the turn arrives
   * (servers reuse ids across turns or send none), and tool results refer to it.
   */
  id: string;
  /** The id the server sent for this call, when it differs from {@link ToolCallPart.id} (kept for diagnostics). */
  providerId?: string;
  /** Capability id (already mapped back from the wire name). */
  name: string;
  /** Parsed arguments (`{}` when the model sent none or they were invalid). */
  input: unknown;
  /** The raw argument JSON as streamed, kept so an invalid call can be sent back verbatim. */
  rawArguments?: string;
  /**
   * Opaque signature the server attached to this call (Gemini's `thought_signature`, received on the
   * tool call as `extra_content.google.thought_signature` by its OpenAI-compatible endpoint), sent
   * back on the same call unchanged. Gemini 3 refuses a function call of the current turn without
   * it (400). Source: Gemini API docs "Thought signatures"
   * (https://ai.google.dev/gemini-api/docs/thought-signatures).
   */
  signature?: string;
  /**
   * Who produced {@link ToolCallPart.signature} (set by the runtime with the signature): the signature
   * goes back only to the same provider (dialect). Absent: treated as the requested provider's own.
   */
  origin?: PartOrigin;
}

/** The system prompt, as layers joined in order (base, host, run, …). @public */
export interface SystemMessage {
  /** Discriminator. */
  role: 'system';
  /** Text of this layer. */
  content: string;
}

/** A user (or steering) message. @public */
export interface UserMessage {
  /** Discriminator. */
  role: 'user';
  /** Plain text or text and image parts. */
  content: string | Array<TextPart | ImagePart>;
}

/** One model turn. @public */
export interface AssistantMessage {
  /** Discriminator. */
  role: 'assistant';
  /** Parts in the order the model produced them. */
  content: Array<TextPart | ThinkingPart | ToolCallPart>;
  /** Why the turn ended (absent on messages built by hand). */
  stopReason?: StopReason;
}

/**
 * Outcome of one tool call, sent back to the model.
 *
 * - `ok`: the capability ran and returned `content`;
 * - `error`: it failed, was denied or its arguments were invalid (`content` says why);
 * - `unknown`: the outcome is not known (abort, crash, lost transport): verify before retrying.
 *
 * @public
 */
export type ToolResultStatus = 'ok' | 'error' | 'unknown';

/** The result of one tool call. @public */
export interface ToolResultMessage {
  /** Discriminator. */
  role: 'tool';
  /** The `ToolCallPart.id` this answers. */
  toolCallId: string;
  /** Capability id of the call. */
  name: string;
  /** `ok`, `error`, or `unknown` (a side effect may have happened: the model must verify before retrying). */
  status: ToolResultStatus;
  /** Text (usually JSON) for the model, plus images where the model accepts them. */
  content: string | Array<TextPart | ImagePart>;
}

/**
 * The provider-neutral conversation message.
 *
 * @public
 */
export type ModelMessage = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage;

/**
 * Reasoning effort for models that think: `off`, or a level that providers map to their own
 * knob (Anthropic `thinking.budget_tokens`, OpenAI `reasoning_effort`).
 *
 * @public
 */
export type ThinkingLevel = 'off' | 'low' | 'medium' | 'high';

/**
 * One model call.
 *
 * @public
 */
export interface ModelRequest {
  /** Provider model id, e.g. `claude-sonnet-4-5` or `gpt-4.1`. */
  model: string;
  /** The conversation; system messages anywhere are layered into one system prompt, in order. */
  messages: ModelMessage[];
  /** Tools the model may call (omit or empty for none). */
  tools?: ModelTool[];
  /** Output limit in tokens (default per provider). */
  maxTokens?: number;
  /** Sampling temperature (provider default when omitted). */
  temperature?: number;
  /** Reasoning effort (default `off`). */
  thinking?: ThinkingLevel;
}

/**
 * The reason a tool call's arguments were refused at `tool_call_end`.
 *
 * @public
 */
export interface ToolCallFailure {
  /** `TOOL_ARGS_MALFORMED` (not JSON / not an object) or `TOOL_ARGS_INVALID` (fails the schema) or `TOOL_UNKNOWN`. */
  code: 'TOOL_ARGS_MALFORMED' | 'TOOL_ARGS_INVALID' | 'TOOL_UNKNOWN';
  /** Human- and model-readable reason, e.g. `/query: must be string`. */
  message: string;
}

/**
 * Something a provider sent that the translator did not understand or had to repair, reported
 * instead of being dropped silently (e.g. a `delta` shape it does not know, a retry of a request
 * without optional fields the server refused).
 *
 * @public
 */
export interface ModelWarning {
  /** Stable code, e.g. `PROVIDER_DELTA_UNKNOWN`, `PROVIDER_FIELDS_DROPPED`, `PROVIDER_RETRY_AFTER_CAPPED`. */
  code: string;
  /** Human-readable explanation (never contains a key). */
  message: string;
  /** Structured facts (provider, field names, the unknown shape's keys …). */
  details?: Record<string, unknown>;
}

/**
 * The closed union of normalized stream events.
 *
 * @remarks
 * Order: any number of `text_delta` / `thinking_delta` / tool call triples
 * (`tool_call_start`, `tool_call_delta`…, `tool_call_end`), `usage` (possibly more than once, each
 * one cumulative for the call), then exactly one `done`. An `error` event is always followed by
 * `done` with stop reason `error`. Streams never throw for provider failures; they end with
 * `error` + `done`.
 *
 * @public
 */
export type ModelEvent =
  | { type: 'text_delta'; text: string }
  | {
      type: 'thinking_delta';
      thinking: string;
      signature?: string;
      redacted?: string;
      /**
       * True on the first delta of a new reasoning block (an Anthropic `thinking` or `redacted_thinking`
       * content block): it opens a new {@link ThinkingPart} instead of continuing the previous one, so
       * each block keeps its own text and signature. Absent: the delta continues the current thinking
       * part, unless that part is redacted or already signed (a signature closes a block).
       */
      start?: boolean;
      /** OpenRouter `reasoning_details` items of this chunk, as received (see {@link ThinkingPart.details}). */
      details?: Array<Record<string, unknown>>;
    }
  | { type: 'tool_call_start'; id: string; name: string }
  | { type: 'tool_call_delta'; id: string; argumentsDelta: string }
  | ({
      type: 'tool_call_end';
      id: string;
      name: string;
      rawArguments: string;
      /** The call's opaque signature, when the server sent one (see {@link ToolCallPart.signature}). */
      signature?: string;
    } & ({ ok: true; input: unknown } | { ok: false; input: Record<string, never>; failure: ToolCallFailure }))
  | { type: 'usage'; usage: ModelUsage }
  | { type: 'warning'; warning: ModelWarning }
  | { type: 'done'; stopReason: StopReason }
  | { type: 'error'; error: Error & { code?: string } };

/**
 * What a provider's server said about one response, as sent (not normalized): the runtime records it on
 * the model call's trace span (`gen_ai.response.id`, `gen_ai.response.model`, `gen_ai.response.finish_reasons`).
 * A provider attaches it to its `done` event with `attachResponseInfo`.
 *
 * @public
 */
export interface ModelResponseInfo {
  /** The response id the server gave (e.g. Anthropic `msg_…`, OpenAI `chatcmpl-…`). */
  id?: string;
  /** The model that answered, as the server named it. */
  model?: string;
  /** The finish reason as the server sent it (e.g. `end_turn`, `tool_use`, `stop`, `tool_calls`, `length`). */
  finishReason?: string;
}

/**
 * The port every model provider implements: one streaming model call.
 *
 * @remarks
 * Kept small and dependency-free, like Vercel AI's provider package. Implementations must stop
 * network activity promptly when `signal` aborts and end with `done` / `aborted`.
 *
 * @public
 */
export interface ModelProvider {
  /** Provider id for logs and cost tables, e.g. `anthropic`, `openai-compatible:deepseek`, `scripted`. */
  readonly id: string;
  /**
   * The API base URL the provider calls, when it calls one (traces record its host and port as
   * `server.address` / `server.port`). Optional: a custom provider may leave it out.
   */
  readonly baseUrl?: string;
  /**
   * Streams one model call.
   * @param request - model, messages and tools
   * @param signal - aborts the call; the stream then ends with `done` / `aborted`
   * @returns normalized events, ending with exactly one `done`
   */
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent>;
}
