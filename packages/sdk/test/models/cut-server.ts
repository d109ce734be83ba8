// A local HTTP server whose 200 streams can be cut: after some SSE events it either destroys the socket
// (the peer vanishes mid-response: undici reports "other side closed") or ends the body cleanly, as a
// proxy or load balancer that drops a long stream does. Counts the attempts it served.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeSse, type ReplayEvent } from '../../src/models/replay-server';

/** One scripted answer: events, then how the response ends. */
export interface CutResponse {
  /** SSE events written before the end. */
  events: ReplayEvent[];
  /** `destroy`: the socket is destroyed after the events; `end`: the body ends cleanly; `complete`: same as `end` (a whole stream). */
  ending: 'destroy' | 'end' | 'complete';
}

/** A server answering request n with `responses[n]` (the last repeats); `requests` counts them. */
export class CutServer {
  /** Request bodies received, parsed as JSON, in order. */
  readonly requests: unknown[] = [];
  readonly #server: Server;

  private constructor(responses: readonly CutResponse[]) {
    this.#server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.requests.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
        const spec = responses[Math.min(this.requests.length - 1, responses.length - 1)]!;
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(encodeSse(spec.events));
        // Let the events reach the client as their own chunk before the cut.
        setTimeout(() => (spec.ending === 'destroy' ? res.socket?.destroy() : res.end()), 10);
      });
    });
  }

  /** Starts a server on an ephemeral port of 127.0.0.1. */
  static async start(responses: readonly CutResponse[]): Promise<CutServer> {
    const s = new CutServer(responses);
    await new Promise<void>((resolve) => s.#server.listen(0, '127.0.0.1', resolve));
    return s;
  }

  /** Base URL, e.g. `http://127.0.0.1:54321`. */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Stops the server and its connections. */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
