// The on-disk format of a memory file: entries joined by a line holding a section sign.
/**
 * What separates two entries in `MEMORY.md` / `USER.md`: a newline, `§`, a newline. Only the whole
 * three-character separator splits, so a `§` inside an entry does not.
 * @public
 */
export const ENTRY_SEPARATOR = '\n§\n';

/**
 * Which file of a user's memory: `memory` is `MEMORY.md` (environment facts), `user` is `USER.md`
 * (cross-task preferences).
 * @public
 */
export type MemoryTarget = 'memory' | 'user';

/**
 * Budgets of the memory files, in Unicode code points of the whole joined text: `MEMORY.md` 2200,
 * `USER.md` 1375.
 * @public
 */
export const MEMORY_BUDGETS: Readonly<Record<MemoryTarget, number>> = Object.freeze({ memory: 2200, user: 1375 });

/** The file name of a target. @public */
export function memoryFileName(target: MemoryTarget): 'MEMORY.md' | 'USER.md' {
  return target === 'user' ? 'USER.md' : 'MEMORY.md';
}

/**
 * Length of a text in Unicode code points (an emoji or an astral CJK character counts once).
 * @public
 */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * The entries of a memory file: split on {@link ENTRY_SEPARATOR}, each trimmed, blank ones dropped,
 * exact duplicates removed (the first kept).
 * @public
 */
export function parseEntries(raw: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const part of raw.split(ENTRY_SEPARATOR)) {
    const entry = part.trim();
    if (!entry || seen.has(entry)) continue;
    seen.add(entry);
    out.push(entry);
  }
  return out;
}

/** The file text of a list of entries (joined by {@link ENTRY_SEPARATOR}). @public */
export function joinEntries(entries: readonly string[]): string {
  return entries.join(ENTRY_SEPARATOR);
}

/** `cur/limit` of a list of entries against a budget (code points). @public */
export function usageOf(entries: readonly string[], budget: number): string {
  return `${codePointLength(joinEntries(entries))}/${budget}`;
}
