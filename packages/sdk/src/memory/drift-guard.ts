// The drift guard: a memory file that no longer round-trips was edited by another writer.
import { codePointLength, joinEntries, parseEntries } from './entries';

/**
 * True when a memory file was changed outside the memory tool: parsing it and joining the entries
 * again does not give back its trimmed text, or one entry alone is longer than the whole file's
 * budget. A replace or remove on such a file would clobber text nobody reviewed.
 * @param raw - the file's text as read
 * @param budget - the file's budget in code points
 * @public
 */
export function hasDrifted(raw: string, budget: number): boolean {
  const entries = parseEntries(raw);
  if (joinEntries(entries) !== raw.trim()) return true;
  return entries.some((e) => codePointLength(e) > budget);
}
