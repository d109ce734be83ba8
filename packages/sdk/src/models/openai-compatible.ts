// OpenAI-compatible Chat Completions provider over undici + SSE (`data:` chunks, `data: [DONE]`).
// Wire format: OpenAI API reference, "Chat Completions: streaming" (chat.completion.chunk).
import type { Dispatcher } from 'undici';
import { normalizeConversation } from './conversation';
import { ProviderProtocolError, ProviderUnavailableError } from './errors';
import { createDispatcher, guardStream, joinApiUrl, openStream, streamError, type HttpProviderOptions } from './http';
import { OPENAI_DIALECTS, type OpenAIDialect, type OpenAIDialectName } from './openai-dialects';
import { readSseBatches, type SseEvent } from './sse';
import { RequestTools } from './tools';
import type { ImagePart, ModelEvent, ModelProvider, ModelRequest, ModelUsage, StopReason, TextPart } from './types';

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
  /** A built-in dialect name or a custom dialect (default `openai`). */
  dialect?: OpenAIDialectName | OpenAIDialect;
  /** Output limit when the request sets none, in tokens (default: not sent). */
  defaultMaxTokens?: number;
  /** Whether the model accepts images (default true); tool-result images go in a user message after the tool results. */
  supportsImages?: boolean;
}

type Json = Record<string, unknown>;

const finishReasons: Record<string, StopReason> = {
  stop: 'end_turn',
  eos: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

/**
 * Streams Chat Completions calls to OpenAI and compatible servers (DeepSeek, Qwen/DashScope,
 * Ollama, vLLM, llama.cpp server, Groq, Mistral, xAI …) over undici.
 *
 * @remarks
 * Tool calls are assembled by `index` from fragments (a fragment without `index` continues the
 * call with the same id, else the last call; a call whose id is missing gets a generated one);
 * arguments `""` mean `{}`; calls end when `finish_reason` arrives (or at `[DONE]`), where their
 * arguments are parsed and validated once. `reasoning_content` (or `reasoning`) becomes
 * `thinking_delta` and is sent back per the dialect's `reasoningReplay`. Usage comes from the
 * chunk that carries it (with `include_usage`, the final one). The stream itself never throws.
 *
 * @public
 */
export class OpenAICompatibleProvider implements ModelProvider {
  /** {@inheritDoc ModelProvider.id} */
  readonly id: string;
  /** The dialect in use. */
  readonly dialect: OpenAIDialect;
  readonly #options: OpenAICompatibleProviderOptions;
  readonly #dispatcher: Dispatcher;
  readonly #url: string;

  /** @param options - key, base URL, dialect, timeouts, retries */
  constructor(options: OpenAICompatibleProviderOptions = {}) {
    this.#options = options;
    this.dialect = typeof options.dialect === 'object' ? options.dialect : OPENAI_DIALECTS[options.dialect ?? 'openai'];
    this.id = `openai-compatible:${this.dialect.name}`;
    this.#dispatcher = createDispatcher(options);
    this.#url = joinApiUrl(options.baseUrl ?? this.dialect.defaultBaseUrl, 'chat/completions');
  }

  /**
   * Builds the JSON body of a Chat Completions request (exposed for inspection and tests).
   * @param request - the provider-neutral request
   * @returns the body object, with `stream: true`
   */
  buildBody(request: ModelRequest): Record<string, unknown> {
    return buildOpenAIBody(request, this.#options, this.dialect, new RequestTools(request.tools));
  }

  /** {@inheritDoc ModelProvider.stream} */
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> {
    const options = this.#options;
    return guardStream(this.id, signal, options, async function* (this: OpenAICompatibleProvider) {
      const tools = new RequestTools(request.tools);
      const body = buildOpenAIBody(request, options, this.dialect, tools);
      const headers: Record<string, string> = { ...options.headers, 'content-type': 'application/json', accept: 'text/event-stream' };
      if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
      const res = await openStream({
        provider: this.id,
        url: this.#url,
        headers,
        body: JSON.stringify(body),
        signal,
        dispatcher: this.#dispatcher,
        options,
        secrets: [options.apiKey],
      });
      try {
        yield* translateOpenAI(readSseBatches(res.body), tools, this.id, [options.apiKey]);
      } finally {
        if (!res.body.destroyed) res.body.destroy();
      }
    }.bind(this));
  }

  /** Closes the provider's connection pool (when it owns one). */
  async close(): Promise<void> {
    if (!this.#options.dispatcher) await this.#dispatcher.close();
  }
}

function userContent(content: string | Array<TextPart | ImagePart>): string | Json[] {
  if (typeof content === 'string') return content;
  return content.map((p) => (p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image_url', image_url: { url: `data:${p.mediaType};base64,${p.data}` } }));
}

/**
 * Encodes a request as a Chat Completions body.
 * @internal
 */
export function buildOpenAIBody(request: ModelRequest, options: OpenAICompatibleProviderOptions, dialect: OpenAIDialect, tools: RequestTools): Json {
  const supportsImages = options.supportsImages ?? true;
  const { system, messages } = normalizeConversation(request.messages, { supportsImages });
  const wire: Json[] = [];
  if (system !== '') wire.push({ role: 'system', content: system });
  let lastUser = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') lastUser = i;
  });
  let pendingImages: Json[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    wire.push({ role: 'user', content: [{ type: 'text', text: 'Images returned by the tool calls above:' }, ...pendingImages] });
    pendingImages = [];
  };
  messages.forEach((m, i) => {
    if (m.role !== 'tool') flushImages();
    if (m.role === 'user') wire.push({ role: 'user', content: userContent(m.content) });
    else if (m.role === 'tool') {
      let text = typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
      if (typeof m.content !== 'string') {
        for (const p of m.content) if (p.type === 'image') pendingImages.push({ type: 'image_url', image_url: { url: `data:${p.mediaType};base64,${p.data}` } });
      }
      if (m.status === 'error') text = `error: ${text}`;
      wire.push({ role: 'tool', tool_call_id: m.toolCallId, content: text });
    } else {
      const text = m.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
      const reasoning = m.content.map((p) => (p.type === 'thinking' ? p.thinking : '')).join('');
      const calls = m.content.flatMap((p) =>
        p.type === 'tool_call' ? [{ id: p.id, type: 'function', function: { name: tools.names.toWire(p.name), arguments: JSON.stringify(p.input ?? {}) } }] : [],
      );
      const msg: Json = { role: 'assistant', content: text === '' && calls.length > 0 ? null : text };
      if (calls.length > 0) msg.tool_calls = calls;
      const replay = dialect.reasoningReplay === 'all' || (dialect.reasoningReplay === 'current-turn' && i > lastUser);
      if (replay && reasoning !== '') msg.reasoning_content = reasoning;
      wire.push(msg);
    }
  });
  flushImages();
  const body: Json = { model: request.model, messages: wire, stream: true };
  if (dialect.includeUsage) body.stream_options = { include_usage: true };
  const maxTokens = request.maxTokens ?? options.defaultMaxTokens;
  if (maxTokens !== undefined) body[dialect.maxTokensField] = maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.thinking && request.thinking !== 'off') Object.assign(body, dialect.thinkingParams(request.thinking));
  if (tools.tools.length > 0) {
    body.tools = tools.tools.map((t) => ({ type: 'function', function: { name: tools.names.toWire(t.name), description: t.description, parameters: t.inputSchema } }));
  }
  return body;
}

function readUsage(u: Json): ModelUsage {
  const prompt = typeof u.prompt_tokens === 'number' ? u.prompt_tokens : 0;
  const completion = typeof u.completion_tokens === 'number' ? u.completion_tokens : 0;
  const total = typeof u.total_tokens === 'number' ? u.total_tokens : prompt + completion;
  const pd = (u.prompt_tokens_details ?? {}) as Json;
  const cd = (u.completion_tokens_details ?? {}) as Json;
  const cached = typeof pd.cached_tokens === 'number' ? pd.cached_tokens : typeof u.prompt_cache_hit_tokens === 'number' ? u.prompt_cache_hit_tokens : 0;
  const usage: ModelUsage = {
    inputTokens: Math.max(0, prompt - cached),
    // xAI reports reasoning outside completion_tokens (total = prompt + completion + reasoning); OpenAI inside.
    outputTokens: Math.max(completion, total - prompt),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
  if (typeof cd.reasoning_tokens === 'number') usage.reasoningTokens = cd.reasoning_tokens;
  return usage;
}

interface CallState {
  index: number;
  id: string;
  name: string;
  args: string;
  started: boolean;
}

/**
 * Translates Chat Completions chunks into normalized events (exposed for the benchmark and tests).
 *
 * @param batches - SSE events of one streaming response, in batches (see `readSseBatches`)
 * @param tools - the request's tools (name mapping and schemas)
 * @param provider - provider id for error details
 * @param secrets - keys to redact from in-stream error messages
 * @internal
 */
export async function* translateOpenAI(
  batches: AsyncIterable<SseEvent[]>,
  tools: RequestTools,
  provider = 'openai-compatible',
  secrets: ReadonlyArray<string | undefined> = [],
): AsyncGenerator<ModelEvent> {
  let usage: ModelUsage | undefined;
  let finish: string | undefined;
  const calls: CallState[] = [];
  let ended = false;
  let generated = 0;

  function* endCalls(): Generator<ModelEvent> {
    if (ended) return;
    ended = true;
    for (const c of calls) {
      if (!c.started) {
        c.started = true;
        yield { type: 'tool_call_start', id: c.id, name: tools.idOf(c.name) };
        if (c.args !== '') yield { type: 'tool_call_delta', id: c.id, argumentsDelta: c.args };
      }
      yield tools.end(c.id, c.name, c.args);
    }
  }

  function* finishStream(): Generator<ModelEvent> {
    if (finish === 'insufficient_system_resource') {
      throw new ProviderUnavailableError(`${provider}: the server stopped the response (insufficient_system_resource)`, { provider, inStream: true });
    }
    yield* endCalls();
    if (usage) yield { type: 'usage', usage };
    let stop = finish ? (finishReasons[finish] ?? 'end_turn') : 'end_turn';
    if (stop === 'end_turn' && calls.length > 0) stop = 'tool_use'; // servers that say "stop" after tool calls
    yield { type: 'done', stopReason: stop };
  }

  for await (const batch of batches) for (let bi = 0; bi < batch.length; bi++) {
    const data = batch[bi]!.data;
    if (data === '[DONE]') {
      yield* finishStream();
      return;
    }
    let chunk: Json;
    try {
      chunk = JSON.parse(data) as Json;
    } catch {
      throw new ProviderProtocolError(`${provider}: unparsable chunk`, { provider });
    }
    const err = chunk.error as Json | undefined;
    if (err && typeof err === 'object') {
      throw streamError(provider, String(err.type ?? err.code ?? 'api_error'), String(err.message ?? 'stream error'), secrets);
    }
    if (chunk.usage && typeof chunk.usage === 'object') usage = readUsage(chunk.usage as Json);
    const choice = (chunk.choices as Json[] | undefined)?.[0];
    if (!choice) continue;
    const delta = (choice.delta ?? {}) as Json;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string' && reasoning !== '') yield { type: 'thinking_delta', thinking: reasoning };
    if (typeof delta.content === 'string' && delta.content !== '') yield { type: 'text_delta', text: delta.content };
    if (typeof delta.refusal === 'string' && delta.refusal !== '') yield { type: 'text_delta', text: delta.refusal };
    const toolCalls = delta.tool_calls as Json[] | undefined;
    if (Array.isArray(toolCalls)) {
      for (let k = 0; k < toolCalls.length; k++) {
        const tc = toolCalls[k]!;
        const fn = (tc.function ?? {}) as Json;
        const tcId = typeof tc.id === 'string' && tc.id !== '' ? tc.id : undefined;
        let call: CallState | undefined;
        if (typeof tc.index === 'number') call = calls.find((c) => c.index === tc.index);
        else if (tcId) call = calls.find((c) => c.id === tcId);
        else call = calls[calls.length - 1];
        if (!call) {
          const index = typeof tc.index === 'number' ? tc.index : calls.length;
          call = { index, id: tcId ?? `call_${index}_${++generated}`, name: '', args: '', started: false };
          calls.push(call);
          calls.sort((a, b) => a.index - b.index);
        }
        if (call.name === '' && typeof fn.name === 'string') call.name = fn.name;
        const piece = typeof fn.arguments === 'string' ? fn.arguments : fn.arguments !== undefined && fn.arguments !== null ? JSON.stringify(fn.arguments) : '';
        if (!call.started && call.name !== '') {
          call.started = true;
          yield { type: 'tool_call_start', id: call.id, name: tools.idOf(call.name) };
          if (call.args !== '') yield { type: 'tool_call_delta', id: call.id, argumentsDelta: call.args };
        }
        if (piece !== '') {
          call.args += piece;
          if (call.started) yield { type: 'tool_call_delta', id: call.id, argumentsDelta: piece };
        }
      }
    }
    if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') {
      finish = choice.finish_reason;
      yield* endCalls();
    }
  }
  if (finish === undefined) throw new ProviderProtocolError(`${provider}: the stream ended before a finish_reason or [DONE]`, { provider });
  yield* finishStream();
}
