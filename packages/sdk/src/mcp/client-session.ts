// The connection to one consumed MCP server: the client in use and, when the transport can be made again, how to
// open a new session (a new `initialize`) when the server no longer knows the old one.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { watchAnswerStreams } from './answer-stream-loss';

/** What the SDK needs of an MCP client: list and call tools, its transport (unset once closed), and closing it. */
export type McpClientLike = Pick<Client, 'listTools' | 'callTool' | 'transport'> & { close?(): Promise<void> };

/**
 * The client of one consumed MCP server, renewable when the SDK can make a new transport to it (the host gave a
 * transport factory, or a transport object of a kind that has a successor: see `streamableHttpSuccessor`).
 *
 * @remarks
 * Per the MCP specification (Streamable HTTP transport, "Session Management",
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#session-management): "When a client
 * receives HTTP 404 in response to a request containing an Mcp-Session-Id, it MUST start a new session by sending
 * a new InitializeRequest without a session ID attached." {@link McpClientSession.renew} does so with a new
 * transport (a started transport cannot drop its session id): concurrent callers that saw the same session end
 * share one renewal, and the old client is closed once its last request in flight has settled (so a request that
 * may still be answered is not cut off).
 *
 * Once {@link McpClientSession.close}d (see {@link McpClientSession.closeWith}), every client is closed and no new
 * session is opened: a request then finds no connection.
 *
 * When the SSE answer stream of a request breaks on a Streamable HTTP client (the server restarted or a proxy cut the
 * connection while a tool ran; see `watchAnswerStreams`), the MCP SDK only reports it to the transport's `onerror`
 * and the request would wait for its timeout: the session then fires the `lost` signal of that client's requests in
 * flight (the SDK does not tell which request's stream broke, so all of them), its reason an `McpError`
 * `ConnectionClosed`.
 */
export class McpClientSession {
  #current: McpClientLike;
  readonly #open: (() => Promise<McpClientLike>) | undefined;
  #opening: Promise<void> | undefined;
  readonly #inFlight = new Map<McpClientLike, number>();
  /** Per client with requests in flight: fired when an answer stream of that client broke. */
  readonly #lost = new Map<McpClientLike, AbortController>();
  readonly #retired = new Set<McpClientLike>();
  #closed = false;
  /** The client over the host's own transport object, while the session has not closed it itself. */
  #hostClient: McpClientLike | undefined;
  /** The session is closing {@link McpClientSession.#hostClient}: the next close it sees is its own, not the host's. */
  #closingHostClient = false;

  /**
   * @param client - the connected client to start with
   * @param open - makes and connects a new client over a new transport (a new session); without it the session
   *   cannot be renewed
   */
  constructor(client: McpClientLike, open?: () => Promise<McpClientLike>) {
    this.#current = client;
    this.#open = open;
    this.#watch(client);
  }

  /** Whether a new session can be opened (a way to make transports was given, and the session is not closed). */
  get renewable(): boolean {
    return this.#open !== undefined && !this.#closed;
  }

  /** Whether the session was closed: no request is sent and no session opened any more. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The client requests go to now. */
  get client(): McpClientLike {
    return this.#current;
  }

  /**
   * Closes the whole session when the host closes `transport`, the transport object it gave, whose client is
   * `client`: after a renewal the session runs over a transport the SDK made, which the host cannot reach, so
   * `transport.close()` — the documented way to disconnect a transport — must close that one too. When the session
   * itself closes `client` (retiring it in a renewal), the close is its own and nothing else is closed; a later
   * `transport.close()` by the host still closes the session.
   *
   * @param transport - the host's transport object, connected (its `onclose` is chained, as the MCP SDK's `Protocol`
   *   chains it: the handlers already set still run first)
   * @param client - the client connected over it, the session's current client
   */
  closeWith(transport: Pick<Transport, 'onclose'>, client: McpClientLike): void {
    this.#hostClient = client;
    const chained = transport.onclose;
    transport.onclose = () => {
      chained?.();
      // The one close the session's own `client.close()` causes; any other is the host's.
      if (this.#closingHostClient) this.#closingHostClient = false;
      else void this.close();
    };
  }

  /**
   * Runs one request on the current client, counted as in flight on it.
   * @param request - the request; it gets the client it runs on, and a signal fired when an answer stream of that
   *   client broke while the request was in flight (the request can no longer be answered: abort it with the
   *   signal's reason)
   * @returns what `request` returns
   */
  async use<T>(request: (client: McpClientLike, lost: AbortSignal) => Promise<T>): Promise<T> {
    const client = this.#current;
    this.#inFlight.set(client, (this.#inFlight.get(client) ?? 0) + 1);
    let lost = this.#lost.get(client);
    if (!lost) this.#lost.set(client, (lost = new AbortController()));
    try {
      return await request(client, lost.signal);
    } finally {
      const left = (this.#inFlight.get(client) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(client, left);
      else {
        this.#inFlight.delete(client);
        this.#lost.delete(client);
        if (this.#retired.delete(client)) void this.#closeClient(client);
      }
    }
  }

  /**
   * Opens a new session in place of `stale`, unless that was done already (another caller renewed it, or is
   * renewing it now: then this waits for that renewal).
   * @param stale - the client whose session ended
   * @throws whatever making or connecting the new client throws (the current client is left as it was);
   *   an `Error` when the session is not renewable or was closed meanwhile
   */
  async renew(stale: McpClientLike): Promise<void> {
    if (this.#current !== stale && !this.#opening) return;
    if (!this.#open) throw new Error('this MCP server was not registered with a transport that can be made again');
    if (this.#closed) throw new Error('the MCP session was closed (its transport was closed)');
    const open = this.#open;
    this.#opening ??= (async () => {
      try {
        const next = await open();
        // Closed while the new session was opening: it is closed at once, never used.
        if (this.#closed) {
          await next.close?.().catch(() => undefined);
          throw new Error('the MCP session was closed (its transport was closed)');
        }
        const old = this.#current;
        this.#current = next;
        this.#watch(next);
        if (this.#inFlight.has(old)) this.#retired.add(old);
        else void this.#closeClient(old);
      } finally {
        this.#opening = undefined;
      }
    })();
    await this.#opening;
  }

  /**
   * Closes the session: the current client and every retired one still waiting for its requests in flight (those
   * end as the MCP SDK ends requests on a closed connection). No new session is opened afterwards. Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const clients = [this.#current, ...this.#retired];
    this.#retired.clear();
    await Promise.all(clients.map((client) => this.#closeClient(client)));
  }

  /** Watches the answer streams of `client`'s transport: a broken one fires the `lost` signal of its requests. */
  #watch(client: McpClientLike): void {
    const transport = client.transport;
    if (!transport) return;
    watchAnswerStreams(
      transport,
      (error) => {
        const lost = this.#lost.get(client);
        if (!lost) return;
        // Requests sent from now on get a signal of their own.
        this.#lost.delete(client);
        lost.abort(
          new McpError(
            ErrorCode.ConnectionClosed,
            `the answer stream broke after the request was sent (${error.message})`,
          ),
        );
      },
      // The client drops its transport once that is closed (closing breaks its streams too).
      () => client.transport !== transport,
    );
  }

  /** Closes one client; closing the client over the host's transport is marked as the session's own close. */
  async #closeClient(client: McpClientLike): Promise<void> {
    const own = client === this.#hostClient;
    if (own) this.#closingHostClient = true;
    try {
      await client.close?.();
    } catch {
      // A client that fails to close is gone for the session all the same.
    } finally {
      if (own) {
        this.#closingHostClient = false;
        this.#hostClient = undefined;
      }
    }
  }
}
