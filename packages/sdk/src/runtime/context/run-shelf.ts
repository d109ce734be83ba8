// A run's shelf of stored tool results, and which of them make room for a new one.

/** The results one run holds: ids with their UTF-8 bytes, oldest first, and the bytes in all. @internal */
export interface RunShelf {
  /** result id → bytes, oldest first. */
  ids: Map<string, number>;
  /** Sum of the bytes. */
  bytes: number;
}

/**
 * The run's results to evict, oldest first, before a result of `incomingBytes` is stored: while the run holds any,
 * as long as one more would be over `maxResults` results or the bytes over `maxBytes`. A result larger than
 * `maxBytes` alone empties the shelf.
 * @param shelf - the run's shelf
 * @param incomingBytes - bytes of the result to store
 * @param maxResults - `maxResultsPerRun`
 * @param maxBytes - `maxBytesPerRun`
 * @returns the ids to evict
 * @internal
 */
export function evictionsFor(
  shelf: Readonly<RunShelf>,
  incomingBytes: number,
  maxResults: number,
  maxBytes: number,
): string[] {
  const out: string[] = [];
  let size = shelf.ids.size;
  let bytes = shelf.bytes;
  for (const [id, idBytes] of shelf.ids) {
    if (!(size + 1 > maxResults || bytes + incomingBytes > maxBytes)) break;
    out.push(id);
    size--;
    bytes -= idBytes;
  }
  return out;
}
