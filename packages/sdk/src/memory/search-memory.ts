// `search_memory`: line search over the global and the user's Markdown memory.
import { schemaIssues } from '../core/schema-issues';
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import type { MemoryFileInfo, MemoryScope, MemoryStore } from '../ports/memory-store';
import { MemoryError } from './errors';
import { matchLinesOffThread } from './regex-worker';
import { blockedEntry } from './snapshot';
import { scanThreats } from './threat-scan';

/**
 * Input of `search_memory`. Extra fields are rejected.
 * @public
 */
export const SearchMemoryInputSchema = Type.Object(
  {
    query: Type.Optional(
      Type.String({
        maxLength: 256,
        description: 'case-insensitive literal text matched line by line; empty matches every non-blank line',
      }),
    ),
    category: Type.Optional(
      Type.Union([Type.Literal('all'), Type.Literal('primary'), Type.Literal('topic')], {
        description: 'primary: MEMORY.md / USER.md; topic: other notes; default all',
      }),
    ),
    file_path: Type.Optional(Type.String({ maxLength: 1024, description: 'a path returned earlier: search only it' })),
    use_regex: Type.Optional(Type.Boolean({ description: 'treat query as a regular expression (default false)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'entries returned, default 20' })),
  },
  { additionalProperties: false },
);

/** Input of `search_memory`. @public */
export type SearchMemoryInput = Static<typeof SearchMemoryInputSchema>;

/** One matching line. @public */
export interface SearchMemoryEntry {
  /** File path (relative to the memory root). */
  path: string;
  /** `primary` (MEMORY.md / USER.md) or `topic`. */
  category: 'primary' | 'topic';
  /** Line number, from 1. */
  line: number;
  /** The line (at most 1200 characters; masked when it matched a threat pattern). */
  text: string;
  /** `global` or `user`. */
  scope: 'global' | 'user';
}

/** Result of `search_memory`. @public */
export interface SearchMemoryResult {
  /** Always true (failures throw). */
  success: true;
  /** Matching lines, primary before topic, global before user, then by path and line. */
  entries: SearchMemoryEntry[];
  /** Lines that matched. */
  total_count: number;
  /** Lines returned. */
  returned_count: number;
  /** True when matches were left out (the limit or the 32 KiB response cap). */
  truncated: boolean;
  /** Files not searched, with the reason (`file_too_large`, `read_failed`). */
  skipped_files: Array<{ path: string; reason: string }>;
  /** Number of files searched. */
  searched_files: number;
}

/** Files larger than this (2 MiB) are skipped. @public */
export const SEARCH_MEMORY_MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_LINE = 1200;
const READ_CONCURRENCY = 16;
const MAX_RESPONSE_BYTES = 32 * 1024;
const check = Compile(SearchMemoryInputSchema);

/**
 * Searches memory Markdown: the global folder (not `users/`) and the user's folder, never
 * `activity/`, never a symlink leaving its folder.
 * @param store - the memory store
 * @param userKey - the user's key (undefined: only the global memory is visible)
 * @param input - see {@link SearchMemoryInputSchema}
 * @param regexDeadlineMs - longest run of a regex (it runs on a worker thread)
 * @throws {@link MemoryError} `MEMORY_INPUT_INVALID`, `MEMORY_SEARCH_TIMEOUT`
 * @public
 */
export async function searchMemory(
  store: MemoryStore,
  userKey: string | undefined,
  input: unknown,
  regexDeadlineMs: number,
): Promise<SearchMemoryResult> {
  if (!check.Check(input)) {
    const first = schemaIssues(check.Errors(input), input)[0];
    throw new MemoryError(
      'MEMORY_INPUT_INVALID',
      `invalid search_memory input${first ? ` at ${first.path || '/'}: ${first.message}` : ''}`,
    );
  }
  const q = input as SearchMemoryInput;
  const query = q.query ?? '';
  const limit = q.limit ?? 20;
  if (q.use_regex) {
    try {
      new RegExp(query, 'iu');
    } catch (error) {
      throw new MemoryError('MEMORY_INPUT_INVALID', `invalid regular expression: ${(error as Error).message}`);
    }
  }
  const scopes: Array<[MemoryScope, 'global' | 'user']> = [[{ kind: 'global' }, 'global']];
  if (userKey) scopes.push([{ kind: 'user', userKey }, 'user']);
  let files: Array<MemoryFileInfo & { scope: 'global' | 'user' }> = [];
  for (const [scope, name] of scopes)
    files.push(...(await store.listMarkdown(scope)).map((f) => ({ ...f, scope: name })));
  const rank = (f: (typeof files)[number]) => (f.primary ? 0 : 2) + (f.scope === 'global' ? 0 : 1);
  files.sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path));
  if (q.file_path !== undefined) {
    const wanted = q.file_path.replace(/^\.?\//, '');
    files = files.filter((f) => f.path === wanted);
    if (files.length === 0)
      throw new MemoryError('MEMORY_INPUT_INVALID', `${q.file_path} is not a visible memory file`);
  }
  const category = q.category ?? 'all';
  files = files.filter((f) => category === 'all' || (category === 'primary') === f.primary);

  const skipped: SearchMemoryResult['skipped_files'] = [];
  const readable = files.filter((file) => {
    if (file.size <= SEARCH_MEMORY_MAX_FILE_BYTES) return true;
    skipped.push({ path: file.path, reason: 'file_too_large' });
    return false;
  });
  // Read a few files at a time (the order of the results does not depend on it).
  const texts: (string | undefined)[] = new Array(readable.length);
  for (let at = 0; at < readable.length; at += READ_CONCURRENCY)
    await Promise.all(
      readable.slice(at, at + READ_CONCURRENCY).map(async (file, k) => {
        texts[at + k] = await store.readMarkdown(file.path).catch(() => undefined);
      }),
    );
  const searched: Array<{ file: (typeof files)[number]; text: string; lines?: string[] }> = [];
  readable.forEach((file, k) => {
    const text = texts[k];
    if (text === undefined) skipped.push({ path: file.path, reason: 'read_failed' });
    else searched.push({ file, text });
  });
  const linesOf = (s: (typeof searched)[number]) => (s.lines ??= s.text.split(/\r?\n/));
  let hits: Array<[number, number]>;
  if (q.use_regex && query)
    hits = await matchLinesOffThread(
      query,
      searched.map((s) => s.text),
      regexDeadlineMs,
    );
  else {
    const needle = query.toLowerCase();
    hits = [];
    for (const [f, s] of searched.entries()) {
      // Most files do not hold the keyword at all: only those that do are split into lines.
      if (needle && !s.text.toLowerCase().includes(needle)) continue;
      for (const [i, line] of linesOf(s).entries())
        if (line.trim() && line.toLowerCase().includes(needle)) hits.push([f, i]);
    }
  }
  const entries: SearchMemoryEntry[] = [];
  let bytes = 200;
  let truncated = hits.length > limit;
  for (const [f, i] of hits.slice(0, limit)) {
    const file = searched[f]!.file;
    const lines = linesOf(searched[f]!);
    const cps = [...lines[i]!];
    const raw = cps.length > MAX_LINE ? cps.slice(0, MAX_LINE).join('') : lines[i]!;
    const threat = scanThreats(raw, 'strict');
    const entry: SearchMemoryEntry = {
      path: file.path,
      category: file.primary ? 'primary' : 'topic',
      line: i + 1,
      text: threat ? blockedEntry(file.path, threat.id) : raw,
      scope: file.scope,
    };
    bytes += Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (bytes > MAX_RESPONSE_BYTES) {
      truncated = true;
      break;
    }
    entries.push(entry);
  }
  return {
    success: true,
    entries,
    total_count: hits.length,
    returned_count: entries.length,
    truncated,
    skipped_files: skipped,
    searched_files: searched.length,
  };
}
