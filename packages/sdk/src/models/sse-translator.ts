// Driving a provider's synchronous event translator over a byte stream: the bytes of each chunk
// are parsed as SSE and translated in one synchronous pass, so the only asynchronous step per
// chunk is reading it, and none is spent per event here.
import { SseParser, type SseEvent } from './sse';
import type { ModelEvent, ModelUsage } from './types';
import {
  isTransientStreamError,
  openStream,
  streamCut,
  withDetails,
  type OpenedStream,
  type OpenStreamArgs,
} from './http';
import { backoffDelay, resolveRetry } from './retry';
import {
  isContentEvent,
  nextDeadline,
  resolveDeadlines,
  type CallDeadlines,
  type DeadlinePhase,
} from './call-deadlines';
import { ProviderTimeoutError } from './errors';

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
  /**
   * The usage the server has reported so far on this response (e.g. Anthropic's `message_start`), for a
   * request that fails before its usage event (a deadline, an in-stream error, a cut); `undefined` when it reported
   * none.
   */
  partialUsage?(): ModelUsage | undefined;
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

/**
 * The deadlines of the requests of one call (see call-deadlines.ts), on our own timer (undici's headers and
 * body timers are coarse: they fall up to a second late): armed at each send, re-armed at the response headers
 * and at the first content event, the idle deadline moved by each body chunk, stopped while the call waits between attempts; when one falls, the request's own abort
 * signal aborts with the typed `PROVIDER_TIMEOUT` error, which is then the request's failure.
 */
class RequestDeadlines {
  readonly #deadlines: CallDeadlines;
  readonly #provider: string;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #controller = new AbortController();
  #sentAt = 0;
  #content = false;
  #answeredAt: number | undefined;
  #lastChunkAt: number | undefined;
  /** The attempt of the last request sent. */
  attempt = 1;
  /** The error of the deadline that cut the current request, if one did. */
  error: ProviderTimeoutError | undefined;

  constructor(deadlines: CallDeadlines, provider: string) {
    this.#deadlines = deadlines;
    this.#provider = provider;
  }

  /** A fresh signal for the next request, aborted by the caller's signal or by a deadline. */
  next(caller: AbortSignal | undefined): { signal: AbortSignal; release(): void } {
    this.stop();
    this.error = undefined;
    const controller = new AbortController();
    this.#controller = controller;
    const onAbort = () => controller.abort(caller?.reason);
    if (caller?.aborted) onAbort();
    else caller?.addEventListener('abort', onAbort, { once: true });
    return { signal: controller.signal, release: () => caller?.removeEventListener('abort', onAbort) };
  }

  sending(attempt: number): void {
    this.attempt = attempt;
    this.#sentAt = performance.now();
    this.#content = false;
    this.#answeredAt = undefined;
    this.#lastChunkAt = undefined;
    this.#arm();
  }

  /** The response headers arrived: the first-byte deadline is met, the idle one runs. */
  answered(): void {
    this.#answeredAt = performance.now();
    this.#arm();
  }

  /** A body chunk arrived (SSE comments and pings too): the idle deadline runs from now (checked when it falls). */
  chunk(): void {
    this.#lastChunkAt = performance.now();
  }

  waiting(): void {
    this.stop();
  }

  /** Called for each batch of the response: the first content event re-arms for the total deadline. */
  saw(batch: readonly ModelEvent[]): void {
    if (this.#content || !batch.some(isContentEvent)) return;
    this.#content = true;
    this.#arm();
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    this.stop();
    const next = nextDeadline(this.#deadlines, this.#sentAt, this.#content, {
      answeredAt: this.#answeredAt,
      lastChunkAt: this.#lastChunkAt,
    });
    const controller = this.#controller;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        // Chunks move the idle deadline without re-arming: look again when the timer falls.
        const now = nextDeadline(this.#deadlines, this.#sentAt, this.#content, {
          answeredAt: this.#answeredAt,
          lastChunkAt: this.#lastChunkAt,
        });
        if (now.at - performance.now() >= 1) {
          this.#arm();
          return;
        }
        this.error = new ProviderTimeoutError(`${this.#provider}: ${DEADLINE_TEXT[now.phase]} of ${now.timeoutMs} ms`, {
          provider: this.#provider,
          phase: now.phase,
          timeoutMs: now.timeoutMs,
          attempts: this.attempt,
        });
        controller.abort(this.error);
      },
      Math.max(0, next.at - performance.now()),
    );
  }
}

/** What each deadline's error says happened. */
const DEADLINE_TEXT: Record<DeadlinePhase, string> = {
  first_byte: 'no response headers within the first-byte timeout',
  idle: 'the stream was idle (no body chunk) longer than the idle timeout',
  first_content: 'no content (text, thinking or a tool call) within the first-content timeout',
  total: 'the response had not ended within the total timeout',
};

/** The chunks of a response body, each told to the deadlines (a chunk keeps the idle deadline away). */
async function* timedChunks(body: AsyncIterable<Uint8Array>, deadlines: RequestDeadlines): AsyncGenerator<Uint8Array> {
  for await (const chunk of body) {
    deadlines.chunk();
    yield chunk;
  }
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
 * Each request has four deadlines (`firstByteTimeoutMs`, `idleTimeoutMs`, `firstContentTimeoutMs`,
 * `totalTimeoutMs`; see call-deadlines.ts), run from its send: when one falls the request is aborted and fails
 * with `PROVIDER_TIMEOUT` (`details.phase` `first_byte`, `idle`, `first_content` or `total`), retried by the same
 * rule (before output, within the budget, `onRetry` with the code `PROVIDER_TIMEOUT`). The usage the server had
 * reported on a request that then failed — cut by a deadline, ended by an in-stream error or cut short —
 * (Anthropic's `message_start`, an OpenAI usage chunk) is yielded as a `usage` event before the retry or the
 * error, so it is charged.
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
  const deadlines = new RequestDeadlines(resolveDeadlines(args.options), args.provider);
  const open: OpenStreamArgs = {
    ...args,
    warn: (warning) => pending.push({ type: 'warning', warning }),
    deadline: deadlines,
  };
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
    const request = deadlines.next(args.signal);
    open.signal = request.signal;
    let failure: unknown;
    let status: number | undefined;
    let translator: SseTranslator | undefined;
    try {
      let opened: OpenedStream;
      try {
        opened = await openStream(open, attempt);
      } catch (error) {
        if (pending.length > 0) yield pending.splice(0);
        if (deadlines.error === undefined || args.signal?.aborted) throw error;
        throw deadlines.error;
      }
      if (pending.length > 0) yield pending.splice(0);
      attempt = opened.attempt;
      open.body = opened.body; // a later attempt sends what the server accepted
      const res = opened.response;
      status = res.statusCode;
      translator = makeTranslator();
      try {
        for await (const raw of translateSse(timedChunks(res.body, deadlines), translator)) {
          const batch = fresh(raw);
          deadlines.saw(batch);
          if (!output && batch.some(isContentEvent)) output = true;
          if (batch.length > 0) yield batch;
        }
        return;
      } catch (error) {
        failure = deadlines.error ?? error;
      } finally {
        if (!res.body.destroyed) res.body.destroy();
      }
    } catch (error) {
      if (!(error instanceof ProviderTimeoutError) || error !== deadlines.error) throw error;
      failure = error;
      attempt = deadlines.attempt;
    } finally {
      deadlines.stop();
      request.release();
    }
    if (args.signal?.aborted) throw failure;
    const timedOut = deadlines.error !== undefined && failure === deadlines.error ? deadlines.error : undefined;
    // What the server reported of a request that failed after it was opened (a deadline, an in-stream error such
    // as `overloaded_error`, a cut) is charged: such calls are billed too. The translators report usage only on a
    // complete response, so this is never counted twice.
    const usage = translator?.partialUsage?.();
    if (usage) yield [{ type: 'usage', usage }];
    const cut = timedOut ?? streamCut(args.provider, failure); // typed, whether it is retried or not
    const transient = cut ?? (isTransientStreamError(failure) ? failure : undefined);
    if (output || transient === undefined) throw cut ?? failure;
    if (attempt >= retry.maxAttempts) throw withDetails(transient, { attempts: attempt });
    const delayMs = backoffDelay(attempt, retry);
    retry.onRetry?.({
      attempt,
      status,
      delayMs,
      code: transient.code,
      ...(status !== undefined ? { inStream: true } : {}),
    });
    await retry.sleep(delayMs, args.signal);
    if (args.signal?.aborted) throw args.signal.reason ?? new Error('aborted');
    attempt++;
  }
}
