// Translation of an OpenAI-compatible Chat Completions stream (`chat.completion.chunk` objects,
// then `data: [DONE]`) into normalized events.
// Wire format: OpenAI API reference, "Chat Completions: streaming".
import { ProviderProtocolError, ProviderUnavailableError } from './errors';
import { streamError } from './http';
import type { SseEvent } from './sse';
import { UnknownShapes } from './unknown-shapes';
import type { SseTranslator } from './sse-translator';
import type { RequestTools } from './tools';
import { attachResponseInfo } from './response-info';
import type { ModelEvent, ModelResponseInfo, ModelUsage, StopReason } from './types';

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
  const cached =
    typeof pd.cached_tokens === 'number'
      ? pd.cached_tokens
      : typeof u.prompt_cache_hit_tokens === 'number'
        ? u.prompt_cache_hit_tokens
        : 0;
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

/** Delta fields that carry nothing to normalize (metadata) or are read by name in `#delta`. */
const knownDeltaKeys = new Set([
  'role',
  'content',
  'refusal',
  'reasoning_content',
  'reasoning',
  'reasoning_details',
  'tool_calls',
  'function_call',
  'annotations', // url citations (OpenAI web search): metadata, like Anthropic citations
  'name',
  'tool_call_id',
  // Gemini: a thought signature on a text answer (recommended back, not required; not kept). The one
  // on a tool call is read in #toolCallFragment.
  'extra_content',
]);

/** Delta fields carrying reasoning, in order of preference. */
const reasoningFields = ['reasoning_content', 'reasoning', 'reasoning_details'] as const;

/** Part types whose `text` is the text of the field they appear in. */
const textPartTypes = new Set(['text', 'output_text', 'input_text', 'text_delta', 'output_text_delta']);

/** Part types that are reasoning wherever they appear (text under `thinking`, `reasoning`, `text`, `summary` or `content`). */
const reasoningPartTypes = new Set([
  'thinking', // Mistral Magistral: {"type":"thinking","thinking":[{"type":"text","text":"…"}]}
  'reasoning',
  'reasoning_text',
  'reasoning_content',
  'reasoning_summary',
  'summary_text',
  'reasoning.text', // OpenRouter reasoning_details
  'reasoning.summary',
]);

/** Part types that carry nothing the normalized stream can hold and are skipped quietly. */
const ignoredPartTypes = new Set([
  'reference', // Mistral citation references
  'reasoning.encrypted', // OpenRouter: opaque, no text (the item itself rides on `details`, see attachReasoningDetails)
]);

/**
 * Carries OpenRouter `reasoning_details` items, as received, on the stream: on the last
 * `thinking_delta` this delta produced (from index `from` of `out`), else on an empty one (items
 * without text, e.g. `reasoning.encrypted`). Non-object items carry nothing and are skipped.
 */
function attachReasoningDetails(value: unknown, out: ModelEvent[], from: number): void {
  if (!Array.isArray(value)) return;
  const details = value.filter((d): d is Json => typeof d === 'object' && d !== null && !Array.isArray(d));
  if (details.length === 0) return;
  for (let i = out.length - 1; i >= from; i--) {
    const e = out[i]!;
    if (e.type === 'thinking_delta') {
      out[i] = { ...e, details };
      return;
    }
  }
  out.push({ type: 'thinking_delta', thinking: '', details });
}

/** Gemini's signature on a tool-call fragment (`extra_content.google.thought_signature`), if any. */
function thoughtSignatureOf(tc: Json): string | undefined {
  const extra = tc.extra_content as Json | undefined;
  const google = typeof extra === 'object' && extra !== null ? (extra.google as Json | undefined) : undefined;
  const signature = typeof google === 'object' && google !== null ? google.thought_signature : undefined;
  return typeof signature === 'string' && signature !== '' ? signature : undefined;
}

/** A `tool_call_end` event with the call's signature, when it has one. */
function withSignature(
  event: Extract<ModelEvent, { type: 'tool_call_end' }>,
  signature: string | undefined,
): Extract<ModelEvent, { type: 'tool_call_end' }> {
  return signature === undefined ? event : { ...event, signature };
}

/** null, undefined, '', [] and {} carry nothing. */
function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && Object.keys(v as object).length === 0;
}

/** A tool call being assembled from fragments. */
interface CallState {
  /** The `index` the server gave (or the position for index-less fragments). */
  index: number;
  /** Arrival order, to keep calls that share an index in the order they began. */
  seq: number;
  /** The id used in the normalized events (unique within the stream). */
  id: string;
  /** The first id the server sent for this call, if any (fragments repeating it continue this call). */
  wireId: string | undefined;
  /** Other ids the server put on fragments that continued this call (some change the id mid-call). */
  otherIds: string[];
  name: string;
  args: string;
  started: boolean;
  /** Gemini `extra_content.google.thought_signature` of the call, when a fragment carried one. */
  signature?: string;
}

/** Tool-call fragments that arrived after `finish_reason`, for one call (by `index`, else by id). */
interface LateCall {
  index: number | undefined;
  id: string | undefined;
  /** The function name the fragments gave, as on the wire (`''` when none did). */
  name: string;
  /** Their argument text, concatenated. */
  args: string;
}

/** Whether `text` (already concatenated arguments) is one complete JSON object. */
function isCompleteObject(text: string): boolean {
  const t = text.trim();
  if (t.length < 2 || t.charCodeAt(0) !== 123 || t.charCodeAt(t.length - 1) !== 125) return false;
  try {
    const v: unknown = JSON.parse(t);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** Whether an argument fragment opens a new JSON object (`{` after optional whitespace). */
function opensObject(piece: string): boolean {
  return /^\s*\{/.test(piece);
}

/**
 * Whether a tool-call fragment starts a new call instead of continuing `call`, the current call at its
 * index. Only a fragment that names a function does, when `call` is named too and the fragment's id is
 * not one of `call`'s or its name differs (parallel calls sent as whole-call chunks that all say
 * `index: 0`); or any fragment opening a new JSON object once `call`'s arguments already form a complete
 * one (two whole calls glued together could never parse). An id alone never does: some servers put one
 * id on a call's first fragment and another on the rest, or a fresh id on every fragment.
 * @param call - the current call at the fragment's index
 * @param wireId - the fragment's non-empty id, if any
 * @param name - the fragment's function name (`''` when it has none)
 * @param piece - the fragment's argument text
 */
function startsNewCall(call: CallState, wireId: string | undefined, name: string, piece: string): boolean {
  const anotherObject = piece !== '' && opensObject(piece) && isCompleteObject(call.args);
  if (name === '' || call.name === '') return anotherObject;
  if (wireId !== undefined && wireId !== call.wireId && !call.otherIds.includes(wireId)) return true;
  return name !== call.name || anotherObject;
}

/**
 * Translates the SSE events of one Chat Completions stream into normalized events.
 *
 * @remarks
 * `reasoning_content` (or `reasoning`, or OpenRouter `reasoning_details`) becomes
 * `thinking_delta`; OpenRouter's `reasoning_details` items also ride on it as received
 * (`details`), to go back verbatim; a tool call's Gemini `extra_content.google.thought_signature`
 * ends up on its `tool_call_end` (`signature`); `content` and `refusal` become `text_delta`. Each
 * may be a string, one typed part or an array of typed parts (`{"type":"text"|"output_text","text":…}`; reasoning parts such
 * as Mistral Magistral's `{"type":"thinking","thinking":[{"type":"text","text":…}]}` or
 * `{"type":"reasoning","text":…}`), emitted in order; reasoning parts are always thinking, never
 * text. A delta field, part type or shape the translator does not understand becomes a `warning`
 * with code `PROVIDER_DELTA_UNKNOWN` (once per distinct shape per stream, `details` naming the
 * field, part type and keys), so an answer is never dropped silently.
 *
 * Tool calls are assembled by `index` from fragments: a fragment continues the latest call at its
 * `index` under that call's first id, whatever id it carries; only a fragment naming a function starts
 * a new call at the same index (when its id is not one the call had, or its name differs: parallel
 * calls sent as whole-call chunks that all say `index: 0`), and so does any fragment opening a new
 * JSON object after the call's arguments already form a complete one. So a server that puts one id on
 * a call's first fragment and another on the rest, or a fresh id on every fragment, still gives one
 * call. A fragment without `index` continues the latest call that had its id, else the latest call.
 * Ids are unique within the stream: a missing id is generated (`call_<index>_<n>`), an id already used
 * by another call of the stream gets a suffix (`<id>_<n>`). `tool_call_start` is emitted once the name
 * is known, and every call ends (arguments parsed and validated once, in index then arrival order)
 * when `finish_reason` arrives or at `[DONE]`; a call that never got a name is not ended: the stream
 * fails with a `ProviderProtocolError` (`PROVIDER_PROTOCOL`, `details.toolCallId`, `index`,
 * `rawArguments`), so a nameless call is never run, stored or sent back. A tool-call fragment that
 * arrives after `finish_reason` ended the calls is refused: nothing of it is emitted (no
 * `tool_call_start`, `tool_call_delta` or `tool_call_end`), it neither continues an ended call nor starts
 * one, and each such call (its fragments grouped by `index`, else id) is reported once at the end of the
 * stream as a `PROVIDER_TOOL_CALL_LATE` warning (`details.finishReason`, `index`, `id`, `name` as on the
 * wire, `rawArguments`); the calls ended at `finish_reason` stand. So a call the server sent after saying
 * the reply was over never runs. (The openai SDK's `ChatCompletionStream` and vercel/ai's
 * openai-compatible model keep accumulating fragments after `finish_reason` and end calls at the end of
 * the stream; this translator ends them at `finish_reason`, so it refuses what follows rather than run a
 * call that was not part of the reply it ended.)
 *
 * Usage comes from the chunk that carries it. A stream that ends after a `finish_reason` but without
 * `[DONE]` is accepted; one that ends before either is cut (`end` throws a `PROVIDER_PROTOCOL` error
 * with `details.streamCut: true`, which the stream helper retries when nothing was emitted yet).
 * `[DONE]` without a `finish_reason` (none, `null` or `""` on every chunk) after nothing of the reply — no
 * text, reasoning or tool-call fragment — is a cut too (the same error, `details.endedBy: '[DONE]'`),
 * never an empty answer. After some of the reply it is kept as it came (stop reason `end_turn`, or
 * `tool_use` with tool calls; a call whose arguments are not complete JSON still ends
 * `TOOL_ARGS_MALFORMED` and does not run), with a `PROVIDER_FINISH_MISSING` warning
 * (`details.toolCalls`, the number of calls) so the unconfirmed end is visible: some servers and proxies
 * leave `finish_reason` out (BerriAI/liteLLM-proxy#19) or send `""` on every chunk (ollama/ollama#4357).
 * The openai SDK's `ChatCompletionStream` and vercel/ai (vercel/ai#19169) fail such a stream instead.
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
  /** Response id and model, as the first chunk that carried them said. */
  readonly #response: ModelResponseInfo = {};
  #callsEnded = false;
  /** Whether any text, reasoning or tool-call fragment arrived (an empty reply ended by `[DONE]` is a cut). */
  #output = false;
  /** Tool-call fragments that arrived after `finish_reason` ended the calls, by call (refused, reported at the end). */
  readonly #late = new Map<string, LateCall>();
  #generatedIds = 0;
  /** Unknown shapes already reported on this stream. */
  readonly #unknown: UnknownShapes;

  /**
   * @param tools - the request's tools (name mapping and schemas)
   * @param provider - provider id for error details
   * @param secrets - keys to redact from in-stream error messages
   */
  constructor(tools: RequestTools, provider = 'openai-compatible', secrets: ReadonlyArray<string | undefined> = []) {
    this.#tools = tools;
    this.#provider = provider;
    this.#unknown = new UnknownShapes(provider);
    this.#secrets = secrets;
  }

  /** {@inheritDoc SseTranslator.partialUsage} */
  partialUsage(): ModelUsage | undefined {
    return this.#usage ? { ...this.#usage } : undefined;
  }

  /** {@inheritDoc SseTranslator.push} */
  push(sse: SseEvent, out: ModelEvent[]): boolean {
    if (sse.data === '[DONE]') {
      if (this.#finish === undefined) this.#doneWithoutFinish(out);
      this.#finishStream(out);
      return true;
    }
    this.#chunk(this.#payload(sse.data), out);
    return false;
  }

  /** {@inheritDoc SseTranslator.end} */
  end(out: ModelEvent[]): void {
    if (this.#finish === undefined) {
      // Cut short: retried while nothing of the turn was emitted (see `streamCut`).
      throw new ProviderProtocolError(`${this.#provider}: the stream ended before a finish_reason or [DONE]`, {
        provider: this.#provider,
        streamCut: true,
      });
    }
    this.#finishStream(out);
  }

  /**
   * `[DONE]` before any `finish_reason`. With nothing of the reply received it is a cut before content
   * (thrown with `details.streamCut: true`, so the stream helper retries it); otherwise the reply is kept as
   * it is and a `PROVIDER_FINISH_MISSING` warning says its end was not confirmed.
   */
  #doneWithoutFinish(out: ModelEvent[]): void {
    if (!this.#output)
      throw new ProviderProtocolError(`${this.#provider}: the stream sent [DONE] without any output or finish_reason`, {
        provider: this.#provider,
        streamCut: true,
        endedBy: '[DONE]',
      });
    out.push({
      type: 'warning',
      warning: {
        code: 'PROVIDER_FINISH_MISSING',
        message: `${this.#provider}: the stream ended with [DONE] but no finish_reason; the reply was taken as complete`,
        details: { provider: this.#provider, toolCalls: this.#calls.length },
      },
    });
  }

  #payload(data: string): Json {
    try {
      return JSON.parse(data) as Json;
    } catch {
      throw new ProviderProtocolError(`${this.#provider}: unparsable chunk`, { provider: this.#provider });
    }
  }

  #chunk(chunk: Json, out: ModelEvent[]): void {
    if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk)) {
      this.#unknown.report(
        out,
        `chunk:${Array.isArray(chunk) ? 'array' : chunk === null ? 'null' : typeof chunk}`,
        'a chunk that is not a JSON object',
        { field: 'chunk' },
      );
      return;
    }
    const err = chunk.error as Json | string | undefined;
    if (typeof err === 'string' && err !== '') throw streamError(this.#provider, err, err, this.#secrets); // {"error":"Internal server error"}
    if (err && typeof err === 'object') {
      const type =
        typeof err.type === 'string' && err.type !== ''
          ? err.type
          : typeof err.code === 'string' && err.code !== ''
            ? err.code
            : 'api_error';
      throw streamError(
        this.#provider,
        type,
        typeof err.message === 'string' ? err.message : 'stream error',
        this.#secrets,
        err.code,
      );
    }
    if (chunk.usage && typeof chunk.usage === 'object') this.#usage = readUsage(chunk.usage as Json);
    if (typeof chunk.id === 'string' && chunk.id !== '') this.#response.id ??= chunk.id;
    if (typeof chunk.model === 'string' && chunk.model !== '') this.#response.model ??= chunk.model;
    const choice = Array.isArray(chunk.choices) ? (chunk.choices[0] as Json | undefined) : undefined;
    if (!choice || typeof choice !== 'object') return;
    const rawDelta = choice.delta ?? choice.message; // a few servers send `message` in stream chunks
    if (rawDelta !== undefined && rawDelta !== null) {
      const before = out.length;
      if (typeof rawDelta === 'object' && !Array.isArray(rawDelta)) this.#delta(rawDelta as Json, out);
      else
        this.#unknown.report(
          out,
          `delta:${Array.isArray(rawDelta) ? 'array' : typeof rawDelta}`,
          `a delta of type ${Array.isArray(rawDelta) ? 'array' : typeof rawDelta}`,
          { field: 'delta' },
        );
      if (!this.#output)
        this.#output =
          this.#calls.length > 0 ||
          out.slice(before).some((e) => e.type === 'text_delta' || e.type === 'thinking_delta');
    }
    if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') {
      if (choice.finish_reason === 'insufficient_system_resource') throw this.#insufficientResource();
      this.#finish = choice.finish_reason;
      this.#endCalls(out);
    }
  }

  /** One `delta`: reasoning, then content and refusal, then tool calls; anything else is reported. */
  #delta(delta: Json, out: ModelEvent[]): void {
    // The first non-empty of these: servers that send two of them send the same text twice
    // (vLLM `reasoning` beside `reasoning_content`, OpenRouter `reasoning` beside `reasoning_details`).
    const field = reasoningFields.find((f) => !isEmpty(delta[f]));
    const before = out.length;
    if (field) this.#content(delta[field], field, 'thinking', out);
    attachReasoningDetails(delta.reasoning_details, out, before);
    this.#content(delta.content, 'content', 'text', out);
    this.#content(delta.refusal, 'refusal', 'text', out);
    const toolCalls = delta.tool_calls;
    if (Array.isArray(toolCalls))
      for (let k = 0; k < toolCalls.length; k++) this.#toolCallFragment(toolCalls[k] as Json, out);
    else if (!isEmpty(toolCalls))
      this.#unknown.report(out, `tool_calls:${typeof toolCalls}`, `tool_calls of type ${typeof toolCalls}`, {
        field: 'tool_calls',
      });
    if (typeof delta.function_call === 'object' && delta.function_call !== null)
      this.#toolCallFragment({ function: delta.function_call }, out); // legacy functions API
    for (const key in delta) {
      if (!knownDeltaKeys.has(key) && !isEmpty(delta[key])) {
        this.#unknown.report(out, `delta-key:${key}`, `a delta field "${key}"`, {
          field: key,
          valueType: Array.isArray(delta[key]) ? 'array' : typeof delta[key],
          keys: Object.keys(delta).sort(),
        });
      }
    }
  }

  /**
   * Emits the text of a content value as `as` (`text_delta` or `thinking_delta`): a string, an
   * array of typed parts, or one part object. Reasoning parts are thinking wherever they appear;
   * text parts inside a reasoning field are thinking too. Unknown shapes become warnings.
   */
  #content(value: unknown, field: string, as: 'text' | 'thinking', out: ModelEvent[]): void {
    if (value === undefined || value === null) return;
    if (typeof value === 'string') {
      if (value !== '')
        out.push(as === 'text' ? { type: 'text_delta', text: value } : { type: 'thinking_delta', thinking: value });
      return;
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) this.#part(value[i], field, as, out);
      return;
    }
    this.#part(value, field, as, out);
  }

  /** One content part (see {@link OpenAITranslator.#content}). */
  #part(part: unknown, field: string, as: 'text' | 'thinking', out: ModelEvent[]): void {
    if (part === undefined || part === null) return;
    if (typeof part === 'string') {
      this.#content(part, field, as, out);
      return;
    }
    if (typeof part !== 'object' || Array.isArray(part)) {
      this.#unknown.report(
        out,
        `${field}:${Array.isArray(part) ? 'array' : typeof part}`,
        `a ${field} part of type ${Array.isArray(part) ? 'array' : typeof part}`,
        { field },
      );
      return;
    }
    const p = part as Json;
    const type = typeof p.type === 'string' ? p.type : undefined;
    if (type === undefined || textPartTypes.has(type)) {
      if (typeof p.text === 'string') {
        this.#content(p.text, field, as, out);
        return;
      }
      const value = typeof p.text === 'object' && p.text !== null ? (p.text as Json).value : undefined;
      if (typeof value === 'string') {
        this.#content(value, field, as, out); // {"type":"text","text":{"value":"…","annotations":[]}}
        return;
      }
      if (type === undefined && (typeof p.content === 'string' || Array.isArray(p.content))) {
        this.#content(p.content, field, as, out);
        return;
      }
    } else if (reasoningPartTypes.has(type)) {
      const inner = p.thinking ?? p.reasoning ?? p.text ?? p.summary ?? p.content;
      if (typeof inner === 'string' || Array.isArray(inner) || (typeof inner === 'object' && inner !== null)) {
        this.#content(inner, field, 'thinking', out);
        return;
      }
      if (inner === undefined || inner === null) return; // an empty reasoning part
    } else if (type === 'refusal' && typeof p.refusal === 'string') {
      this.#content(p.refusal, field, 'text', out);
      return;
    } else if (ignoredPartTypes.has(type)) return;
    this.#unknown.report(out, `${field}:part:${type ?? 'untyped'}`, `a ${field} part of type "${type ?? '(none)'}"`, {
      field,
      partType: type ?? null,
      keys: Object.keys(p).sort(),
    });
  }

  #toolCallFragment(tc: Json, out: ModelEvent[]): void {
    if (typeof tc !== 'object' || tc === null) return;
    const fn = (typeof tc.function === 'object' && tc.function !== null ? tc.function : {}) as Json;
    const piece =
      typeof fn.arguments === 'string'
        ? fn.arguments
        : fn.arguments !== undefined && fn.arguments !== null
          ? JSON.stringify(fn.arguments)
          : '';
    if (this.#callsEnded) {
      this.#lateFragment(tc, typeof fn.name === 'string' ? fn.name : '', piece);
      return;
    }
    const call = this.#callFor(tc, typeof fn.name === 'string' ? fn.name : '', piece);
    call.signature = thoughtSignatureOf(tc) ?? call.signature;
    if (call.name === '' && typeof fn.name === 'string') call.name = fn.name;
    if (!call.started && call.name !== '') this.#startCall(call, out);
    if (piece !== '') {
      call.args += piece;
      if (call.started) out.push({ type: 'tool_call_delta', id: call.id, argumentsDelta: piece });
    }
  }

  /**
   * A tool-call fragment after `finish_reason` ended the calls: the reply's calls were already ended
   * (`tool_call_end` emitted), so it can neither join one nor start one. It is kept aside, grouped by `index` (else
   * by id), and reported at the end of the stream as one `PROVIDER_TOOL_CALL_LATE` warning per call; a
   * fragment carrying neither a name nor argument text carries nothing and is skipped.
   */
  #lateFragment(tc: Json, name: string, piece: string): void {
    if (name === '' && piece === '') return;
    const index = typeof tc.index === 'number' && Number.isFinite(tc.index) ? tc.index : undefined;
    const id = typeof tc.id === 'string' && tc.id !== '' ? tc.id : undefined;
    const key = index !== undefined ? `index:${index}` : id !== undefined ? `id:${id}` : 'none';
    let late = this.#late.get(key);
    if (!late) {
      late = { index, id, name: '', args: '' };
      this.#late.set(key, late);
    }
    late.id ??= id;
    if (late.name === '') late.name = name;
    late.args += piece;
  }

  /** One `PROVIDER_TOOL_CALL_LATE` warning per call whose fragments came after `finish_reason`. */
  #reportLate(out: ModelEvent[]): void {
    for (const late of this.#late.values()) {
      const details: Record<string, unknown> = { provider: this.#provider, finishReason: this.#finish ?? null };
      if (late.index !== undefined) details.index = late.index;
      if (late.id !== undefined) details.id = late.id;
      if (late.name !== '') details.name = late.name;
      details.rawArguments = late.args.length > 2000 ? `${late.args.slice(0, 2000)}…` : late.args;
      out.push({
        type: 'warning',
        warning: {
          code: 'PROVIDER_TOOL_CALL_LATE',
          message: `${this.#provider}: ignored a tool call${late.name !== '' ? ` to ${late.name}` : ''} sent after finish_reason; it is not part of the reply and does not run`,
          details,
        },
      });
    }
    this.#late.clear();
  }

  /**
   * The call a fragment continues, or a new one.
   *
   * The current call is the latest call at the fragment's `index` (without an `index`: the latest call
   * that had the fragment's id, else the latest call); the fragment continues it unless
   * {@link startsNewCall} says otherwise. A continuing fragment keeps the call's first id: a later
   * different id is only remembered (poolside and GLM servers change it mid-call), except that an id
   * arriving after an id-less first fragment, before anything was emitted, becomes the call's id.
   * Fragments repeating the call's own id continue it (Mistral, xAI, Fireworks and others repeat it).
   */
  #callFor(tc: Json, name: string, piece: string): CallState {
    const calls = this.#calls;
    const wireId = typeof tc.id === 'string' && tc.id !== '' ? tc.id : undefined;
    const hasIndex = typeof tc.index === 'number' && Number.isFinite(tc.index);
    let call: CallState | undefined;
    for (let i = calls.length - 1; i >= 0 && !call; i--) {
      const c = calls[i]!;
      if (
        hasIndex ? c.index === tc.index : wireId !== undefined && (c.wireId === wireId || c.otherIds.includes(wireId))
      )
        call = c;
    }
    if (!hasIndex && !call) call = calls[calls.length - 1];
    if (call && startsNewCall(call, wireId, name, piece)) call = undefined;
    if (call) {
      if (wireId !== undefined && wireId !== call.wireId) {
        if (call.wireId === undefined && !call.started) {
          call.wireId = wireId; // the id arrived after the first fragment, before anything was emitted
          call.id = this.#uniqueId(wireId, call.index);
        } else if (!call.otherIds.includes(wireId)) call.otherIds.push(wireId);
      }
      return call;
    }
    const index = hasIndex ? (tc.index as number) : calls.length;
    call = {
      index,
      seq: calls.length,
      id: this.#uniqueId(wireId, index),
      wireId,
      otherIds: [],
      name: '',
      args: '',
      started: false,
    };
    calls.push(call);
    return call;
  }

  /**
   * The server's id when no other call of this stream uses it, else a generated one
   * (`<id>_<n>`, or `call_<index>_<n>` for a call without id), unique within the stream.
   */
  #uniqueId(wireId: string | undefined, index: number): string {
    const taken = (id: string) => this.#calls.some((c) => c.id === id);
    if (wireId !== undefined && !taken(wireId)) return wireId;
    let id: string;
    do id = wireId !== undefined ? `${wireId}_${++this.#generatedIds}` : `call_${index}_${++this.#generatedIds}`;
    while (taken(id));
    return id;
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
    const ordered = this.#calls.slice().sort((a, b) => a.index - b.index || a.seq - b.seq);
    // A call without a name can be neither run nor sent back (the server refuses it): the turn fails.
    const nameless = ordered.find((c) => c.name === '');
    if (nameless) throw this.#namelessCall(nameless);
    for (const call of ordered) {
      if (!call.started) this.#startCall(call, out);
      out.push(withSignature(this.#tools.end(call.id, call.name, call.args), call.signature));
    }
  }

  /** A call that ended without a function name: the stream broke the protocol (`PROVIDER_PROTOCOL`), nothing is lost. */
  #namelessCall(call: CallState): ProviderProtocolError {
    return new ProviderProtocolError(
      `${this.#provider}: tool call ${call.id} (index ${call.index}) ended without a function name`,
      {
        provider: this.#provider,
        toolCallId: call.id,
        index: call.index,
        ...(call.otherIds.length > 0 ? { otherIds: call.otherIds } : {}),
        rawArguments: call.args.length > 2000 ? `${call.args.slice(0, 2000)}…` : call.args,
      },
    );
  }

  /** DeepSeek ends a response it cannot finish with `finish_reason: insufficient_system_resource`: transient. */
  #insufficientResource(): ProviderUnavailableError {
    return new ProviderUnavailableError(
      `${this.#provider}: the server stopped the response (insufficient_system_resource)`,
      {
        provider: this.#provider,
        type: 'insufficient_system_resource',
        inStream: true,
      },
    );
  }

  #finishStream(out: ModelEvent[]): void {
    this.#endCalls(out);
    this.#reportLate(out);
    if (this.#usage) out.push({ type: 'usage', usage: this.#usage });
    let stop = this.#finish ? (finishReasons[this.#finish] ?? 'end_turn') : 'end_turn';
    if (stop === 'end_turn' && this.#calls.length > 0) stop = 'tool_use'; // servers that say "stop" after tool calls
    out.push(
      attachResponseInfo(
        { type: 'done', stopReason: stop },
        { ...this.#response, ...(this.#finish ? { finishReason: this.#finish } : {}) },
      ),
    );
  }
}
