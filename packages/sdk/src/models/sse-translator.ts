// Driving a provider's synchronous event translator over a byte stream: the bytes of each chunk
// are parsed as SSE and translated in one synchronous pass, so the only asynchronous step per
// chunk is reading it, and none is spent per event here.
import { SseParser, type SseEvent } from './sse';
import type { ModelEvent } from './types';
import { openStream, type OpenStreamArgs } from './http';

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
export async function* translateSse(source: AsyncIterable<Uint8Array>, translator: SseTranslator): AsyncGenerator<ModelEvent[]> {
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
 * Opens a provider's SSE response (with its retries) and yields the translated event batches; the
 * response body is destroyed when iteration ends, normally or not. Warnings raised while opening
 * (e.g. `PROVIDER_RETRY_AFTER_CAPPED`) are yielded first.
 * @param args - the request, as for `openStream`
 * @param translator - the provider's wire translator
 * @internal
 */
export async function* streamTranslated(args: OpenStreamArgs, translator: SseTranslator): AsyncGenerator<ModelEvent[]> {
  const pending: ModelEvent[] = [];
  let opened;
  try {
    opened = await openStream({ ...args, warn: (warning) => pending.push({ type: 'warning', warning }) });
  } catch (error) {
    if (pending.length > 0) yield pending.splice(0);
    throw error;
  }
  if (pending.length > 0) yield pending.splice(0);
  const res = opened.response;
  try {
    yield* translateSse(res.body, translator);
  } finally {
    if (!res.body.destroyed) res.body.destroy();
  }
}
