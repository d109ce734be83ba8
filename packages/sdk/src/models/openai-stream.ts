// Translation of an OpenAI-compatible Chat Completions stream (`chat.completion.chunk` objects,
// then `data: [DONE]`) into normalized events.
// Wire format: OpenAI API reference, "Chat Completions: streaming".
import { ProviderProtocolError, ProviderUnavailableError } from './errors';
import { streamError } from './http';
import type { SseEvent } from './sse';
import type { SseTranslator } from './sse-translator';
import type { RequestTools } from './tools';
import type { ModelEvent, ModelUsage, StopReason } from './types';

type Json = Record<string, unknown>;

const finishReasons: Record<string, StopReason> = {
  stop: 'end_turn',
  eos: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

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

/** A tool call being assembled from fragments. */
interface CallState {
  index: number;
  id: string;
  name: string;
  args: string;
  started: boolean;
}

/**
 * Translates the SSE events of one Chat Completions stream into normalized events.
 *
 * @remarks
 * `reasoning_content` (or `reasoning`) becomes `thinking_delta`; `content` and `refusal` become
 * `text_delta`. Tool calls are assembled by `index` from fragments (a fragment without `index`
 * continues the call with the same id, else the last call; a call whose id is missing gets a
 * generated one); `tool_call_start` is emitted once the name is known, and every call ends
 * (arguments parsed and validated once) when `finish_reason` arrives or at `[DONE]`. Usage comes
 * from the chunk that carries it. A stream that ends after a `finish_reason` but without
 * `[DONE]` is accepted.
 *
 * @internal
 */
export class OpenAITranslator implements SseTranslator {
  readonly #tools: RequestTools;
  readonly #provider: string;
  readonly #secrets: ReadonlyArray<string | undefined>;
  readonly #calls: CallState[] = [];
  #usage: ModelUsage | undefined;
  #finish: string | undefined;
  #callsEnded = false;
  #generatedIds = 0;

  /**
   * @param tools - the request's tools (name mapping and schemas)
   * @param provider - provider id for error details
   * @param secrets - keys to redact from in-stream error messages
   */
  constructor(tools: RequestTools, provider = 'openai-compatible', secrets: ReadonlyArray<string | undefined> = []) {
    this.#tools = tools;
    this.#provider = provider;
    this.#secrets = secrets;
  }

  /** {@inheritDoc SseTranslator.push} */
  push(sse: SseEvent, out: ModelEvent[]): boolean {
    if (sse.data === '[DONE]') {
      this.#finishStream(out);
      return true;
    }
    this.#chunk(this.#payload(sse.data), out);
    return false;
  }

  /** {@inheritDoc SseTranslator.end} */
  end(out: ModelEvent[]): void {
    if (this.#finish === undefined) {
      throw new ProviderProtocolError(`${this.#provider}: the stream ended before a finish_reason or [DONE]`, { provider: this.#provider });
    }
    this.#finishStream(out);
  }

  #payload(data: string): Json {
    try {
      return JSON.parse(data) as Json;
    } catch {
      throw new ProviderProtocolError(`${this.#provider}: unparsable chunk`, { provider: this.#provider });
    }
  }

  #chunk(chunk: Json, out: ModelEvent[]): void {
    const err = chunk.error as Json | undefined;
    if (err && typeof err === 'object') {
      throw streamError(this.#provider, String(err.type ?? err.code ?? 'api_error'), String(err.message ?? 'stream error'), this.#secrets);
    }
    if (chunk.usage && typeof chunk.usage === 'object') this.#usage = readUsage(chunk.usage as Json);
    const choice = (chunk.choices as Json[] | undefined)?.[0];
    if (!choice) return;
    const delta = (choice.delta ?? {}) as Json;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string' && reasoning !== '') out.push({ type: 'thinking_delta', thinking: reasoning });
    if (typeof delta.content === 'string' && delta.content !== '') out.push({ type: 'text_delta', text: delta.content });
    if (typeof delta.refusal === 'string' && delta.refusal !== '') out.push({ type: 'text_delta', text: delta.refusal });
    const toolCalls = delta.tool_calls as Json[] | undefined;
    if (Array.isArray(toolCalls)) for (let k = 0; k < toolCalls.length; k++) this.#toolCallFragment(toolCalls[k]!, out);
    if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') {
      this.#finish = choice.finish_reason;
      this.#endCalls(out);
    }
  }

  #toolCallFragment(tc: Json, out: ModelEvent[]): void {
    const fn = (tc.function ?? {}) as Json;
    const call = this.#callFor(tc);
    if (call.name === '' && typeof fn.name === 'string') call.name = fn.name;
    const piece = typeof fn.arguments === 'string' ? fn.arguments : fn.arguments !== undefined && fn.arguments !== null ? JSON.stringify(fn.arguments) : '';
    if (!call.started && call.name !== '') this.#startCall(call, out);
    if (piece !== '') {
      call.args += piece;
      if (call.started) out.push({ type: 'tool_call_delta', id: call.id, argumentsDelta: piece });
    }
  }

  /** The call a fragment continues, or a new one (kept sorted by index). */
  #callFor(tc: Json): CallState {
    const calls = this.#calls;
    const tcId = typeof tc.id === 'string' && tc.id !== '' ? tc.id : undefined;
    let call: CallState | undefined;
    if (typeof tc.index === 'number') call = calls.find((c) => c.index === tc.index);
    else if (tcId) call = calls.find((c) => c.id === tcId);
    else call = calls[calls.length - 1];
    if (call) return call;
    const index = typeof tc.index === 'number' ? tc.index : calls.length;
    call = { index, id: tcId ?? `call_${index}_${++this.#generatedIds}`, name: '', args: '', started: false };
    calls.push(call);
    calls.sort((a, b) => a.index - b.index);
    return call;
  }

  /** Emits `tool_call_start`, plus the arguments received before the name, if any. */
  #startCall(call: CallState, out: ModelEvent[]): void {
    call.started = true;
    out.push({ type: 'tool_call_start', id: call.id, name: this.#tools.idOf(call.name) });
    if (call.args !== '') out.push({ type: 'tool_call_delta', id: call.id, argumentsDelta: call.args });
  }

  #endCalls(out: ModelEvent[]): void {
    if (this.#callsEnded) return;
    this.#callsEnded = true;
    for (const call of this.#calls) {
      if (!call.started) this.#startCall(call, out);
      out.push(this.#tools.end(call.id, call.name, call.args));
    }
  }

  #finishStream(out: ModelEvent[]): void {
    if (this.#finish === 'insufficient_system_resource') {
      throw new ProviderUnavailableError(`${this.#provider}: the server stopped the response (insufficient_system_resource)`, { provider: this.#provider, inStream: true });
    }
    this.#endCalls(out);
    if (this.#usage) out.push({ type: 'usage', usage: this.#usage });
    let stop = this.#finish ? (finishReasons[this.#finish] ?? 'end_turn') : 'end_turn';
    if (stop === 'end_turn' && this.#calls.length > 0) stop = 'tool_use'; // servers that say "stop" after tool calls
    out.push({ type: 'done', stopReason: stop });
  }
}
