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
   * case. A list replaces the default (keep `localhost` in it to still accept local clients); `'*'` accepts any
   * `Host`, for a server behind a reverse proxy that forwards the public name (better: list that name).
   * A request with no `Host` header is refused unless `'*'`.
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
   * listed. An entry is an origin, `scheme://host[:port]`, compared exactly (without case); `'*'` accepts any.
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
    let origin: string | undefined;
    try {
      const url = new URL(String(entry));
      if (typeof entry === 'string' && url.origin !== 'null' && (url.pathname === '/' || url.pathname === ''))
        origin = url.origin.toLowerCase();
    } catch {
      origin = undefined;
    }
    if (!origin || String(entry).replace(/\/$/, '').toLowerCase() !== origin)
      throw optionError(
        'allowedOrigins',
        `allowedOrigins entry ${JSON.stringify(entry)} is not an origin (scheme://host[:port])`,
      );
    return origin;
  });
}

const matches = (host: HostEntry, entry: HostEntry) =>
  host.name === entry.name && (entry.port === undefined || entry.port === host.port);

/**
 * Builds the Host/Origin check of an MCP HTTP handler. Pure apart from reading the request's headers and socket.
 * @throws {@link MediaAgentError} `MCP_OPTIONS_INVALID` for an entry that is not a host or an origin
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
  // A Host without a port names the scheme's default port (the local address entry has an exact port).
  const defaultPort = (req: IncomingMessage) => ((req.socket as { encrypted?: boolean }).encrypted ? '443' : '80');
  return (req) => {
    const header = req.headers.host;
    const parsed = typeof header === 'string' ? parseHost(header) : undefined;
    const host = parsed && { name: parsed.name, port: parsed.port ?? defaultPort(req) };
    if (hosts !== '*' && (!host || !hostAllowed(host, req)))
      return {
        code: 'MCP_HOST_FORBIDDEN',
        message: `the Host header ${JSON.stringify(header ?? null)} is not one this MCP server answers to (allowedHosts)`,
      };
    const origin = req.headers.origin;
    if (origin === undefined || origins === '*') return undefined;
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    const refused: GuardRefusal = {
      code: 'MCP_ORIGIN_FORBIDDEN',
      message: `the Origin ${JSON.stringify(origin)} may not call this MCP server (allowedOrigins)`,
    };
    if (!url || url.origin === 'null') return refused;
    if (origins?.includes(url.origin.toLowerCase())) return undefined;
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
