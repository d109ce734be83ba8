// What a failed MCP request tells about whether the server ran it: the rule that decides between "never reached
// the server" (safe to send again, never `unknown`), "may have run" (`unknown` for a side effect), a timeout, and
// the server's own refusal.
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * Why a request provably never reached the server's handler:
 * `session-expired` — HTTP 404 to a request that carried an `Mcp-Session-Id` (the server no longer knows the
 * session); `http-status` — another 4xx, the HTTP layer refused the request before any JSON-RPC handling;
 * `unreachable` — no connection was made (refused, no route, name not resolved);
 * `not-connected` — the client had no open transport, nothing was sent.
 */
export type McpNotDeliveredReason = 'session-expired' | 'http-status' | 'unreachable' | 'not-connected';

/**
 * A failed MCP request, classified:
 * `not-delivered` — never reached the handler (see {@link McpNotDeliveredReason}); `timeout` — no answer within the
 * request's timeout (it was sent: it may have run); `lost` — the connection broke after the request was sent, or
 * a 5xx (it may have run); `aborted` — the caller's signal fired; `refused` — the server answered with a JSON-RPC
 * error (it did not run the tool); `invalid-result` — an answer came that is not a valid result (it may have run).
 */
export type McpCallFailure =
  | { kind: 'not-delivered'; reason: McpNotDeliveredReason; httpStatus?: number; networkCode?: string }
  | { kind: 'timeout'; timeoutMs?: number }
  | { kind: 'lost'; httpStatus?: number; networkCode?: string }
  | { kind: 'aborted' }
  | { kind: 'refused'; rpcCode: number }
  | { kind: 'invalid-result' };

/**
 * Connection errors raised before a request could be written (Node's `net` and `dns` codes, and undici's connect
 * timeout). A reset or "other side closed" is not among them: the request may have been written.
 */
const NOT_SENT_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The network error code of a failed `fetch` (`TypeError: fetch failed` with a `cause`), if any. */
function networkCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    // Several addresses tried (happy eyeballs): an AggregateError whose errors carry the codes.
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors)) {
      const codes = errors.map(networkCode);
      if (codes.length > 0 && codes.every((c) => c !== undefined && NOT_SENT_NETWORK_CODES.has(c))) return codes[0];
      return codes.find((c) => c !== undefined);
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The HTTP status of a Streamable HTTP transport error (also from another copy of the MCP SDK), if it is one. */
function httpStatus(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError) return error.code;
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && error.message.startsWith('Streamable HTTP error:') && typeof code === 'number')
    return code;
  return undefined;
}

/**
 * Classifies why an MCP request (e.g. `tools/call`) failed, by what can be proved about its delivery.
 *
 * @remarks
 * Per the MCP specification (Streamable HTTP transport, "Session Management",
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#session-management): "When a client
 * receives HTTP 404 in response to a request containing an Mcp-Session-Id, it MUST start a new session by sending
 * a new InitializeRequest without a session ID attached." Such a request reached no handler: it is
 * `not-delivered` / `session-expired`. Any other 4xx is refused by the HTTP layer before JSON-RPC handling. A
 * connection that was never made (`ECONNREFUSED`, no route, DNS) sent nothing. A timeout, a reset after connecting, a
 * 5xx, or a closed connection may follow a request the server ran.
 *
 * @param error - what the MCP SDK's `request`/`callTool` rejected with
 * @param facts - `sentWithSession`: the transport had a session id when the request was sent; `aborted`: the
 *   caller's signal had fired
 * @returns the classification (pure: no I/O)
 */
export function classifyMcpCallFailure(
  error: unknown,
  facts: { sentWithSession: boolean; aborted: boolean },
): McpCallFailure {
  if (facts.aborted) return { kind: 'aborted' };
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) {
      const timeout = (error.data as { timeout?: unknown } | undefined)?.timeout;
      return typeof timeout === 'number' ? { kind: 'timeout', timeoutMs: timeout } : { kind: 'timeout' };
    }
    if (error.code === ErrorCode.ConnectionClosed) return { kind: 'lost' };
    return { kind: 'refused', rpcCode: error.code };
  }
  const status = httpStatus(error);
  if (status !== undefined) {
    if (status === 404 && facts.sentWithSession)
      return { kind: 'not-delivered', reason: 'session-expired', httpStatus: status };
    if (status >= 400 && status < 500) return { kind: 'not-delivered', reason: 'http-status', httpStatus: status };
    // -1: an answer with an unexpected content type came back; the server may have run the request.
    if (status < 100) return { kind: 'invalid-result' };
    return { kind: 'lost', httpStatus: status };
  }
  if (error instanceof Error && error.message === 'Not connected')
    return { kind: 'not-delivered', reason: 'not-connected' };
  // The result did not parse against the MCP result schema (zod 3 or 4): an answer came, it cannot be read.
  if (error instanceof Error && (error.name === 'ZodError' || error.name === '$ZodError'))
    return { kind: 'invalid-result' };
  const code = networkCode(error);
  if (code !== undefined && NOT_SENT_NETWORK_CODES.has(code))
    return { kind: 'not-delivered', reason: 'unreachable', networkCode: code };
  return code !== undefined ? { kind: 'lost', networkCode: code } : { kind: 'lost' };
}
