// DNS-rebinding protection of the MCP HTTP endpoint: which Host and Origin headers a request may carry.
import type { IncomingMessage } from 'node:http';
import { MediaAgentError } from '../core/errors';

/** The loopback names accepted with any port by default. */
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** A host entry: the name (lower case, IPv6 in brackets) and the port, or undefined for any port. */
interface HostEntry {
  name: string;
  port: string | undefined;
}

/** Splits `name[:port]` (`[v6][:port]` for IPv6); undefined when it is not a host. */
function parseHost(value: string): HostEntry | undefined {
  const text = value.trim().toLowerCase();
  const v6 = /^(\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/.exec(text);
  if (v6) return { name: v6[1]!, port: v6[2] };
  const plain = /^([a-z0-9_.-]+)(?::(\d{1,5}))?$/.exec(text);
  if (!plain || plain[1]!.length === 0) return undefined;
  return { name: plain[1]!, port: plain[2] };
}

/** The default ports of `http` and `https`: the port a `Host` without one stands for. */
const DEFAULT_PORTS = ['80', '443'];

/**
 * An origin as browsers serialize it (RFC 6454 §6.2): `scheme://host[:port]`, no user info, path, query or
 * fragment, not even a trailing `/`.
 */
const ORIGIN_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s\\]+$/i;

/**
 * The authority the request was sent to: the `Host` header, or for an HTTP/2 request (which has none) the
 * `:authority` pseudo-header (node:http2 compatibility API).
 */
function authorityOf(req: IncomingMessage): string | undefined {
  const host = req.headers.host;
  if (typeof host === 'string') return host;
  const authority = (req.headers as Record<string, string | string[] | undefined>)[':authority'];
  return typeof authority === 'string' ? authority : undefined;
}

/** The socket's local address as a Host header names it (`::ffff:` mapped IPv4 unwrapped, IPv6 bracketed). */
function localHostOf(req: IncomingMessage): HostEntry | undefined {
  let address = req.socket?.localAddress;
  const port = req.socket?.localPort;
  if (!address || port === undefined) return undefined;
  if (address.startsWith('::ffff:') && address.includes('.')) address = address.slice('::ffff:'.length);
  const name = address.includes(':') ? `[${address.toLowerCase()}]` : address.toLowerCase();
  return { name, port: String(port) };
}

/** Host and Origin rules of an MCP HTTP endpoint. @public */
export interface McpHttpGuardOptions {
  /**
   * The `Host` header values a request may carry (DNS-rebinding protection: a page on `evil.example` whose name
   * was made to resolve to this machine sends `Host: evil.example`). An entry is a name, matching any port
   * (`mcp.example.com`, `192.168.1.20`, `[::1]`), or `name:port`, matching that port only. Names compare without
   * case. A `Host` without a port (as a browser sends it for the default port of its scheme) matches a `name:80`
   * and a `name:443` entry: a server behind a TLS-terminating proxy listed as `mcp.example.com:443` accepts
   * `Host: mcp.example.com` arriving over plain HTTP. For HTTP/2 requests (node:http2 compatibility API), which
   * carry no `Host` header, the `:authority` pseudo-header is read instead. A list replaces the default (keep `localhost` in it to still accept local clients); `'*'` accepts any
   * `Host`, for a server behind a reverse proxy that forwards the public name (better: list that name).
   * A request with no `Host` (and no `:authority`) is refused unless `'*'`.
   * @defaultValue the loopback names `localhost`, `127.0.0.1` and `[::1]` with any port, and the address and
   *   port the request arrived at (the socket's local address, so a server listening on every interface accepts
   *   `http://<its LAN address>:<port>`)
   */
  allowedHosts?: readonly string[] | '*';
  /**
   * The `Origin` header values a request may carry besides the server's own origin (browsers send it; other
   * clients usually do not, and a request without one is not refused by this rule). An origin whose host and
   * port are the request's `Host` (same origin; a `Host` without a port stands for the default port of the
   * origin's scheme) always passes, so a page served by this server can call it; every other origin must be
   * listed. An entry is an origin, `scheme://host[:port]` (a trailing `/` is tolerated), compared without case
   * and with the default port of `http` (80) and `https` (443) left out on both sides, so
   * `https://app.example.com:443` matches the `Origin: https://app.example.com` browsers send; `'*'` accepts any.
   * An `Origin` header that is not an origin (it has a path, a trailing `/`, user info, a query) is always refused.
   * `Origin: null` (a sandboxed page, a file) is refused unless `'*'`. Listing is the only way another local
   * app (say `http://localhost:3000` calling a server on port 8080) gets in: a browser attaches cookies to
   * such calls, so a server authenticating by cookie would otherwise act for any page on the machine.
   * @defaultValue same-origin pages only
   */
  allowedOrigins?: readonly string[] | '*';
}

/** Why a request was refused: the code and message of the 403 answer. */
export interface GuardRefusal {
  code: 'MCP_HOST_FORBIDDEN' | 'MCP_ORIGIN_FORBIDDEN';
  message: string;
}

/** The checker of one handler's options. */
export type RequestGuard = (req: IncomingMessage) => GuardRefusal | undefined;

function optionError(option: string, message: string): MediaAgentError {
  return new MediaAgentError('MCP_OPTIONS_INVALID', message, { option });
}

function parseHostList(list: unknown): HostEntry[] | '*' {
  if (list === '*') return '*';
  if (!Array.isArray(list))
    throw optionError('allowedHosts', "allowedHosts must be '*' or a list of host names (name or name:port)");
  return list.map((entry) => {
    const parsed = typeof entry === 'string' ? parseHost(entry) : undefined;
    if (!parsed)
      throw optionError(
        'allowedHosts',
        `allowedHosts entry ${JSON.stringify(entry)} is not a host name (name or name:port, IPv6 in brackets; no scheme or path)`,
      );
    return parsed;
  });
}

function parseOriginList(list: unknown): string[] | '*' | undefined {
  if (list === undefined || list === '*') return list;
  if (!Array.isArray(list))
    throw optionError('allowedOrigins', "allowedOrigins must be '*' or a list of origins (scheme://host[:port])");
  return list.map((entry) => {
    const origin = typeof entry === 'string' ? originOf(entry.trim().replace(/\/$/, '')) : undefined;
    if (!origin)
      throw optionError(
        'allowedOrigins',
        `allowedOrigins entry ${JSON.stringify(entry)} is not an origin (scheme://host[:port])`,
      );
    return origin;
  });
}

/**
 * The serialized origin (lower case, default port left out) of a value in origin form; undefined for anything
 * else, `null` included.
 */
function originOf(value: string): string | undefined {
  if (!ORIGIN_FORM.test(value)) return undefined;
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? undefined : origin.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Whether a Host (port undefined: none given, the default port of the client's scheme) matches an entry. */
const matches = (host: HostEntry, entry: HostEntry) =>
  host.name === entry.name &&
  (entry.port === undefined ||
    (host.port === undefined ? DEFAULT_PORTS.includes(entry.port) : entry.port === host.port));

/**
 * Builds the Host/Origin check of an MCP HTTP handler. Pure apart from reading the request's headers and socket.
 * @throws `MCP_OPTIONS_INVALID` ({@link MediaAgentError}) for an entry that is not a host or an origin
 */
export function requestGuard(options: McpHttpGuardOptions): RequestGuard {
  const hosts = options.allowedHosts === undefined ? undefined : parseHostList(options.allowedHosts);
  const origins = parseOriginList(options.allowedOrigins);
  const hostAllowed = (host: HostEntry, req: IncomingMessage): boolean => {
    if (hosts === '*') return true;
    if (hosts) return hosts.some((entry) => matches(host, entry));
    if (LOOPBACK.includes(host.name)) return true;
    const local = localHostOf(req);
    return local !== undefined && matches(host, local);
  };
  return (req) => {
    const header = authorityOf(req);
    const parsed = typeof header === 'string' ? parseHost(header) : undefined;
    if (hosts !== '*' && (!parsed || !hostAllowed(parsed, req)))
      return {
        code: 'MCP_HOST_FORBIDDEN',
        message: `the Host header ${JSON.stringify(header ?? null)} is not one this MCP server answers to (allowedHosts)`,
      };
    const origin = req.headers.origin;
    if (origin === undefined || (origins === '*' && origin === 'null')) return undefined;
    const serialized = originOf(origin);
    const refused: GuardRefusal = {
      code: 'MCP_ORIGIN_FORBIDDEN',
      message: `the Origin ${JSON.stringify(origin)} may not call this MCP server (allowedOrigins)`,
    };
    if (!serialized) return refused;
    if (origins === '*' || origins?.includes(serialized)) return undefined;
    const url = new URL(serialized);
    // Same origin: the origin's host and port are the request's Host (a Host without a port names the default
    // port of the origin's scheme, as a browser sends it, also behind a TLS-terminating proxy).
    const originHost = parseHost(url.host);
    const originPort = originHost?.port ?? (url.protocol === 'https:' ? '443' : '80');
    const sameOrigin =
      parsed !== undefined &&
      originHost !== undefined &&
      originHost.name === parsed.name &&
      originPort === (parsed.port ?? (url.protocol === 'https:' ? '443' : '80'));
    return sameOrigin ? undefined : refused;
  };
}
