// Applies memory operations to a working copy of the entries, all or nothing.
import { codePointLength, ENTRY_SEPARATOR, joinEntries } from './entries';
import { MemoryError } from './errors';
import { locateEntry } from './locate-entry';
import { scanThreats } from './threat-scan';

/**
 * One memory operation. `content` (or its alias `new_text`) is the whole new entry; `old_text`
 * only locates the entry a replace or remove works on.
 * @public
 */
export interface MemoryOperation {
  /** What to do. */
  action: 'add' | 'replace' | 'remove';
  /** The whole new entry (add, replace). */
  content?: string;
  /** Alias of `content`. */
  new_text?: string;
  /** A fragment locating the entry (replace, remove). */
  old_text?: string;
}

/** What applying operations gave. @public */
export interface AppliedOperations {
  /** The entries after every operation. */
  entries: string[];
  /** False when nothing changed (e.g. adding an entry that is already there). */
  changed: boolean;
  /** Per operation, the whole entry it replaced or removed; null for an add. */
  previous: (string | null)[];
}

/**
 * The new entry text of an add or replace: trimmed, non-empty, without a line that is only `§` (it would be read
 * back as an entry separator, splitting the entry or gluing it to its neighbour), free of threats.
 */
function newEntryOf(op: MemoryOperation): string {
  const content = (op.content ?? op.new_text ?? '').trim();
  if (!content) throw new MemoryError('MEMORY_INPUT_INVALID', `${op.action} needs a non-empty content`);
  if (`\n${content}\n`.includes(ENTRY_SEPARATOR))
    throw new MemoryError(
      'MEMORY_INPUT_INVALID',
      `${op.action}: an entry may not hold a line that is only "§" (the separator between entries); give each entry its own operation`,
    );
  const threat = scanThreats(content, 'strict');
  if (threat)
    throw new MemoryError(
      'MEMORY_THREAT_DETECTED',
      `content blocked (${threat.id}): memory is injected into future prompts and must not hold instructions, secrets or hidden text`,
      { pattern: threat.id, category: threat.category },
    );
  return content;
}

/**
 * Applies `operations` in order to a copy of `entries`. Each add and replace is scanned for
 * threats; `old_text` is located with {@link locateEntry} — or, when `pinned` is given (approving a
 * proposal), each replace or remove must find its pinned original entry exactly. The budget is
 * checked on the final state only, so one batch may free space and add.
 * @param entries - the current entries (not changed)
 * @param operations - 1 to 20 operations
 * @param options - `budget` in code points; `batch` when the call was a batch (a batch may not empty a
 *   store that had entries); `pinned` the original entry of each operation (null for adds); `uncounted`
 *   entries left out of the budget (text another writer put in the file, longer than the whole budget:
 *   an add must not be blocked by it, and the drift guard keeps replace and remove away from it)
 * @throws {@link MemoryError} `MEMORY_INPUT_INVALID`, `MEMORY_THREAT_DETECTED`, `MEMORY_ENTRY_NOT_FOUND`,
 *   `MEMORY_ENTRY_AMBIGUOUS`, `MEMORY_ORIGINAL_CHANGED` (pinned), `MEMORY_EMPTY_BATCH`, `MEMORY_OVER_BUDGET`
 * @public
 */
export function applyMemoryOperations(
  entries: readonly string[],
  operations: readonly MemoryOperation[],
  options: { budget: number; batch: boolean; pinned?: readonly (string | null)[]; uncounted?: readonly string[] },
): AppliedOperations {
  const work = [...entries];
  const previous: (string | null)[] = [];
  let changed = false;
  operations.forEach((op, i) => {
    if (op.action === 'add') {
      const content = newEntryOf(op);
      previous.push(null);
      if (!work.includes(content)) {
        work.push(content);
        changed = true;
      }
      return;
    }
    let at: number;
    if (options.pinned) {
      at = work.indexOf(options.pinned[i] ?? '\u0000');
      if (at < 0) throw new MemoryError('MEMORY_ORIGINAL_CHANGED', 'original changed; proposal kept', { operation: i });
    } else at = locateEntry(work, op.old_text ?? '');
    previous.push(work[at]!);
    if (op.action === 'remove') work.splice(at, 1);
    else {
      const content = newEntryOf(op);
      const dup = work.indexOf(content);
      if (dup >= 0 && dup !== at) work.splice(at, 1);
      else work[at] = content;
    }
    changed = true;
  });
  if (options.batch && entries.length > 0 && work.length === 0)
    throw new MemoryError(
      'MEMORY_EMPTY_BATCH',
      'a batch may not remove every entry; remove the last entry with a single remove',
    );
  const counted = options.uncounted ? work.filter((e) => !options.uncounted!.includes(e)) : work;
  const size = codePointLength(joinEntries(counted));
  if (size > options.budget)
    throw new MemoryError(
      'MEMORY_OVER_BUDGET',
      `memory would be ${size}/${options.budget} characters; merge or remove entries in the same batch`,
      { usage: `${size}/${options.budget}` },
    );
  return { entries: work, changed, previous };
}
