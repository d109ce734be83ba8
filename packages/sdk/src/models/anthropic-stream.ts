// Translation of an Anthropic Messages stream into normalized events.
// Wire format: https://docs.anthropic.com/en/api/messages-streaming (event types message_start,
// content_block_start/delta/stop, message_delta, message_stop, ping, error).
import { ProviderProtocolError } from './errors';
import { streamError } from './http';
import type { SseEvent } from './sse';
import { UnknownShapes } from './unknown-shapes';
import type { SseTranslator } from './sse-translator';
import type { RequestTools } from './tools';
import { attachResponseInfo } from './response-info';
import type { ModelEvent, ModelResponseInfo, ModelUsage, StopReason } from './types';

type Json = Record<string, unknown>;

/** A content block opened by `content_block_start` and not yet stopped. */
interface OpenBlock {
  kind: string;
  id: string;
  name: string;
  args: string;
  /** A thinking block none of whose deltas was emitted yet: the first one carries `start: true`. */
  fresh: boolean;
  /**
   * A thinking block's signature, held until its `content_block_stop`: the last non-empty one received, from
   * `content_block_start` or a `signature_delta`.
   */
  signature?: string;
  /** Characters of thinking text emitted for a thinking block so far. */
  chars: number;
  /**
   * A `tool_use` block's `input` as `content_block_start` gave it, as JSON, when not empty: the arguments when no
   * `input_json_delta` follows (servers that send the whole input at the start).
   */
  startInput?: string;
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

/**
 * A `content_block_delta` of text, thinking or tool input in the API's compact form, its string made of
 * plain characters and escapes: groups `index`, the delta type with its field name, the string's body.
 */
const COMPACT_DELTA =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a JSON string holds no raw control character; excluding them is the rule
  /^\{"type":"content_block_delta","index":(0|[1-9]\d{0,8}),"delta":\{"type":"(text_delta","text|thinking_delta","thinking|input_json_delta","partial_json)":"((?:[^"\\\u0000-\u001f]|\\.)*)"\}\}$/;
const I = 105; // 'i'
const H = 104; // 'h'

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
 * Text, thinking, signature and redacted-thinking content becomes `text_delta` / `thinking_delta`.
 * Every `thinking` and `redacted_thinking` block stays one block: the first `thinking_delta` emitted
 * for it carries `start: true` (its text, or its signature when its text is empty; a redacted block is
 * one delta with its `data` as `redacted`), and a thinking block's signature is emitted once, as its last
 * delta, at its `content_block_stop` — the last non-empty signature the block received, from a
 * `signature_delta` or from `content_block_start` (gateways that replay a non-streamed response send the
 * whole block, text and signature, there), whatever order its deltas came in. So the assemblers (a
 * signature closes a part) keep each block one part of its own, with its own signature or data, in
 * stream order (the API refuses the next request when blocks come back merged, split or altered;
 * interleaved thinking between tool uses keeps its place the same way). A thinking block that ends with
 * no signature, or only an empty one, is a `warning` with code `PROVIDER_THINKING_UNSIGNED` (`details`:
 * `provider`, block `index`, `thinkingChars`): its text stays an unsigned part, which
 * `buildAnthropicBody` (anthropic.ts) does not send back, since the API refuses a thinking block without its
 * signature (a thinking block left open at `message_stop` is ended there the same way). A
 * `tool_use` block becomes `tool_call_start`, one `tool_call_delta` per `input_json_delta`, and
 * `tool_call_end` (arguments parsed and validated once) at its `content_block_stop` (a block whose
 * `content_block_start` carried a non-empty `input` and no `input_json_delta` followed has that input
 * as its arguments, as the official SDKs read it); usage is
 * merged from `message_start` and `message_delta`; `message_stop` ends the stream with `usage`
 * and `done`; bytes that end before `message_stop` are a cut (`end` throws a `PROVIDER_PROTOCOL` error
 * with `details.streamCut: true`, retried by the stream helper while nothing was emitted). `ping`,
 * `citations_delta` and unknown event types are ignored (the API's versioning
 * policy adds event types); a content block type or delta type the translator does not understand
 * (e.g. a server tool's `server_tool_use` block) becomes a `warning` with code
 * `PROVIDER_DELTA_UNKNOWN`, once per distinct type per stream, `details` naming the type and keys.
 *
 * @internal
 */
export class AnthropicTranslator implements SseTranslator {
  readonly #tools: RequestTools;
  readonly #provider: string;
  readonly #secrets: ReadonlyArray<string | undefined>;
  readonly #usage: ModelUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  /** Response id, model and raw stop reason, as the server sent them. */
  readonly #response: ModelResponseInfo = {};
  readonly #blocks = new Map<number, OpenBlock>();
  #stop: StopReason = 'end_turn';
  #generatedIds = 0;
  /** Unknown shapes already reported on this stream. */
  readonly #unknown: UnknownShapes;

  /**
   * @param tools - the request's tools (name mapping and schemas)
   * @param provider - provider id for error details
   * @param secrets - keys to redact from in-stream error messages
   */
  constructor(tools: RequestTools, provider = 'anthropic', secrets: ReadonlyArray<string | undefined> = []) {
    this.#tools = tools;
    this.#provider = provider;
    this.#unknown = new UnknownShapes(provider);
    this.#secrets = secrets;
  }

  /** {@inheritDoc SseTranslator.partialUsage} */
  partialUsage(): ModelUsage | undefined {
    const u = this.#usage;
    return u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens > 0 ? { ...u } : undefined;
  }

  /** {@inheritDoc SseTranslator.push} */
  push(sse: SseEvent, out: ModelEvent[]): boolean {
    if (this.#delta(sse.data, out)) return false;
    const ev = this.#payload(sse);
    if (typeof ev !== 'object' || ev === null || Array.isArray(ev)) {
      const got = ev === null ? 'null' : Array.isArray(ev) ? 'array' : typeof ev;
      this.#unknown.report(out, `event:${got}`, `an event payload that is not a JSON object (${got})`, {
        event: sse.event,
        valueType: got,
      });
      return false;
    }
    switch (ev.type) {
      case 'message_start': {
        const message = (ev.message as Json | undefined) ?? {};
        usageFrom(message.usage as Json | undefined, this.#usage);
        if (typeof message.id === 'string') this.#response.id = message.id;
        if (typeof message.model === 'string') this.#response.model = message.model;
        return false;
      }
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
        // A thinking block left open (no content_block_stop) still gets its signature or its warning.
        for (const [index, block] of this.#blocks) if (block.kind === 'thinking') this.#thinkingStop(index, block, out);
        this.#blocks.clear();
        out.push(
          { type: 'usage', usage: { ...this.#usage } },
          attachResponseInfo({ type: 'done', stopReason: this.#stop }, this.#response),
        );
        return true;
      case 'error': {
        const e = (ev.error as Json | undefined) ?? {};
        throw streamError(
          this.#provider,
          String(e.type ?? 'api_error'),
          String(e.message ?? 'stream error'),
          this.#secrets,
        );
      }
      default:
        return false; // ping and unknown event types are ignored, as the API versioning policy asks
    }
  }

  /** {@inheritDoc SseTranslator.end} */
  end(): void {
    // Cut short: retried while nothing of the turn was emitted (see `streamCut`).
    throw new ProviderProtocolError(`${this.#provider}: the stream ended before message_stop`, {
      provider: this.#provider,
      streamCut: true,
    });
  }

  /**
   * The fast path for the dominant event, a `content_block_delta` whose delta is text, thinking or tool
   * input, in the API's compact form (`{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"…"}}`):
   * recognized by its fixed text and translated without parsing the object; only the string is decoded,
   * and only when it holds escapes. Anything else (other key order, whitespace, more keys, a string that is
   * not one valid JSON string) returns false and takes the general path, so the result is the same.
   * @returns true when the event was translated here
   */
  #delta(data: string, out: ModelEvent[]): boolean {
    const m = COMPACT_DELTA.exec(data);
    if (m === null) return false;
    let value = m[3]!;
    if (value.includes('\\')) {
      try {
        value = JSON.parse(`"${value}"`) as string; // invalid escapes throw: the general path reports them
      } catch {
        return false;
      }
    }
    const kind = m[2]!;
    if (kind.charCodeAt(0) === I) {
      const block = this.#blocks.get(Number(m[1]));
      if (block?.kind === 'tool_use' && value !== '') {
        block.args += value;
        out.push({ type: 'tool_call_delta', id: block.id, argumentsDelta: value });
      }
    } else if (value !== '') {
      if (kind.charCodeAt(1) === H) this.#thinking(Number(m[1]), { type: 'thinking_delta', thinking: value }, out);
      else out.push({ type: 'text_delta', text: value });
    }
    return true;
  }

  #payload(sse: SseEvent): Json {
    try {
      return JSON.parse(sse.data) as Json;
    } catch {
      throw new ProviderProtocolError(`${this.#provider}: unparsable event payload`, {
        provider: this.#provider,
        event: sse.event,
      });
    }
  }

  #blockStart(index: number, block: Json, out: ModelEvent[]): void {
    if (typeof block !== 'object' || block === null) {
      this.#unknown.report(out, `block:${typeof block}`, 'a content block that is not an object', { blockType: null });
      return;
    }
    const kind = String(block.type);
    if (kind === 'tool_use') {
      const id = typeof block.id === 'string' && block.id !== '' ? block.id : `toolu_${index}_${++this.#generatedIds}`;
      const wireName = typeof block.name === 'string' ? block.name : '';
      const input = block.input;
      const startInput =
        typeof input === 'object' && input !== null && !Array.isArray(input) && Object.keys(input).length > 0
          ? JSON.stringify(input)
          : undefined;
      this.#blocks.set(index, {
        kind,
        id,
        name: wireName,
        args: '',
        fresh: false,
        chars: 0,
        ...(startInput ? { startInput } : {}),
      });
      out.push({ type: 'tool_call_start', id, name: this.#tools.idOf(wireName) });
      return;
    }
    const open: OpenBlock = { kind, id: '', name: '', args: '', fresh: kind === 'thinking', chars: 0 };
    this.#blocks.set(index, open);
    if (kind === 'text') {
      if (typeof block.text === 'string' && block.text !== '') out.push({ type: 'text_delta', text: block.text });
    } else if (kind === 'thinking') {
      // A gateway replaying a non-streamed response sends the whole block here: its text and its signature.
      if (typeof block.signature === 'string' && block.signature !== '') open.signature = block.signature;
      if (typeof block.thinking === 'string' && block.thinking !== '')
        this.#thinking(index, { type: 'thinking_delta', thinking: block.thinking }, out);
    } else if (kind === 'redacted_thinking') {
      if (typeof block.data === 'string')
        out.push({ type: 'thinking_delta', thinking: '', redacted: block.data, start: true });
      else this.#badField(out, 'redacted_thinking', 'data', block.data);
    } else
      this.#unknown.report(out, `block:${kind}`, `a content block of type "${kind}"`, {
        blockType: kind,
        keys: Object.keys(block).sort(),
      });
  }

  /**
   * Emits a delta of the thinking block at `index`, marked `start: true` when it is the block's first
   * emitted delta (a delta of a block that was never opened continues the current part, as before).
   */
  #thinking(index: number, event: Extract<ModelEvent, { type: 'thinking_delta' }>, out: ModelEvent[]): void {
    const block = this.#blocks.get(index);
    if (block) block.chars += event.thinking.length;
    if (block?.fresh) {
      block.fresh = false;
      event.start = true;
    }
    out.push(event);
  }

  /**
   * Ends the thinking block at `index`: emits its signature as its last delta, or, when it has none, a
   * `PROVIDER_THINKING_UNSIGNED` warning (the block stays an unsigned part, which is not sent back).
   */
  #thinkingStop(index: number, block: OpenBlock, out: ModelEvent[]): void {
    if (block.signature !== undefined) {
      this.#thinking(index, { type: 'thinking_delta', thinking: '', signature: block.signature }, out);
      return;
    }
    out.push({
      type: 'warning',
      warning: {
        code: 'PROVIDER_THINKING_UNSIGNED',
        message: `${this.#provider}: thinking block ${index} ended without a signature; it is kept as an unsigned thinking part and not sent back (the API accepts a thinking block only with its signature)`,
        details: { provider: this.#provider, index, thinkingChars: block.chars },
      },
    });
  }

  /** Reports a known block or delta type whose content field has the wrong type. */
  #badField(out: ModelEvent[], type: string, field: string, value: unknown): void {
    const got = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    this.#unknown.report(out, `${type}:${field}:${got}`, `a "${type}" whose ${field} is ${got}`, {
      type,
      field,
      valueType: got,
    });
  }

  #blockDelta(index: number, delta: Json, out: ModelEvent[]): void {
    if (typeof delta !== 'object' || delta === null) {
      this.#unknown.report(out, `delta:${typeof delta}`, `a content block delta that is not an object`, {
        deltaType: null,
      });
      return;
    }
    switch (delta.type) {
      case 'text_delta':
        if (typeof delta.text === 'string') {
          if (delta.text !== '') out.push({ type: 'text_delta', text: delta.text });
        } else this.#badField(out, 'text_delta', 'text', delta.text);
        break;
      case 'thinking_delta':
        if (typeof delta.thinking === 'string') {
          if (delta.thinking !== '') this.#thinking(index, { type: 'thinking_delta', thinking: delta.thinking }, out);
        } else this.#badField(out, 'thinking_delta', 'thinking', delta.thinking);
        break;
      case 'signature_delta': {
        const block = this.#blocks.get(index);
        if (typeof delta.signature !== 'string') this.#badField(out, 'signature_delta', 'signature', delta.signature);
        else if (block?.kind === 'thinking') {
          // Held until the block stops, so it is the block's last delta whatever the order it came in.
          if (delta.signature !== '') block.signature = delta.signature;
        } else this.#thinking(index, { type: 'thinking_delta', thinking: '', signature: delta.signature }, out);
        break;
      }
      case 'input_json_delta': {
        const block = this.#blocks.get(index);
        const part = delta.partial_json;
        if (block?.kind === 'tool_use' && typeof part === 'string' && part !== '') {
          block.args += part;
          out.push({ type: 'tool_call_delta', id: block.id, argumentsDelta: part });
        } // input of a block this translator does not keep (server tools) was reported at its start
        break;
      }
      case 'citations_delta':
        break; // citation metadata for the text block: nothing the normalized stream holds
      default: {
        const type = typeof delta.type === 'string' ? delta.type : '(none)';
        this.#unknown.report(out, `delta:${type}`, `a content block delta of type "${type}"`, {
          deltaType: type,
          keys: Object.keys(delta).sort(),
        });
        break;
      }
    }
  }

  #blockStop(index: number, out: ModelEvent[]): void {
    const block = this.#blocks.get(index);
    if (block?.kind === 'thinking') this.#thinkingStop(index, block, out);
    else if (block?.kind === 'tool_use') {
      // The official SDKs keep the start block's `input` when no input_json_delta replaces it: so does this.
      if (block.args === '' && block.startInput !== undefined) {
        block.args = block.startInput;
        out.push({ type: 'tool_call_delta', id: block.id, argumentsDelta: block.args });
      }
      out.push(this.#tools.end(block.id, block.name, block.args));
    }
    this.#blocks.delete(index);
  }

  #messageDelta(ev: Json): void {
    const reason = (ev.delta as Json | undefined)?.stop_reason;
    if (typeof reason === 'string') {
      this.#stop = stopReasons[reason] ?? 'end_turn';
      this.#response.finishReason = reason;
    }
    usageFrom(ev.usage as Json | undefined, this.#usage);
  }
}
