// Translation of an Anthropic Messages stream into normalized events.
// Wire format: https://docs.anthropic.com/en/api/messages-streaming (event types message_start,
// content_block_start/delta/stop, message_delta, message_stop, ping, error).
import { ProviderProtocolError } from './errors';
import { streamError } from './http';
import type { SseEvent } from './sse';
import type { SseTranslator } from './sse-translator';
import type { RequestTools } from './tools';
import type { ModelEvent, ModelUsage, StopReason } from './types';

type Json = Record<string, unknown>;

/** A content block opened by `content_block_start` and not yet stopped. */
interface OpenBlock {
  kind: string;
  id: string;
  name: string;
  args: string;
}

const stopReasons: Record<string, StopReason> = {
  end_turn: 'end_turn',
  stop_sequence: 'end_turn',
  pause_turn: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'max_tokens',
  refusal: 'refusal',
};

function usageFrom(u: Json | undefined, into: ModelUsage): void {
  if (!u) return;
  if (typeof u.input_tokens === 'number') into.inputTokens = u.input_tokens;
  if (typeof u.output_tokens === 'number') into.outputTokens = u.output_tokens;
  if (typeof u.cache_read_input_tokens === 'number') into.cacheReadTokens = u.cache_read_input_tokens;
  if (typeof u.cache_creation_input_tokens === 'number') into.cacheWriteTokens = u.cache_creation_input_tokens;
}

/**
 * Translates the SSE events of one Anthropic Messages stream into normalized events.
 *
 * @remarks
 * Text, thinking, signature and redacted-thinking content becomes `text_delta` / `thinking_delta`;
 * a `tool_use` block becomes `tool_call_start`, one `tool_call_delta` per `input_json_delta`, and
 * `tool_call_end` (arguments parsed and validated once) at its `content_block_stop`; usage is
 * merged from `message_start` and `message_delta`; `message_stop` ends the stream with `usage`
 * and `done`. `ping`, unknown event types and unknown delta types are ignored.
 *
 * @internal
 */
export class AnthropicTranslator implements SseTranslator {
  readonly #tools: RequestTools;
  readonly #provider: string;
  readonly #secrets: ReadonlyArray<string | undefined>;
  readonly #usage: ModelUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  readonly #blocks = new Map<number, OpenBlock>();
  #stop: StopReason = 'end_turn';

  /**
   * @param tools - the request's tools (name mapping and schemas)
   * @param provider - provider id for error details
   * @param secrets - keys to redact from in-stream error messages
   */
  constructor(tools: RequestTools, provider = 'anthropic', secrets: ReadonlyArray<string | undefined> = []) {
    this.#tools = tools;
    this.#provider = provider;
    this.#secrets = secrets;
  }

  /** {@inheritDoc SseTranslator.push} */
  push(sse: SseEvent, out: ModelEvent[]): boolean {
    const ev = this.#payload(sse);
    switch (ev.type) {
      case 'message_start':
        usageFrom((ev.message as Json | undefined)?.usage as Json | undefined, this.#usage);
        return false;
      case 'content_block_start':
        this.#blockStart(ev.index as number, ev.content_block as Json, out);
        return false;
      case 'content_block_delta':
        this.#blockDelta(ev.index as number, ev.delta as Json, out);
        return false;
      case 'content_block_stop':
        this.#blockStop(ev.index as number, out);
        return false;
      case 'message_delta':
        this.#messageDelta(ev);
        return false;
      case 'message_stop':
        out.push({ type: 'usage', usage: { ...this.#usage } }, { type: 'done', stopReason: this.#stop });
        return true;
      case 'error': {
        const e = (ev.error as Json | undefined) ?? {};
        throw streamError(this.#provider, String(e.type ?? 'api_error'), String(e.message ?? 'stream error'), this.#secrets);
      }
      default:
        return false; // ping and unknown event types are ignored, as the API versioning policy asks
    }
  }

  /** {@inheritDoc SseTranslator.end} */
  end(): void {
    throw new ProviderProtocolError(`${this.#provider}: the stream ended before message_stop`, { provider: this.#provider });
  }

  #payload(sse: SseEvent): Json {
    try {
      return JSON.parse(sse.data) as Json;
    } catch {
      throw new ProviderProtocolError(`${this.#provider}: unparsable event payload`, { provider: this.#provider, event: sse.event });
    }
  }

  #blockStart(index: number, block: Json, out: ModelEvent[]): void {
    const kind = String(block.type);
    if (kind === 'tool_use') {
      const id = String(block.id);
      const wireName = String(block.name);
      this.#blocks.set(index, { kind, id, name: wireName, args: '' });
      out.push({ type: 'tool_call_start', id, name: this.#tools.idOf(wireName) });
      return;
    }
    this.#blocks.set(index, { kind, id: '', name: '', args: '' });
    if (kind === 'text' && typeof block.text === 'string' && block.text !== '') out.push({ type: 'text_delta', text: block.text });
    else if (kind === 'thinking' && typeof block.thinking === 'string' && block.thinking !== '') out.push({ type: 'thinking_delta', thinking: block.thinking });
    else if (kind === 'redacted_thinking') out.push({ type: 'thinking_delta', thinking: '', redacted: String(block.data ?? '') });
  }

  #blockDelta(index: number, delta: Json, out: ModelEvent[]): void {
    switch (delta.type) {
      case 'text_delta':
        if (delta.text) out.push({ type: 'text_delta', text: delta.text as string });
        break;
      case 'thinking_delta':
        if (delta.thinking) out.push({ type: 'thinking_delta', thinking: delta.thinking as string });
        break;
      case 'signature_delta':
        out.push({ type: 'thinking_delta', thinking: '', signature: delta.signature as string });
        break;
      case 'input_json_delta': {
        const block = this.#blocks.get(index);
        const part = delta.partial_json as string;
        if (block && part) {
          block.args += part;
          out.push({ type: 'tool_call_delta', id: block.id, argumentsDelta: part });
        }
        break;
      }
      default:
        break; // citations_delta and future delta types carry nothing we normalize
    }
  }

  #blockStop(index: number, out: ModelEvent[]): void {
    const block = this.#blocks.get(index);
    if (block?.kind === 'tool_use') out.push(this.#tools.end(block.id, block.name, block.args));
    this.#blocks.delete(index);
  }

  #messageDelta(ev: Json): void {
    const reason = (ev.delta as Json | undefined)?.stop_reason;
    if (typeof reason === 'string') this.#stop = stopReasons[reason] ?? 'end_turn';
    usageFrom(ev.usage as Json | undefined, this.#usage);
  }
}
