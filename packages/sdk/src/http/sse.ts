import { linkedSignal } from '../core/linked-signal';
import type { RunEvent } from '../runtime/events/run-event';
import type { SubscriberEvent } from '../runtime/events/stream-access';

/**
 * One run event as a server-sent event: `id:` is the global sequence (what `Last-Event-ID` sends back),
 * `event:` the event type, `data:` the event as one line of JSON. The terminal `access_lost` event has no
 * `id:` (it is not stored; the client's `Last-Event-ID` stays the last run event it got).
 * @internal
 */
export function sseFrame(event: SubscriberEvent): string {
  if (event.type === 'access_lost') return `event: access_lost\ndata: ${JSON.stringify(event)}\n\n`;
  return `id: ${event.globalSeq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** How an event stream ended (see {@link EventStreamOptions.onEnd}). @internal */
export type EventStreamEnd = 'stopped' | 'cancelled' | 'slow' | 'failed' | 'access_lost';

/** Options of {@link eventStream}. @internal */
export interface EventStreamOptions {
  /** The events from the resume point on; ends when the signal aborts, or after an `access_lost` event. */
  source: (signal: AbortSignal) => AsyncIterable<SubscriberEvent>;
  /** Whether the caller may see an event (skipped otherwise; `id:` advances with the next visible one). */
  visible: (event: RunEvent) => boolean | Promise<boolean>;
  /** Ends the stream cleanly (host stopped, router closed). */
  stop: AbortSignal;
  /** Comment line interval (ms) that keeps proxies and the client's idle timers from closing the stream. */
  heartbeatMs: number;
  /** Bytes queued for a client that reads slower than events come before it is disconnected. */
  bufferBytes: number;
  /** How long (ms) a full queue may stay full before the client is disconnected. */
  slowClientMs: number;
  /** The reconnection delay (ms) advertised to the browser's `EventSource` (`retry:`). */
  retryMs: number;
  /**
   * Called once when the stream ends: `stopped`, `cancelled` (the client left), `slow`, `failed`,
   * `access_lost` (the subscriber lost access: the `access_lost` frame was sent, then the stream closed).
   */
  onEnd: (reason: EventStreamEnd, error?: unknown) => void;
}

/**
 * A bounded server-sent event stream of run events. Pull-driven: an event is encoded only when the
 * client's queue has room, so a client that reads slowly holds at most `bufferBytes` (plus one event)
 * in memory; when its queue stays full for `slowClientMs` the stream is errored, which makes the
 * server drop the connection (the client resumes with `Last-Event-ID`). Heartbeats are comments
 * (`: heartbeat`), sent only when the queue has room.
 * @internal
 */
export function eventStream(options: EventStreamOptions): ReadableStream<Uint8Array> {
  const cancel = new AbortController();
  // Detached from `options.stop` when the stream ends (see linkedSignal: AbortSignal.any would stay attached).
  const link = linkedSignal([cancel.signal, options.stop]);
  const signal = link.signal;
  const encoder = new TextEncoder();
  let room: (() => void) | undefined;
  let ended = false;
  const end = (reason: EventStreamEnd, error?: unknown) => {
    if (ended) return;
    ended = true;
    link.dispose();
    options.onEnd(reason, error);
  };
  /** Resolves true once the queue has room, false after `slowClientMs` (or when the stream ends). */
  const waitForRoom = (controller: ReadableStreamDefaultController<Uint8Array>): Promise<boolean> => {
    if (signal.aborted) return Promise.resolve(false);
    if ((controller.desiredSize ?? 0) > 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        room = undefined;
        resolve(ok);
      };
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), options.slowClientMs);
      signal.addEventListener('abort', onAbort);
      room = () => {
        if ((controller.desiredSize ?? 0) > 0) done(true);
      };
    });
  };
  const pump = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    const heartbeat = setInterval(() => {
      if (!ended && !signal.aborted && (controller.desiredSize ?? 0) > 0)
        controller.enqueue(encoder.encode(': heartbeat\n\n'));
    }, options.heartbeatMs);
    try {
      for await (const event of options.source(signal)) {
        if (event.type === 'access_lost') {
          // The one terminal frame, queued whatever the client's backlog (it is small), then the end.
          if (!signal.aborted) controller.enqueue(encoder.encode(sseFrame(event)));
          end(cancel.signal.aborted ? 'cancelled' : 'access_lost');
          closeQuietly(controller);
          return;
        }
        if (!(await options.visible(event))) continue;
        if (!(await waitForRoom(controller))) {
          if (signal.aborted) break;
          end('slow');
          // Node adapters destroy the socket on a stream error; the code marks it as the peer's doing, so
          // @hono/node-server neither prints a stack nor writes an "Error: …" line into the event stream.
          controller.error(
            Object.assign(new Error('the client read its event stream too slowly; it was disconnected'), {
              code: 'ERR_STREAM_PREMATURE_CLOSE',
            }),
          );
          return;
        }
        controller.enqueue(encoder.encode(sseFrame(event)));
      }
      if (cancel.signal.aborted) end('cancelled');
      else {
        end('stopped');
        closeQuietly(controller);
      }
    } catch (error) {
      if (cancel.signal.aborted) end('cancelled');
      else {
        // The host stopped under the stream (its storage closed) or storage failed: end it; the client resumes.
        end(options.stop.aborted ? 'stopped' : 'failed', error);
        closeQuietly(controller);
      }
    } finally {
      clearInterval(heartbeat);
    }
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(`retry: ${options.retryMs}\n\n`));
        void pump(controller);
      },
      pull() {
        room?.();
      },
      cancel() {
        cancel.abort();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: options.bufferBytes }),
  );
}

/** Closes a stream controller that may already be closed or errored. */
function closeQuietly(controller: ReadableStreamDefaultController<Uint8Array>): void {
  try {
    controller.close();
  } catch {
    // already closed by the client
  }
}
