// A record of string keys kept bounded by forgetting the least recently seen keys.

/**
 * Sets `record[key]` as the most recently seen entry (last in key order) and forgets the least
 * recently seen ones beyond `max`, so what a run stores stays bounded however many distinct calls it makes.
 * @param record - the record, changed in place (key order is recency order)
 * @param key - the key seen now
 * @param value - its value
 * @param max - most keys kept (at least 1)
 * @internal
 */
export function rememberRecent<T>(record: Record<string, T>, key: string, value: T, max: number): void {
  delete record[key];
  record[key] = value;
  let excess = Object.keys(record).length - Math.max(1, max);
  if (excess <= 0) return;
  for (const old of Object.keys(record)) {
    if (excess-- <= 0) break;
    delete record[old];
  }
}
