// When the SSE answer to a request breaks: the MCP SDK's Streamable HTTP client only reports it to the transport's
// `onerror` and leaves the request waiting for its timeout. This tells such a loss apart from the server's own event
// stream (GET) breaking, which the SDK reopens, and reports it.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * What a `StreamableHTTPClientTransport` of `@modelcontextprotocol/sdk` (1.25 to 1.32 at least) has of its SSE
 * handling. Private members, read only after checking they are there, never called.
 */
interface SseInternals {
  _handleSseStream: unknown;
  _scheduleReconnection: unknown;
  /** Set by `_scheduleReconnection` each time it schedules the reopening of a stream. */
  _reconnectionTimeout?: unknown;
}

/** The error the MCP SDK's client reports when reading an SSE stream fails (a network disconnect). */
export function isSseStreamDisconnect(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('SSE stream disconnected:');
}

/** The error the MCP SDK's client reports when it gives up reopening a stream. */
function isReconnectionGivenUp(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('Maximum reconnection attempts');
}

/**
 * Calls `onLost` when the SSE answer stream of a request (a POST answered `text/event-stream`) broke and will not be
 * resumed: the request can no longer be answered.
 *
 * @remarks
 * The MCP SDK's `StreamableHTTPClientTransport` reads every SSE stream the same way: when reading fails it reports
 * `SSE stream disconnected: …` to `onerror`, then — in the same synchronous step — schedules the stream's reopening
 * when it can be resumed (the GET event stream, or an answer whose events carried ids), or reports `Maximum
 * reconnection attempts` when none is allowed. An answer stream without ids is neither: the SDK leaves its request
 * pending until the request's timeout. So a disconnect after which, by the next microtask, no reopening was scheduled
 * and no giving up reported is the loss of an answer stream. Which request's stream it was is not reported: the
 * caller treats every request in flight on the transport as lost. A resumable answer is left to the SDK (a lost
 * resumption ends in the request's timeout); an answer stream the server ends cleanly without answering is not
 * reported by the SDK at all.
 *
 * The transport's `onerror` is chained, as the MCP SDK's `Protocol` chains it: the handlers already set (the
 * client's) still run first. Only a transport with the SDK's SSE internals (see above) is watched.
 *
 * @param transport - a connected transport (its `onerror` is set by the client it is connected to)
 * @param onLost - called with the disconnect error; not called once `isClosed()` is true
 * @param isClosed - whether the transport was closed (a closed transport's streams break as it closes them)
 * @returns whether the transport is watched
 */
export function watchAnswerStreams(
  transport: Transport,
  onLost: (error: Error) => void,
  isClosed: () => boolean,
): boolean {
  const internals = transport as Partial<SseInternals> & Transport;
  if (typeof internals._handleSseStream !== 'function' || typeof internals._scheduleReconnection !== 'function')
    return false;
  let givenUp = 0;
  const chained = transport.onerror;
  transport.onerror = (error) => {
    chained?.(error);
    if (isReconnectionGivenUp(error)) givenUp++;
    if (!isSseStreamDisconnect(error)) return;
    const scheduled = internals._reconnectionTimeout;
    const givenUpBefore = givenUp;
    queueMicrotask(() => {
      if (isClosed() || internals._reconnectionTimeout !== scheduled || givenUp !== givenUpBefore) return;
      onLost(error);
    });
  };
  return true;
}
