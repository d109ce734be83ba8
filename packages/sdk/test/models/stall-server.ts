// A local HTTP server that answers a streaming request with a 200, its headers and a head of SSE events, then
// writes one "tick" every `everyMs` until the client goes away: an SSE comment or `ping` event (keep-alive, no
// content) or a content delta (a model that trickles forever). The stall a deadline must cut, on the real wire.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the server writes. */
export interface StallSpec {
  /** Wire text written right after the headers (e.g. `message_start` with usage, a role-only delta). */
  head: string;
  /** Wire text written every `everyMs` (a ping, a comment, a text delta). */
  tick: string;
  /** Interval between ticks in ms. */
  everyMs: number;
}

/** A stalling server; `requests` counts the requests it answered, `closed` the responses the client dropped. */
export class StallServer {
  requests = 0;
  closed = 0;
  /** Ticks written, over all requests. */
  ticks = 0;
  readonly #server: Server;
  readonly #open = new Set<ServerResponse>();

  private constructor(spec: StallSpec) {
    this.#server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        this.requests++;
        this.#open.add(res);
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(spec.head);
        const timer = setInterval(() => {
          this.ticks++;
          res.write(spec.tick);
        }, spec.everyMs);
        res.on('close', () => {
          clearInterval(timer);
          this.#open.delete(res);
          this.closed++;
        });
      });
    });
  }

  /** Starts a server on an ephemeral port of 127.0.0.1. */
  static async start(spec: StallSpec): Promise<StallServer> {
    const s = new StallServer(spec);
    await new Promise<void>((resolve) => s.#server.listen(0, '127.0.0.1', resolve));
    return s;
  }

  /** `http://127.0.0.1:<port>`. */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Ends every open response and stops listening. */
  async close(): Promise<void> {
    for (const res of this.#open) res.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** An SSE event as wire text. */
export function sse(data: unknown, event?: string): string {
  return `${event !== undefined ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** Anthropic's `message_start` with the prompt's usage (what the API sends before any content). */
export function anthropicStart(inputTokens: number): string {
  return sse(
    {
      type: 'message_start',
      message: {
        id: 'msg_stall',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        stop_reason: null,
        usage: { input_tokens: inputTokens, output_tokens: 1 },
      },
    },
    'message_start',
  );
}
