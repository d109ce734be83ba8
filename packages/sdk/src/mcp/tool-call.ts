// One `tools/call` of a consumed MCP server, and what its failures mean for the invocation: a request that never
// reached the server is sent once more in a new session and is never `unknown`; one that may have run is `unknown`
// when it has a side effect.
import { OutcomeUnknownError } from '../capabilities/errors';
import type { HandlerContext } from '../capabilities/types';
import { MediaAgentError } from '../core/errors';
import { classifyMcpCallFailure, type McpCallFailure } from './call-failure';
import type { McpClientLike, McpClientSession } from './client-session';
import { mcpToolOutput, type McpToolResultOutput } from './tool-output';

/** One tool of one server, as its capability calls it. */
export interface McpToolCallTarget {
  /** The server's registration name. */
  server: string;
  /** The tool's name on the server. */
  tool: string;
  /** Declared read-only by the host: a lost answer fails the call instead of making it `unknown`. */
  readOnly: boolean;
  /** Cap of the text output, in UTF-8 bytes. */
  maxOutputBytes: number;
  /** How long one request may wait for its answer, in ms (also the wait for a new session's `initialize`). */
  callTimeoutMs: number;
  /** The server's client, renewable or not. */
  session: McpClientSession;
  /**
   * Runs before each send (also before the send in a new session): may refuse the call, which then fails with what
   * it threw and was never sent (a tool the server changed since it was registered).
   */
  beforeSend?: () => Promise<void>;
}

type CallResult = { content?: unknown; structuredContent?: unknown; isError?: unknown };
type Attempt = { result: CallResult } | { failure: McpCallFailure; cause: unknown; client: McpClientLike };

/**
 * Calls the tool: the server's answer as output, `isError` as a failure (`MCP_TOOL_ERROR`).
 *
 * @remarks
 * A request that provably never reached the server (HTTP 404 for a session the server no longer knows, another 4xx,
 * a connection never made) is sent once more after a new session was opened, when the session is renewable; if it
 * still does not get through, the call fails `MCP_CALL_NOT_DELIVERED` — never `unknown`, since nothing ran. No
 * answer within `callTimeoutMs` is `MCP_CALL_TIMEOUT` for a read; a side-effecting call that was sent and got no
 * answer (a timeout; a lost connection, also an SSE answer stream that broke, which ends the call at once rather
 * than at its timeout; an unreadable answer) is `unknown` (`OUTCOME_UNKNOWN`, a timeout named in the message) and
 * is never sent again.
 *
 * @param target - the tool and its server's session
 * @param input - the validated arguments
 * @param ctx - the handler context (its `signal` cancels the request)
 * @returns the tool's output
 * @throws what `target.beforeSend` throws (nothing sent); {@link MediaAgentError} `MCP_TOOL_ERROR`, `MCP_CALL_NOT_DELIVERED`, `MCP_CALL_TIMEOUT` (reads),
 *   `MCP_TRANSPORT_LOST` (reads, or a client that is closed and cannot be renewed), `MCP_RESULT_INVALID` (reads);
 *   {@link OutcomeUnknownError} for a side-effecting call that may have run
 */
export async function callMcpTool(
  target: McpToolCallTarget,
  input: unknown,
  ctx: Pick<HandlerContext, 'signal'>,
): Promise<McpToolResultOutput> {
  let renewed = false;
  for (;;) {
    await target.beforeSend?.();
    const attempt = await target.session.use((client, lost) => sendOnce(client, lost, target, input, ctx.signal));
    if ('result' in attempt) return resultOutput(target, attempt.result);
    const { failure } = attempt;
    if (failure.kind === 'not-delivered' && !renewed && target.session.renewable && !ctx.signal.aborted) {
      renewed = true;
      try {
        await target.session.renew(attempt.client);
      } catch (error) {
        throw notDelivered(target, failure, true, error, 'and a new session could not be opened');
      }
      // Cancelled while the session was renewed: the request is not sent again, and it never reached the server.
      if (ctx.signal.aborted)
        throw notDelivered(target, failure, false, ctx.signal.reason, 'and the call was cancelled');
      continue;
    }
    throw failureError(target, failure, attempt.cause, renewed);
  }
}

/**
 * Sends the request once; a failure is classified, never thrown. `lost` fires when the client's answer stream broke
 * (the MCP SDK would leave the request waiting for its timeout): the request is abandoned with its reason, an
 * `McpError` `ConnectionClosed` (classified `lost`).
 */
async function sendOnce(
  client: McpClientLike,
  lost: AbortSignal,
  target: McpToolCallTarget,
  input: unknown,
  signal: AbortSignal,
): Promise<Attempt> {
  const transport = client.transport;
  // Not connected: nothing was sent.
  if (!transport) return { failure: { kind: 'not-delivered', reason: 'not-connected' }, cause: undefined, client };
  const sentWithSession = transport.sessionId !== undefined;
  // The MCP SDK adds an abort listener to the signal of every request and never removes it: each call gets a signal
  // of its own, linked to the caller's for as long as the call runs (the caller's may be shared by every call).
  const own = new AbortController();
  const forward = () => own.abort(signal.reason);
  const broke = () => own.abort(lost.reason);
  if (signal.aborted) forward();
  else signal.addEventListener('abort', forward, { once: true });
  if (lost.aborted) broke();
  else lost.addEventListener('abort', broke, { once: true });
  try {
    const result = (await client.callTool(
      { name: target.tool, arguments: input as Record<string, unknown> },
      undefined,
      { signal: own.signal, timeout: target.callTimeoutMs },
    )) as CallResult;
    return { result };
  } catch (cause) {
    return { failure: classifyMcpCallFailure(cause, { sentWithSession, aborted: signal.aborted }), cause, client };
  } finally {
    signal.removeEventListener('abort', forward);
    lost.removeEventListener('abort', broke);
  }
}

function resultOutput(target: McpToolCallTarget, result: CallResult): McpToolResultOutput {
  if (result.isError === true) {
    const text = (Array.isArray(result.content) ? result.content : [])
      .flatMap((p: { type?: unknown; text?: unknown }) =>
        p?.type === 'text' && typeof p.text === 'string' ? [p.text] : [],
      )
      .join('\n')
      .slice(0, 2000);
    throw new MediaAgentError(
      'MCP_TOOL_ERROR',
      `MCP server ${target.server}: ${target.tool} failed: ${text || 'no message'}`,
      { server: target.server, tool: target.tool },
    );
  }
  return mcpToolOutput(result, target.maxOutputBytes);
}

const REASONS: Record<string, string> = {
  'session-expired': 'the server no longer knows the session',
  'http-status': 'the server refused the HTTP request',
  unreachable: 'the server could not be reached',
  'not-connected': 'the client is not connected',
};

function notDelivered(
  target: McpToolCallTarget,
  failure: Extract<McpCallFailure, { kind: 'not-delivered' }>,
  retried: boolean,
  cause: unknown,
  more = '',
): MediaAgentError {
  const { server, tool } = target;
  const why = `${REASONS[failure.reason]}${failure.httpStatus ? ` (HTTP ${failure.httpStatus})` : ''}${failure.networkCode ? ` (${failure.networkCode})` : ''}`;
  const hint =
    failure.reason === 'session-expired' && !target.session.renewable && !target.session.closed
      ? '; to have sessions renewed, register the server with transport: a StreamableHTTPClientTransport object, or a transport factory (() => new StreamableHTTPClientTransport(url))'
      : '';
  return new MediaAgentError(
    'MCP_CALL_NOT_DELIVERED',
    `MCP server ${server}: ${tool} did not reach the server: ${why}${more ? ` ${more}` : retried ? ', also after a new session' : ''}; nothing ran${hint}`,
    {
      server,
      tool,
      reason: failure.reason,
      retried,
      ...(failure.httpStatus !== undefined ? { httpStatus: failure.httpStatus } : {}),
      ...(failure.networkCode !== undefined ? { networkCode: failure.networkCode } : {}),
    },
    { cause },
  );
}

/** The error a failed call ends with: typed when nothing ran or for a read, `unknown` for a write that may have run. */
function failureError(target: McpToolCallTarget, failure: McpCallFailure, cause: unknown, retried: boolean): Error {
  const { server, tool, readOnly } = target;
  switch (failure.kind) {
    case 'refused':
      return new MediaAgentError(
        'MCP_TOOL_ERROR',
        `MCP server ${server} refused ${tool}: ${cause instanceof Error ? cause.message : String(cause)}`,
        { server, tool, rpcCode: failure.rpcCode },
      );
    case 'not-delivered':
      // A closed client that cannot be renewed: the connection is gone (nothing was sent).
      if (failure.reason === 'not-connected' && !target.session.renewable)
        return new MediaAgentError(
          'MCP_TRANSPORT_LOST',
          `MCP server ${server} is not connected; ${tool} was not sent`,
          { server, tool },
          { cause },
        );
      return notDelivered(target, failure, retried, cause);
    case 'timeout': {
      const timeout = new MediaAgentError(
        'MCP_CALL_TIMEOUT',
        `MCP server ${server}: no answer to ${tool} within ${target.callTimeoutMs} ms`,
        { server, tool, timeoutMs: target.callTimeoutMs },
        { cause },
      );
      if (readOnly) return timeout;
      return new OutcomeUnknownError(
        `MCP server ${server}: no answer to ${tool} within ${target.callTimeoutMs} ms (MCP_CALL_TIMEOUT) after it was sent; whether it took effect is unknown — verify before retrying`,
        { cause: timeout },
      );
    }
    default: {
      const what =
        failure.kind === 'invalid-result'
          ? 'the answer could not be read'
          : failure.kind === 'aborted'
            ? 'the call was abandoned (its signal fired)'
            : 'the connection broke';
      if (readOnly)
        return new MediaAgentError(
          failure.kind === 'invalid-result' ? 'MCP_RESULT_INVALID' : 'MCP_TRANSPORT_LOST',
          `MCP server ${server}: ${what} during ${tool}`,
          { server, tool },
          { cause },
        );
      return new OutcomeUnknownError(
        `MCP server ${server}: ${what} after ${tool} was sent; whether it took effect is unknown — verify before retrying`,
        { cause },
      );
    }
  }
}
