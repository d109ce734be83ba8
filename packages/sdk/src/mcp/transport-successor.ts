// The rule that makes a transport object renewable: how to make a new transport to the same server, for a new
// session, from a transport the host gave as an object.
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * What a `StreamableHTTPClientTransport` of `@modelcontextprotocol/sdk` (1.25 to 1.32 at least) keeps of its
 * constructor's arguments. Private fields, read only after checking they are there.
 */
interface KeptOptions {
  _url: unknown;
  _requestInit: unknown;
  _authProvider: unknown;
  _fetch: unknown;
  _reconnectionOptions: unknown;
  /** Since the `redirectPolicy` option: `true` for `'follow'`. Absent before it. */
  _followRedirects?: unknown;
}

type TransportClass = new (url: URL, options?: StreamableHTTPClientTransportOptions) => Transport;

/**
 * How to make the successor of a transport object: a new transport to the same server with the same options, for
 * a new session (a started transport can neither be started again nor drop its session id).
 *
 * @remarks
 * Only a `StreamableHTTPClientTransport` of `@modelcontextprotocol/sdk` has one — an instance of the class itself,
 * from this copy of the MCP SDK or another (its ESM or CommonJS build, another installed version), never of a
 * subclass, whose constructor may take other arguments. The successor is made by the instance's own class, to the
 * same URL, with the same `requestInit`, `authProvider` (so tokens are shared), `fetch`, `redirectPolicy` and
 * `reconnectionOptions`, and without the `sessionId`: per the MCP specification (Streamable HTTP transport,
 * "Session Management",
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#session-management), a client that
 * receives HTTP 404 for its session "MUST start a new session by sending a new InitializeRequest without a session
 * ID attached". The options are read from the instance's private fields (the class has no accessor for them); an
 * instance without them (an SDK version that keeps them otherwise) has no successor. A stdio transport has none
 * either: a 404 cannot happen there.
 *
 * @param transport - the transport object the host registered (read, never changed)
 * @returns a function making a new, not yet started transport each time it is called; `undefined` when the
 *   transport cannot be renewed (pure: no I/O)
 */
export function streamableHttpSuccessor(transport: unknown): (() => Transport) | undefined {
  if (typeof transport !== 'object' || transport === null) return undefined;
  const Class = (transport as { constructor?: unknown }).constructor;
  if (typeof Class !== 'function') return undefined;
  // The class itself (this copy, or another copy of the MCP SDK, by its name), never a subclass.
  if (Class !== StreamableHTTPClientTransport && Class.name !== 'StreamableHTTPClientTransport') return undefined;
  const kept = transport as Partial<KeptOptions>;
  for (const field of ['_url', '_requestInit', '_authProvider', '_fetch', '_reconnectionOptions'] as const)
    if (!(field in kept)) return undefined;
  const url = kept._url;
  if (!(url instanceof URL)) return undefined;
  if (typeof kept._reconnectionOptions !== 'object' || kept._reconnectionOptions === null) return undefined;
  if (kept._requestInit !== undefined && (typeof kept._requestInit !== 'object' || kept._requestInit === null))
    return undefined;
  if (kept._fetch !== undefined && typeof kept._fetch !== 'function') return undefined;
  if (kept._authProvider !== undefined && (typeof kept._authProvider !== 'object' || kept._authProvider === null))
    return undefined;
  if (kept._followRedirects !== undefined && typeof kept._followRedirects !== 'boolean') return undefined;

  const options: StreamableHTTPClientTransportOptions = {
    reconnectionOptions: kept._reconnectionOptions as StreamableHTTPClientTransportOptions['reconnectionOptions'],
    ...(kept._requestInit !== undefined ? { requestInit: kept._requestInit as RequestInit } : {}),
    ...(kept._authProvider !== undefined
      ? { authProvider: kept._authProvider as StreamableHTTPClientTransportOptions['authProvider'] }
      : {}),
    // With redirectPolicy 'follow' the kept fetch is the SDK's wrapper of the given one, which only calls it: wrapped
    // once more by the successor, it behaves the same.
    ...(kept._fetch !== undefined ? { fetch: kept._fetch as StreamableHTTPClientTransportOptions['fetch'] } : {}),
    ...(kept._followRedirects !== undefined
      ? { redirectPolicy: kept._followRedirects ? ('follow' as const) : ('same-origin' as const) }
      : {}),
  };
  const href = url.href;
  return () => new (Class as TransportClass)(new URL(href), options);
}
