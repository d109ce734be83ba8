// CORS of the MCP HTTP endpoint: a browser page on an origin the Host/Origin rules accept may call it and read
// the answers. Runs only after those rules passed, so an origin named here is always an accepted one.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The request headers a browser page may send (the preflight's `Access-Control-Allow-Headers`). */
export const MCP_CORS_REQUEST_HEADERS =
  'authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id';

/** The answer headers a page may read (`Access-Control-Expose-Headers`). */
export const MCP_CORS_EXPOSED_HEADERS = 'mcp-session-id, mcp-protocol-version, www-authenticate';

/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 600;

/** The request's `Origin`, when it has one (a browser's request). */
function originOf(req: IncomingMessage): string | undefined {
  const origin = req.headers.origin;
  return typeof origin === 'string' && origin.length > 0 ? origin : undefined;
}

/** Whether the request is a CORS preflight: `OPTIONS` from a page, asking for a method. */
export function isPreflight(req: IncomingMessage): boolean {
  return (
    req.method === 'OPTIONS' &&
    originOf(req) !== undefined &&
    req.headers['access-control-request-method'] !== undefined
  );
}

/**
 * Sets the CORS headers of an answer to an accepted origin (none without `Origin`): the origin itself (never `*`),
 * `Vary: Origin`, and the headers a page may read. No `Access-Control-Allow-Credentials`: a page's cookies are
 * never sent with its calls.
 */
export function setCorsHeaders(req: IncomingMessage, res: ServerResponse): void {
  const origin = originOf(req);
  if (!origin) return;
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('vary', 'Origin');
  res.setHeader('access-control-expose-headers', MCP_CORS_EXPOSED_HEADERS);
}

/** Answers a preflight: 204, `POST` allowed with the MCP request headers, kept {@link PREFLIGHT_MAX_AGE_S} s. */
export function answerPreflight(req: IncomingMessage, res: ServerResponse): void {
  setCorsHeaders(req, res);
  res
    .writeHead(204, {
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': MCP_CORS_REQUEST_HEADERS,
      'access-control-max-age': String(PREFLIGHT_MAX_AGE_S),
    })
    .end();
}
