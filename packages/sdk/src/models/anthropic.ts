// Anthropic Messages API provider over undici + SSE.
// Wire format: https://docs.anthropic.com/en/api/messages-streaming (event types message_start,
// content_block_start/delta/stop, message_delta, message_stop, ping, error).
import type { Dispatcher } from 'undici';
import { normalizeConversation } from './conversation';
import { ProviderProtocolError } from './errors';
import { createDispatcher, guardStream, joinApiUrl, openStream, streamError, type HttpProviderOptions } from './http';
import { readSseBatches, type SseEvent } from './sse';
import { RequestTools } from './tools';
import type { ModelEvent, ModelProvider, ModelRequest, ModelUsage, StopReason, TextPart, ImagePart, ThinkingLevel } from './types';

/**
 * Settings of {@link AnthropicProvider}.
 *
 * @public
 */
export interface AnthropicProviderOptions extends HttpProviderOptions {
  /** API key, sent as `x-api-key`; never logged or put in errors. */
  apiKey: string;
  /** Server root without `/v1` (default `https://api.anthropic.com`); a trailing `/v1` is tolerated. */
  baseUrl?: string;
  /** `anthropic-version` header (default `2023-06-01`). */
  apiVersion?: string;
  /** `anthropic-beta` header values, if any. */
  betas?: string[];
  /** Output limit when the request sets none, in tokens (default 8192). */
  defaultMaxTokens?: number;
  /** Mark the system prompt and tool list with `cache_control: ephemeral` for prompt caching (default true). */
  promptCaching?: boolean;
  /** Whether the model accepts images (default true). */
  supportsImages?: boolean;
}

/**
 * Thinking budget per level, in tokens (`thinking.budget_tokens`; the API minimum is 1024).
 * Source: Anthropic "Building with extended thinking".
 *
 * @public
 */
export const ANTHROPIC_THINKING_BUDGETS: Readonly<Record<Exclude<ThinkingLevel, 'off'>, number>> = { low: 2048, medium: 8192, high: 24576 };

type Json = Record<string, unknown>;

const stopReasons: Record<string, StopReason> = {
  end_turn: 'end_turn',
  stop_sequence: 'end_turn',
  pause_turn: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'max_tokens',
  refusal: 'refusal',
};

/**
 * Streams Anthropic Messages API calls over undici.
 *
 * @remarks
 * Thinking blocks (with their signatures) and redacted thinking blocks are surfaced as
 * `thinking_delta` events and must be sent back verbatim on the next turn; this provider does so
 * for every `thinking` part that carries a signature or redacted payload, and drops unsigned
 * thinking (from another provider), which the API would reject. Capability ids are mapped to
 * wire-safe tool names and back. Errors: see {@link ProviderError} subclasses; the stream itself
 * never throws.
 *
 * @public
 */
export class AnthropicProvider implements ModelProvider {
  /** {@inheritDoc ModelProvider.id} */
  readonly id = 'anthropic';
  readonly #options: AnthropicProviderOptions;
  readonly #dispatcher: Dispatcher;
  readonly #url: string;

  /** @param options - key, base URL, timeouts, retries */
  constructor(options: AnthropicProviderOptions) {
    this.#options = options;
    this.#dispatcher = createDispatcher(options);
    this.#url = joinApiUrl(options.baseUrl ?? 'https://api.anthropic.com', 'messages');
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
    return guardStream(this.id, signal, options, async function* (this: AnthropicProvider) {
      const tools = new RequestTools(request.tools);
      const body = buildAnthropicBody(request, options, tools);
      const headers: Record<string, string> = {
        ...options.headers,
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'x-api-key': options.apiKey,
        'anthropic-version': options.apiVersion ?? '2023-06-01',
      };
      if (options.betas?.length) headers['anthropic-beta'] = options.betas.join(',');
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
        yield* translateAnthropic(readSseBatches(res.body), tools, this.id, [options.apiKey]);
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

function contentBlocks(content: string | Array<TextPart | ImagePart>): Json[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((p) =>
    p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image', source: { type: 'base64', media_type: p.mediaType, data: p.data } },
  );
}

/**
 * Encodes a request as an Anthropic Messages body.
 * @internal
 */
export function buildAnthropicBody(request: ModelRequest, options: AnthropicProviderOptions, tools: RequestTools): Json {
  const { system, messages } = normalizeConversation(request.messages, { supportsImages: options.supportsImages ?? true });
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
      push('user', [{ type: 'tool_result', tool_use_id: m.toolCallId, content, ...(m.status === 'ok' ? {} : { is_error: true }) }]);
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
    body.thinking = { type: 'enabled', budget_tokens: budget };
  } else if (request.temperature !== undefined) body.temperature = request.temperature;
  body.max_tokens = maxTokens;
  if (system !== '') body.system = [{ type: 'text', text: system, ...(caching ? { cache_control: { type: 'ephemeral' } } : {}) }];
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

function usageFrom(u: Json | undefined, into: ModelUsage): void {
  if (!u) return;
  if (typeof u.input_tokens === 'number') into.inputTokens = u.input_tokens;
  if (typeof u.output_tokens === 'number') into.outputTokens = u.output_tokens;
  if (typeof u.cache_read_input_tokens === 'number') into.cacheReadTokens = u.cache_read_input_tokens;
  if (typeof u.cache_creation_input_tokens === 'number') into.cacheWriteTokens = u.cache_creation_input_tokens;
}

/**
 * Translates Anthropic SSE events into normalized events (exposed for the benchmark and tests).
 *
 * @param batches - SSE events of one Messages stream, in batches (see `readSseBatches`)
 * @param tools - the request's tools (name mapping and schemas)
 * @param provider - provider id for error details
 * @internal
 */
export async function* translateAnthropic(
  batches: AsyncIterable<SseEvent[]>,
  tools: RequestTools,
  provider = 'anthropic',
  secrets: ReadonlyArray<string | undefined> = [],
): AsyncGenerator<ModelEvent> {
  const usage: ModelUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  const blocks = new Map<number, { kind: string; id: string; name: string; args: string }>();
  let stop: StopReason = 'end_turn';
  for await (const batch of batches) for (let bi = 0; bi < batch.length; bi++) {
    const sse = batch[bi]!;
    let ev: Json;
    try {
      ev = JSON.parse(sse.data) as Json;
    } catch {
      throw new ProviderProtocolError(`${provider}: unparsable event payload`, { provider, event: sse.event });
    }
    switch (ev.type) {
      case 'message_start':
        usageFrom((ev.message as Json | undefined)?.usage as Json | undefined, usage);
        break;
      case 'content_block_start': {
        const index = ev.index as number;
        const block = ev.content_block as Json;
        const kind = String(block.type);
        if (kind === 'tool_use') {
          const id = String(block.id);
          const wireName = String(block.name);
          blocks.set(index, { kind, id, name: wireName, args: '' });
          yield { type: 'tool_call_start', id, name: tools.idOf(wireName) };
        } else {
          blocks.set(index, { kind, id: '', name: '', args: '' });
          if (kind === 'text' && typeof block.text === 'string' && block.text !== '') yield { type: 'text_delta', text: block.text };
          else if (kind === 'thinking' && typeof block.thinking === 'string' && block.thinking !== '') yield { type: 'thinking_delta', thinking: block.thinking };
          else if (kind === 'redacted_thinking') yield { type: 'thinking_delta', thinking: '', redacted: String(block.data ?? '') };
        }
        break;
      }
      case 'content_block_delta': {
        const delta = ev.delta as Json;
        switch (delta.type) {
          case 'text_delta':
            if (delta.text) yield { type: 'text_delta', text: delta.text as string };
            break;
          case 'thinking_delta':
            if (delta.thinking) yield { type: 'thinking_delta', thinking: delta.thinking as string };
            break;
          case 'signature_delta':
            yield { type: 'thinking_delta', thinking: '', signature: delta.signature as string };
            break;
          case 'input_json_delta': {
            const b = blocks.get(ev.index as number);
            const part = delta.partial_json as string;
            if (b && part) {
              b.args += part;
              yield { type: 'tool_call_delta', id: b.id, argumentsDelta: part };
            }
            break;
          }
          default:
            break; // citations_delta and future delta types carry nothing we normalize
        }
        break;
      }
      case 'content_block_stop': {
        const b = blocks.get(ev.index as number);
        if (b?.kind === 'tool_use') yield tools.end(b.id, b.name, b.args);
        blocks.delete(ev.index as number);
        break;
      }
      case 'message_delta': {
        const reason = (ev.delta as Json | undefined)?.stop_reason;
        if (typeof reason === 'string') stop = stopReasons[reason] ?? 'end_turn';
        usageFrom(ev.usage as Json | undefined, usage);
        break;
      }
      case 'message_stop':
        yield { type: 'usage', usage: { ...usage } };
        yield { type: 'done', stopReason: stop };
        return;
      case 'error': {
        const e = (ev.error as Json | undefined) ?? {};
        throw streamError(provider, String(e.type ?? 'api_error'), String(e.message ?? 'stream error'), secrets);
      }
      default:
        break; // ping and unknown event types are ignored, as the API versioning policy asks
    }
  }
  throw new ProviderProtocolError(`${provider}: the stream ended before message_stop`, { provider });
}
