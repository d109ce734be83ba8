// Bounded capture of a cell's stdout or stderr.

const encoder = new TextEncoder();

/**
 * Keeps the first `limitBytes` UTF-8 bytes written (whole code points) and counts the rest, so a
 * script that prints without bound never holds more than the limit in the host.
 */
export class OutputCapture {
  readonly #limitBytes: number;
  readonly #parts: string[] = [];
  #keptBytes = 0;
  #seenChars = 0;
  #keptChars = 0;
  #scratch: Uint8Array | undefined;

  /** @param limitBytes - UTF-8 bytes kept at most */
  constructor(limitBytes: number) {
    this.#limitBytes = limitBytes;
  }

  /**
   * Adds text a script wrote.
   * @param text - the text (possibly already cut by the sandbox)
   * @param writtenChars - its length before any cut, in UTF-16 units (default `text.length`)
   */
  write(text: string, writtenChars = text.length): void {
    this.#seenChars += writtenChars;
    const room = this.#limitBytes - this.#keptBytes;
    if (room <= 0 || text.length === 0) return;
    if (text.length * 3 <= room) {
      this.#keep(text, encoder.encode(text).length);
      return;
    }
    this.#scratch ??= new Uint8Array(Math.min(this.#limitBytes, 1_048_576));
    const buffer = room <= this.#scratch.length ? this.#scratch.subarray(0, room) : new Uint8Array(room);
    const { read, written } = encoder.encodeInto(text, buffer);
    this.#keep(text.slice(0, read), written);
  }

  #keep(text: string, bytes: number): void {
    this.#parts.push(text);
    this.#keptBytes += bytes;
    this.#keptChars += text.length;
  }

  /** True when nothing more can be kept (later writes are only counted). */
  get full(): boolean {
    return this.#keptBytes >= this.#limitBytes;
  }

  /**
   * Counts text that was written but not looked at (the capture is full).
   * @param writtenChars - its length in UTF-16 units
   */
  skip(writtenChars: number): void {
    this.#seenChars += writtenChars;
  }

  /** The kept text. */
  get text(): string {
    return this.#parts.join('');
  }

  /** UTF-8 bytes kept. */
  get keptBytes(): number {
    return this.#keptBytes;
  }

  /** True when more was written than was kept. */
  get truncated(): boolean {
    return this.#seenChars > this.#keptChars;
  }

  /** UTF-16 units written in all (kept or not). */
  get writtenChars(): number {
    return this.#seenChars;
  }
}

/**
 * The longest prefix of `text` of at most `maxBytes` UTF-8 bytes, cut between code points. Pure.
 * @param text - any text
 * @param maxBytes - the byte budget
 * @returns the prefix (all of `text` when it fits)
 */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  const buffer = new Uint8Array(maxBytes);
  const { read } = encoder.encodeInto(text, buffer);
  return text.slice(0, read);
}
