// How `old_text` locates one memory entry.
import { MemoryError } from './errors';

/**
 * The index of the entry `oldText` locates: the entry equal to it when there is one, else the
 * entries containing it — which must all be the same text (the first is used).
 * @param entries - the working copy
 * @param oldText - the fragment (trimmed; must not be blank)
 * @throws {@link MemoryError} `MEMORY_INPUT_INVALID` for a blank `oldText`, `MEMORY_ENTRY_NOT_FOUND`
 *   when nothing contains it, `MEMORY_ENTRY_AMBIGUOUS` when different entries contain it
 * @public
 */
export function locateEntry(entries: readonly string[], oldText: string): number {
  const needle = oldText.trim();
  if (!needle) throw new MemoryError('MEMORY_INPUT_INVALID', 'old_text must not be empty');
  const exact = entries.indexOf(needle);
  if (exact >= 0) return exact;
  const hits = entries.flatMap((e, i) => (e.includes(needle) ? [i] : []));
  if (hits.length === 0)
    throw new MemoryError(
      'MEMORY_ENTRY_NOT_FOUND',
      `no entry contains old_text ${JSON.stringify(needle.slice(0, 80))}`,
    );
  if (new Set(hits.map((i) => entries[i])).size > 1)
    throw new MemoryError(
      'MEMORY_ENTRY_AMBIGUOUS',
      `old_text ${JSON.stringify(needle.slice(0, 80))} is not uniquely matched (${hits.length} entries); re-read and use a precise fragment`,
      { matches: hits.length },
    );
  return hits[0]!;
}
