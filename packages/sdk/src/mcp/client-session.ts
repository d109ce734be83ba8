// The connection to one consumed MCP server: the client in use and, when the host gave a way to make transports,
// how to open a new session (a new `initialize`) when the server no longer knows the old one.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** What the SDK needs of an MCP client: list and call tools, its transport (unset once closed), and closing it. */
export type McpClientLike = Pick<Client, 'listTools' | 'callTool' | 'transport'> & { close?(): Promise<void> };

/**
 * The client of one consumed MCP server, renewable when the host registered it with a transport factory.
 *
 * @remarks
 * Per the MCP specification (Streamable HTTP transport, "Session Management",
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#session-management): "When a client
 * receives HTTP 404 in response to a request containing an Mcp-Session-Id, it MUST start a new session by sending
 * a new InitializeRequest without a session ID attached." {@link McpClientSession.renew} does so with a new
 * transport (a started transport cannot drop its session id): concurrent callers that saw the same session end
 * share one renewal, and the old client is closed once its last request in flight has settled (so a request that
 * may still be answered is not cut off).
 */
export class McpClientSession {
  #current: McpClientLike;
  readonly #open: (() => Promise<McpClientLike>) | undefined;
  #opening: Promise<void> | undefined;
  readonly #inFlight = new Map<McpClientLike, number>();
  readonly #retired = new Set<McpClientLike>();

  /**
   * @param client - the connected client to start with
   * @param open - makes and connects a new client over a new transport (a new session); without it the session
   *   cannot be renewed
   */
  constructor(client: McpClientLike, open?: () => Promise<McpClientLike>) {
    this.#current = client;
    this.#open = open;
  }

  /** Whether a new session can be opened (the host gave a transport factory). */
  get renewable(): boolean {
    return this.#open !== undefined;
  }

  /** The client requests go to now. */
  get client(): McpClientLike {
    return this.#current;
  }

  /**
   * Runs one request on the current client, counted as in flight on it.
   * @param request - the request; it gets the client it runs on
   * @returns what `request` returns
   */
  async use<T>(request: (client: McpClientLike) => Promise<T>): Promise<T> {
    const client = this.#current;
    this.#inFlight.set(client, (this.#inFlight.get(client) ?? 0) + 1);
    try {
      return await request(client);
    } finally {
      const left = (this.#inFlight.get(client) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(client, left);
      else {
        this.#inFlight.delete(client);
        if (this.#retired.delete(client)) void client.close?.().catch(() => undefined);
      }
    }
  }

  /**
   * Opens a new session in place of `stale`, unless that was done already (another caller renewed it, or is
   * renewing it now: then this waits for that renewal).
   * @param stale - the client whose session ended
   * @throws whatever making or connecting the new client throws (the current client is left as it was);
   *   an `Error` when the session is not renewable
   */
  async renew(stale: McpClientLike): Promise<void> {
    if (this.#current !== stale && !this.#opening) return;
    if (!this.#open) throw new Error('this MCP client was not registered with a transport factory');
    const open = this.#open;
    this.#opening ??= (async () => {
      try {
        const next = await open();
        const old = this.#current;
        this.#current = next;
        if (this.#inFlight.has(old)) this.#retired.add(old);
        else void old.close?.().catch(() => undefined);
      } finally {
        this.#opening = undefined;
      }
    })();
    await this.#opening;
  }
}
