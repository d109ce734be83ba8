// Incremental Server-Sent Events parser over raw bytes.
// Rules from the WHATWG HTML standard, "9.2.6 Interpreting an event stream":
// https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation

/**
 * One dispatched Server-Sent Event.
 *
 * @public
 */
export interface SseEvent {
  /** The `event:` field, `message` when the server sent none. */
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The last `id:` seen on the stream so far (the spec's "last event ID"), or `''`. */
  id: string;
  /** A `retry:` reconnection delay in ms sent with this event, if any. */
  retry?: number;
}

const LF = 10;
const CR = 13;

/**
 * Byte-level SSE parser: feed it chunks exactly as they come off the socket (lines, events and
 * UTF-8 sequences may be split anywhere) and it returns complete events.
 *
 * @remarks
 * Follows the WHATWG rules: lines end in CRLF, LF or CR; a leading BOM is dropped; `:` lines are
 * comments; one space after the colon is removed; `data` lines accumulate; a blank line dispatches;
 * an event with no data is not dispatched; `id` containing NUL is ignored; `retry` must be digits.
 * One leniency, shared with the official SDKs: a final event not followed by a blank line is
 * still dispatched by {@link SseParser.end}.
 *
 * @public
 */
export class SseParser {
  #pending: Buffer[] = [];
  #skipLf = false;
  #bomChecked = false;
  #eventType = '';
  #data: string[] = [];
  #lastId = '';
  #retry: number | undefined;

  /**
   * Parses one chunk.
   * @param chunk - bytes from the stream, any size
   * @returns the events completed by this chunk (often none or one)
   */
  feed(chunk: Uint8Array): SseEvent[] {
    const out: SseEvent[] = [];
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let pos = 0;
    const len = buf.length;
    if (this.#skipLf && len > 0) {
      if (buf[0] === LF) pos = 1;
      this.#skipLf = false;
    }
    let lf = buf.indexOf(LF, pos);
    let cr = buf.indexOf(CR, pos);
    while (pos < len) {
      if (lf !== -1 && lf < pos) lf = buf.indexOf(LF, pos);
      if (cr !== -1 && cr < pos) cr = buf.indexOf(CR, pos);
      let end: number;
      if (lf === -1 && cr === -1) break;
      if (cr === -1 || (lf !== -1 && lf < cr)) end = lf;
      else end = cr;
      let line: string;
      if (this.#pending.length > 0) {
        this.#pending.push(buf.subarray(pos, end));
        line = Buffer.concat(this.#pending).toString('utf8');
        this.#pending = [];
      } else {
        line = buf.toString('utf8', pos, end);
      }
      if (buf[end] === CR) {
        if (end + 1 < len) pos = buf[end + 1] === LF ? end + 2 : end + 1;
        else {
          pos = end + 1;
          this.#skipLf = true;
        }
      } else pos = end + 1;
      this.#line(line, out);
    }
    if (pos < len) this.#pending.push(buf.subarray(pos));
    return out;
  }

  /**
   * Ends the stream: an unterminated last line is processed and a pending event dispatched.
   * @returns the final events (zero or one)
   */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.#pending.length > 0) {
      const line = Buffer.concat(this.#pending).toString('utf8');
      this.#pending = [];
      this.#line(line, out);
    }
    this.#line('', out);
    return out;
  }

  #line(raw: string, out: SseEvent[]): void {
    let line = raw;
    if (!this.#bomChecked) {
      this.#bomChecked = true;
      if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    }
    if (line.length === 0) {
      if (this.#data.length > 0) {
        const ev: SseEvent = { event: this.#eventType || 'message', data: this.#data.length === 1 ? this.#data[0]! : this.#data.join('\n'), id: this.#lastId };
        if (this.#retry !== undefined) ev.retry = this.#retry;
        out.push(ev);
      }
      this.#data = [];
      this.#eventType = '';
      this.#retry = undefined;
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return;
    const colon = line.indexOf(':');
    let field: string;
    let value: string;
    if (colon === -1) {
      field = line;
      value = '';
    } else {
      field = line.slice(0, colon);
      value = line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    switch (field) {
      case 'data':
        this.#data.push(value);
        break;
      case 'event':
        this.#eventType = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.#lastId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.#retry = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
  }
}

/**
 * Reads a byte stream as Server-Sent Events.
 *
 * @param source - bytes, e.g. an undici response body
 * @returns the events in order; ends when `source` ends
 * @public
 */
export async function* readSse(source: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  for await (const chunk of source) {
    const events = parser.feed(chunk);
    for (let i = 0; i < events.length; i++) yield events[i]!;
  }
  yield* parser.end();
}

/**
 * Reads a byte stream as batches of Server-Sent Events: one array per chunk that completed at
 * least one event. Saves one asynchronous hop per event compared with {@link readSse}.
 *
 * @param source - bytes, e.g. an undici response body
 * @returns non-empty arrays of events, in order
 * @public
 */
export async function* readSseBatches(source: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent[]> {
  const parser = new SseParser();
  for await (const chunk of source) {
    const events = parser.feed(chunk);
    if (events.length > 0) yield events;
  }
  const last = parser.end();
  if (last.length > 0) yield last;
}
