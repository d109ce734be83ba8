// Driving a provider's synchronous event translator over a byte stream: the bytes of each chunk
// are parsed as SSE and translated in one synchronous pass, so the only asynchronous step per
// chunk is reading it, and none is spent per event here.
import { SseParser, type SseEvent } from './sse';
import type { ModelEvent } from './types';
import {
  isTransientStreamError,
  openStream,
  streamCut,
  withDetails,
  type OpenedStream,
  type OpenStreamArgs,
} from './http';
import { backoffDelay, resolveRetry } from './retry';

/**
 * Translates the SSE events of one provider response into normalized events, synchronously.
 * Implementations keep the per-response state (open blocks, usage, stop reason).
 *
 * @internal
 */
export interface SseTranslator {
  /**
   * Translates one SSE event.
   * @param event - the next event of the response
   * @param out - receives the normalized events it produces (zero or more)
   * @returns true when the response is complete and nothing more should be read
   * @throws a typed `ProviderError` for an in-stream error or a malformed payload
   */
  push(event: SseEvent, out: ModelEvent[]): boolean;
  /**
   * Called when the bytes end before {@link SseTranslator.push} reported completion.
   * @param out - receives the closing events, when ending here is acceptable
   * @throws a `ProviderProtocolError` when the response is cut short
   */
  end(out: ModelEvent[]): void;
}

/** The outcome of translating the events of one chunk. */
interface TranslatedBatch {
  /** Events produced, including those produced before a failure. */
  events: ModelEvent[];
  /** The response is complete (or failed): stop reading. */
  complete: boolean;
  /** The error a translator threw, delivered after `events`. */
  failure?: { error: unknown };
}

function translateBatch(sse: SseEvent[], translator: SseTranslator, atEnd: boolean): TranslatedBatch {
  const events: ModelEvent[] = [];
  try {
    for (let i = 0; i < sse.length; i++) if (translator.push(sse[i]!, events)) return { events, complete: true };
    if (atEnd) translator.end(events);
    return { events, complete: atEnd };
  } catch (error) {
    return { events, complete: true, failure: { error } };
  }
}

/**
 * Reads a response body as SSE and translates it, one batch of normalized events per chunk.
 *
 * @remarks
 * Stops reading as soon as the translator reports completion. When the translator throws, the
 * events it produced before the failure are yielded first, then the error is thrown, so the
 * order a consumer sees is the order of the wire.
 *
 * @param source - response bytes, e.g. an undici response body
 * @param translator - the provider's translator for this response
 * @returns non-empty arrays of normalized events, in order
 * @internal
 */
export async function* translateSse(
  source: AsyncIterable<Uint8Array>,
  translator: SseTranslator,
): AsyncGenerator<ModelEvent[]> {
  const parser = new SseParser();
  for await (const chunk of source) {
    const batch = translateBatch(parser.feed(chunk), translator, false);
    if (batch.events.length > 0) yield batch.events;
    if (batch.failure) throw batch.failure.error;
    if (batch.complete) return;
  }
  const last = translateBatch(parser.end(), translator, true);
  if (last.events.length > 0) yield last.events;
  if (last.failure) throw last.failure.error;
}

/** Event types that are output of the turn (a retry after one of them would show it twice). */
function isOutput(e: ModelEvent): boolean {
  return (
    e.type === 'text_delta' ||
    e.type === 'thinking_delta' ||
    e.type === 'tool_call_start' ||
    e.type === 'tool_call_delta' ||
    e.type === 'tool_call_end'
  );
}

/**
 * Opens a provider's SSE response and yields the translated event batches, retrying transient
 * failures; the response body is destroyed when iteration ends, normally or not.
 *
 * @remarks
 * Failures to open (HTTP 408/409/429/529/5xx, connection failures) are retried by `openStream`.
 * An error reported inside the 200 stream that is transient (see `isTransientStreamError`:
 * Anthropic `overloaded_error` / `rate_limit_error` / `api_error`, the OpenAI-compatible error
 * chunks and `finish_reason: insufficient_system_resource`) is retried the same way (same
 * backoff, same `onRetry` callback with `inStream: true`, same attempt budget shared with the HTTP
 * retries), but only while no output event (text, thinking, tool call) of the turn has been
 * yielded: nothing is buffered, and nothing is ever yielded twice. A stream cut short (see
 * `streamCut`: the body ended before the response was complete, or its connection broke while it was
 * read) is retried by the same rule: a cut before the first text, thinking or tool-call event is
 * retried (same backoff, same budget, `onRetry` with `inStream: true` and the cut's code,
 * `PROVIDER_PROTOCOL` or `PROVIDER_UNREACHABLE`). After output, the error is thrown, typed (the
 * stream ends with `error` + `done('error')`, so no tool call of the turn runs). Warnings already yielded by a failed
 * attempt are not repeated by the next one. The error of the last attempt carries
 * `details.attempts`.
 *
 * @param args - the request, as for `openStream`
 * @param makeTranslator - a fresh wire translator per attempt (translators keep per-response state)
 * @returns non-empty arrays of normalized events, in order
 * @internal
 */
export async function* streamTranslated(
  args: OpenStreamArgs,
  makeTranslator: () => SseTranslator,
): AsyncGenerator<ModelEvent[]> {
  const retry = resolveRetry(args.options.retry);
  const pending: ModelEvent[] = [];
  const open: OpenStreamArgs = { ...args, warn: (warning) => pending.push({ type: 'warning', warning }) };
  const warned = new Set<string>();
  /** Warnings of this batch not yet yielded on this stream (a retried attempt repeats its translator's warnings). */
  const fresh = (batch: ModelEvent[]): ModelEvent[] => {
    if (!batch.some((e) => e.type === 'warning')) return batch;
    return batch.filter((e) => {
      if (e.type !== 'warning') return true;
      const key = `${e.warning.code} ${JSON.stringify(e.warning.details ?? {})}`;
      if (warned.has(key)) return false;
      warned.add(key);
      return true;
    });
  };
  let output = false;
  for (let attempt = 1; ; ) {
    let opened: OpenedStream;
    try {
      opened = await openStream(open, attempt);
    } catch (error) {
      if (pending.length > 0) yield pending.splice(0);
      throw error;
    }
    if (pending.length > 0) yield pending.splice(0);
    attempt = opened.attempt;
    open.body = opened.body; // a later attempt sends what the server accepted
    const res = opened.response;
    let failure: unknown;
    try {
      for await (const raw of translateSse(res.body, makeTranslator())) {
        const batch = fresh(raw);
        if (!output && batch.some(isOutput)) output = true;
        if (batch.length > 0) yield batch;
      }
      return;
    } catch (error) {
      failure = error;
    } finally {
      if (!res.body.destroyed) res.body.destroy();
    }
    if (args.signal?.aborted) throw failure;
    const cut = streamCut(args.provider, failure); // typed, whether it is retried or not
    const transient = cut ?? (isTransientStreamError(failure) ? failure : undefined);
    if (output || transient === undefined) throw cut ?? failure;
    if (attempt >= retry.maxAttempts) throw withDetails(transient, { attempts: attempt });
    const delayMs = backoffDelay(attempt, retry);
    retry.onRetry?.({ attempt, status: res.statusCode, delayMs, code: transient.code, inStream: true });
    await retry.sleep(delayMs, args.signal);
    if (args.signal?.aborted) throw args.signal.reason ?? new Error('aborted');
    attempt++;
  }
}
