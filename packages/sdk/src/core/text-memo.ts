// A bounded memo of text results (redacted texts by text): two generations of maps, the older one
// dropped whole when the younger one is full, so a lookup is one or two Map reads and the memo never
// holds much more than its budget of characters.

/**
 * Results by text, bounded by characters (each entry counts its text and, when different, its result).
 * Entries used again are kept: a hit in the older generation moves to the younger one.
 * @internal
 */
export class TextMemo {
  readonly #generationChars: number;
  #young = new Map<string, string>();
  #old = new Map<string, string>();
  #youngChars = 0;

  /** @param maxChars - characters the memo holds at most (texts and results together, about) */
  constructor(maxChars: number) {
    this.#generationChars = Math.max(1, Math.floor(maxChars / 2));
  }

  /** The result stored for `text`, or `undefined`. */
  get(text: string): string | undefined {
    const young = this.#young.get(text);
    if (young !== undefined) return young;
    const old = this.#old.get(text);
    if (old !== undefined) this.set(text, old);
    return old;
  }

  /** Stores `result` for `text` (an entry larger than half the budget is not kept). */
  set(text: string, result: string): void {
    const chars = text.length + (result === text ? 0 : result.length);
    if (chars > this.#generationChars) return;
    if (this.#youngChars + chars > this.#generationChars) {
      this.#old = this.#young;
      this.#young = new Map();
      this.#youngChars = 0;
    }
    this.#young.set(text, result);
    this.#youngChars += chars;
  }

  /** Forgets every entry. */
  clear(): void {
    this.#young = new Map();
    this.#old = new Map();
    this.#youngChars = 0;
  }

  /** Characters held (texts and results), for tests. */
  get chars(): number {
    let n = 0;
    for (const map of [this.#young, this.#old])
      for (const [text, result] of map) n += text.length + (result === text ? 0 : result.length);
    return n;
  }
}
