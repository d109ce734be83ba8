// A local node:http server that replays recorded SSE transcripts, so provider tests run the real
// undici code against real wire formats with no network.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * One SSE event to send.
 *
 * @public
 */
export interface ReplayEvent {
  /** `event:` field (omitted when undefined). */
  event?: string;
  /** `data:` payload (one line). */
  data: string;
}

/**
 * What the server answers to one request.
 *
 * @public
 */
export interface ReplayResponse {
  /** HTTP status (default 200). */
  status?: number;
  /** Response headers (default `content-type: text/event-stream` for event responses, `application/json` for `body`). */
  headers?: Record<string, string>;
  /** SSE events to stream. */
  events?: ReplayEvent[];
  /** A raw body instead of events (e.g. an error JSON). */
  body?: string;
  /** Split the encoded stream into chunks of this many bytes (default: one write per event). */
  chunkSize?: number;
  /** Wait between writes, in ms (default 0). */
  delayMs?: number;
  /** Wait before sending the headers, in ms (default 0). */
  headerDelayMs?: number;
  /** After this many events, stop writing but keep the connection open (to test idle timeouts and aborts). */
  stallAfterEvents?: number;
}

/**
 * A request the server received.
 *
 * @public
 */
export interface RecordedRequest {
  /** HTTP method. */
  method: string;
  /** Path and query. */
  url: string;
  /** Request headers (lower-case names). */
  headers: IncomingHttpHeaders;
  /** Body parsed as JSON (`undefined` when not JSON). */
  json: unknown;
  /** Resolves with `Date.now()` when the server-side socket of this request closes. */
  socketClosed: Promise<number>;
}

/**
 * Encodes events as an SSE byte string (`event:` line when set, `data:` line, blank line).
 * @param events - events to encode
 * @returns the wire text
 * @public
 */
export function encodeSse(events: ReadonlyArray<ReplayEvent>): string {
  let out = '';
  for (const e of events) out += `${e.event !== undefined ? `event: ${e.event}\n` : ''}data: ${e.data}\n\n`;
  return out;
}

/**
 * Turns a recorded transcript (one JSON payload per line, the format of
 * `fixtures/provider-streams`) into SSE events: Anthropic lines get `event: <type>`;
 * OpenAI-compatible lines are bare `data:` and the stream ends with `data: [DONE]`.
 *
 * @param text - file contents
 * @param format - `anthropic` or `openai`
 * @returns the events to replay
 * @public
 */
export function transcriptEvents(text: string, format: 'anthropic' | 'openai'): ReplayEvent[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (format === 'anthropic')
    return lines.map((data) => ({ event: (JSON.parse(data) as { type: string }).type, data }));
  return [...lines.map((data) => ({ data })), { data: '[DONE]' }];
}

const closeTimes = new WeakMap<Socket, Promise<number>>();

/** Resolves with `Date.now()` when `socket` closes; one listener per socket, however many keep-alive requests it carries. */
function closeTimeOf(socket: Socket): Promise<number> {
  let closed = closeTimes.get(socket);
  if (!closed) {
    closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
    closeTimes.set(socket, closed);
  }
  return closed;
}

/**
 * A local HTTP server that answers each request with the next scripted {@link ReplayResponse}
 * (the last one repeats) and records the requests.
 *
 * @public
 */
export class WireReplayServer {
  /** Requests received, in order. */
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #responses: ReplayResponse[] | ((req: RecordedRequest, index: number) => ReplayResponse);
  readonly #open = new Set<ServerResponse>();

  private constructor(responses: ReplayResponse[] | ((req: RecordedRequest, index: number) => ReplayResponse)) {
    this.#responses = responses;
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      const socketClosed = closeTimeOf(req.socket);
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(raw);
        } catch {
          json = undefined;
        }
        const recorded: RecordedRequest = {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          headers: req.headers,
          json,
          socketClosed,
        };
        const index = this.requests.push(recorded) - 1;
        const spec =
          typeof this.#responses === 'function'
            ? this.#responses(recorded, index)
            : (this.#responses[Math.min(index, this.#responses.length - 1)] ?? {});
        this.#open.add(res);
        res.on('close', () => this.#open.delete(res));
        void this.#respond(spec, res);
      });
    });
  }

  /**
   * Starts a server on an ephemeral port of 127.0.0.1.
   * @param responses - responses in request order (the last repeats), or a function of the request
   * @returns the listening server
   */
  static async start(
    responses: ReplayResponse[] | ((req: RecordedRequest, index: number) => ReplayResponse),
  ): Promise<WireReplayServer> {
    const s = new WireReplayServer(responses);
    await new Promise<void>((resolve) => s.#server.listen(0, '127.0.0.1', resolve));
    return s;
  }

  /** Base URL, e.g. `http://127.0.0.1:54321`. */
  get url(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  async #respond(spec: ReplayResponse, res: ServerResponse): Promise<void> {
    const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
    if (spec.headerDelayMs) await wait(spec.headerDelayMs);
    if (res.destroyed) return;
    const isEvents = spec.events !== undefined;
    res.writeHead(spec.status ?? 200, {
      'content-type': isEvents ? 'text/event-stream' : 'application/json',
      ...(isEvents ? { 'cache-control': 'no-cache' } : {}),
      ...spec.headers,
    });
    if (!isEvents) {
      res.end(spec.body ?? '');
      return;
    }
    const events = spec.events ?? [];
    const stallAt = spec.stallAfterEvents ?? Infinity;
    const writes: Buffer[] = [];
    if (spec.chunkSize) {
      const all = Buffer.from(encodeSse(events.slice(0, stallAt)), 'utf8');
      for (let i = 0; i < all.length; i += spec.chunkSize) writes.push(all.subarray(i, i + spec.chunkSize));
    } else for (const e of events.slice(0, stallAt)) writes.push(Buffer.from(encodeSse([e]), 'utf8'));
    for (const w of writes) {
      if (res.destroyed) return;
      res.write(w);
      if (spec.delayMs) await wait(spec.delayMs);
    }
    if (stallAt < events.length) {
      res.flushHeaders();
      return; // keep the connection open and silent
    }
    res.end();
  }

  /** Stops the server and destroys open connections. */
  async close(): Promise<void> {
    for (const res of this.#open) res.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
