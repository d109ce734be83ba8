// Whether a request to a consumed MCP server failed because its connection was cut under it — the server closed
// a kept-alive socket as the request went out, or reset it — rather than because the server answered.
const CUT_CODES = new Set(['UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNRESET', 'EPIPE']);

/**
 * True when `error` (or a cause up to three levels down) is a connection cut: undici's `other side closed`
 * (`UND_ERR_SOCKET`), a closed client, a reset or a broken pipe. A refused connection, a timeout and every answer
 * of the server (an HTTP status, a JSON-RPC error) are not cuts.
 */
export function isConnectionCut(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === 'string' && CUT_CODES.has(code)) return true;
  return isConnectionCut(cause, depth + 1);
}
