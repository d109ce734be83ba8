// Applying a model's `old_string` → `new_string` edit to a file: the nine match strategies, refusal of
// ambiguous and escape-drifted matches, and a replacement shaped to the file (indentation, control
// characters, typography).
import { findMatches, type FuzzyStrategy, type TextSpan } from './fuzzy-strategies';
import { sequenceRatio } from './sequence-ratio';
import { foldTypography } from './typographic';

/** An edit to apply with {@link applyFuzzyPatch}. @public */
export interface FuzzyPatchRequest {
  /** The file's current text. */
  readonly content: string;
  /** The text to find (non-empty, not only whitespace). */
  readonly oldString: string;
  /** What replaces it (may be empty). */
  readonly newString: string;
  /** Replace every match instead of refusing when there are several. @defaultValue false */
  readonly replaceAll?: boolean;
}

/** Why {@link applyFuzzyPatch} refused; each is a registered error code. @public */
export type FuzzyPatchRefusal =
  | 'SKILL_PATCH_INVALID'
  | 'SKILL_PATCH_NO_MATCH'
  | 'SKILL_PATCH_AMBIGUOUS'
  | 'SKILL_PATCH_ESCAPE_DRIFT';

/** The outcome of {@link applyFuzzyPatch}. @public */
export type FuzzyPatchOutcome =
  | {
      readonly ok: true;
      /** The file's new text. */
      readonly content: string;
      /** The strategy that found the match. */
      readonly strategy: FuzzyStrategy;
      /** How many places were replaced. */
      readonly replacements: number;
    }
  | {
      readonly ok: false;
      readonly code: FuzzyPatchRefusal;
      /** What went wrong and what to do instead (written for the model). */
      readonly message: string;
    };

const SIMILARITY_STRATEGIES: ReadonlySet<FuzzyStrategy> = new Set(['block_anchor', 'context_aware']);

const refuse = (code: FuzzyPatchRefusal, message: string): FuzzyPatchOutcome => ({ ok: false, code, message });

/**
 * Applies one edit: finds `oldString` in `content` by the first of nine strategies that matches
 * (exact, line-trimmed, whitespace-normalized, indentation-flexible, escape-normalized,
 * trimmed-boundary, unicode-normalized, block-anchor, context-aware) and replaces it with `newString`.
 *
 * @remarks
 * Refuses (never throws) with `SKILL_PATCH_INVALID` for an empty or whitespace-only `oldString`, an
 * edit that changes nothing ("no edit applied"), or `replaceAll` over several similarity-based
 * matches; `SKILL_PATCH_AMBIGUOUS` when several places match without `replaceAll` (listing up to 5 as
 * `L<line>: <snippet>`); `SKILL_PATCH_ESCAPE_DRIFT` when a non-exact match looks like the model
 * over-escaped its strings; `SKILL_PATCH_NO_MATCH` with the most similar lines as a hint.
 * On a non-exact match the replacement is re-indented to the file, literal `\t`/`\r` become control
 * characters only where the file has them, and a unicode-normalized match changes only what the edit
 * changes, so the file keeps its smart quotes and dashes. Replacements are applied right to left.
 *
 * @example
 * ```ts
 * const out = applyFuzzyPatch({ content: '  - use “fast” mode\n', oldString: '- use "fast" mode', newString: '- use "safe" mode' });
 * if (out.ok) console.log(out.content); // '  - use “safe” mode\n'
 * ```
 * @public
 */
export function applyFuzzyPatch(request: FuzzyPatchRequest): FuzzyPatchOutcome {
  const { content, oldString, newString } = request;
  if (oldString.length === 0)
    return refuse(
      'SKILL_PATCH_INVALID',
      'old_string is empty: read the file first; use rewrite or write_file to replace a whole file; do not resend unchanged text.',
    );
  if (oldString.trim() === '')
    return refuse('SKILL_PATCH_INVALID', 'old_string is only whitespace: quote the text to change with its context.');
  if (oldString === newString)
    return refuse('SKILL_PATCH_INVALID', 'old_string equals new_string: no edit applied. Send the changed text.');
  const found = findMatches(content, oldString);
  if (!found)
    return refuse('SKILL_PATCH_NO_MATCH', `could not find a match for old_string.${missHint(content, oldString)}`);
  const { strategy, match } = found;
  const spans = match.spans;
  if (spans.length > 1 && !request.replaceAll) return refuse('SKILL_PATCH_AMBIGUOUS', ambiguity(content, spans));
  if (spans.length > 1 && SIMILARITY_STRATEGIES.has(strategy))
    return refuse(
      'SKILL_PATCH_INVALID',
      `replace_all over ${spans.length} approximate (${strategy}) matches is refused: it could rewrite text that does not contain old_string. Quote the exact text.`,
    );
  let out = content;
  for (const span of [...spans].reverse()) {
    const region = content.slice(span.start, span.end);
    if (strategy !== 'exact') {
      const drift = escapeDrift(oldString, newString, region);
      if (drift) return refuse('SKILL_PATCH_ESCAPE_DRIFT', drift);
    }
    const replacement = shapeReplacement(
      strategy,
      region,
      match.pattern,
      oldString,
      newString,
      startsLine(content, span),
    );
    out = out.slice(0, span.start) + replacement + out.slice(span.end);
  }
  if (out === content) return refuse('SKILL_PATCH_INVALID', 'the edit leaves the file unchanged: no edit applied.');
  return { ok: true, content: out, strategy, replacements: spans.length };
}

const startsLine = (content: string, span: TextSpan) => span.start === 0 || content[span.start - 1] === '\n';

const lineOf = (content: string, at: number) => content.slice(0, at).split('\n').length;

function ambiguity(content: string, spans: readonly TextSpan[]): string {
  const lines = content.split('\n');
  const shown = spans.slice(0, 5).map((s) => {
    const n = lineOf(content, s.start);
    return `L${n}: ${lines[n - 1]!.trim().slice(0, 80)}`;
  });
  const more = spans.length > 5 ? `\n…and ${spans.length - 5} more` : '';
  return `old_string matches ${spans.length} places; include more surrounding lines to pick one (or set replace_all):\n${shown.join('\n')}${more}`;
}

function backslashRuns(s: string): number[] {
  return (s.match(/\\+/g) ?? []).map((r) => r.length);
}

const count = (s: string, needle: string) => s.split(needle).length - 1;

/** Why a non-exact match looks over-escaped, or undefined. */
export function escapeDrift(oldString: string, newString: string, region: string): string | undefined {
  const advice = ' Re-read the file and resend old_string and new_string without the extra escaping.';
  for (const seq of ["\\'", '\\"'])
    if (oldString.includes(seq) && newString.includes(seq) && !region.includes(seq))
      return `old_string and new_string contain ${seq} but the file does not.${advice}`;
  if (count(oldString, '\\n') > count(region, '\\n') && region.includes('\n') && newString.includes('\\n'))
    return `old_string holds literal \\n where the file has line breaks, and new_string would write literal \\n.${advice}`;
  const oldRuns = backslashRuns(oldString);
  const fileRuns = backslashRuns(region);
  const signal = fileRuns.reduce((a, b) => a + b, 0);
  if (
    oldRuns.length > 0 &&
    oldRuns.length === fileRuns.length &&
    oldRuns.every((n, i) => n === 2 * fileRuns[i]!) &&
    signal >= 2 &&
    backslashRuns(newString).join() !== fileRuns.join()
  )
    return `every backslash in old_string is doubled compared with the file.${advice}`;
  return undefined;
}

function shapeReplacement(
  strategy: FuzzyStrategy,
  region: string,
  pattern: string,
  oldString: string,
  newString: string,
  regionStartsLine: boolean,
): string {
  if (strategy === 'exact') return newString;
  if (strategy === 'unicode_normalized') {
    const minimal = typographyPreservingEdit(region, oldString, newString);
    if (minimal !== undefined) return minimal;
  }
  let shaped = newString;
  if (region.includes('\t')) shaped = shaped.replace(/\\t/g, '\t');
  if (region.includes('\r')) shaped = shaped.replace(/\\r/g, '\r');
  return reindent(shaped, pattern, region, regionStartsLine);
}

/**
 * When the region folds to exactly the folded `oldString`, applies only the part of the edit that
 * differs between `oldString` and `newString` onto the region, keeping its typography elsewhere.
 */
export function typographyPreservingEdit(region: string, oldString: string, newString: string): string | undefined {
  const fr = foldTypography(region);
  const fo = foldTypography(oldString);
  if (fr.text !== fo.text) return undefined;
  let p = 0;
  while (p < oldString.length && p < newString.length && oldString[p] === newString[p]) p++;
  let s = 0;
  while (
    s < oldString.length - p &&
    s < newString.length - p &&
    oldString[oldString.length - 1 - s] === newString[newString.length - 1 - s]
  )
    s++;
  const toRegion = (folded: number): number | undefined => {
    if (folded >= fr.origin.length) return region.length;
    const at = fr.origin[folded]!;
    return fr.forward[at] === folded ? at : undefined;
  };
  const start = toRegion(fo.forward[p]!);
  const end = toRegion(fo.forward[oldString.length - s]!);
  if (start === undefined || end === undefined || end < start) return undefined;
  return region.slice(0, start) + newString.slice(p, newString.length - s) + region.slice(end);
}

const leading = (line: string) => /^[ \t]*/.exec(line)![0];

/**
 * Re-indents `newString` to the file: the leading whitespace of the pattern's first non-blank line
 * (that starts a line in the file) is replaced by the file's, relative nesting kept, shallower lines
 * anchored at the file's base.
 */
export function reindent(newString: string, pattern: string, region: string, regionStartsLine: boolean): string {
  const oldLines = pattern.split('\n');
  const fileLines = region.split('\n');
  const from = regionStartsLine ? 0 : 1;
  let oldBase: string | undefined;
  let fileBase: string | undefined;
  for (let k = from; k < Math.min(oldLines.length, fileLines.length); k++) {
    if (oldLines[k]!.trim() === '' || fileLines[k]!.trim() === '') continue;
    oldBase = leading(oldLines[k]!);
    fileBase = leading(fileLines[k]!);
    break;
  }
  if (oldBase === undefined || fileBase === undefined || oldBase === fileBase) return newString;
  return newString
    .split('\n')
    .map((line, k) => {
      if (k < from || line.trim() === '') return line;
      const lead = leading(line);
      return lead.startsWith(oldBase)
        ? fileBase + lead.slice(oldBase.length) + line.slice(lead.length)
        : fileBase + line.trimStart();
    })
    .join('\n');
}

const visible = (s: string) => s.replace(/\t/g, '→').replace(/ /g, '·');

/** The lines most like `oldString`'s first non-blank line, with context, as a hint after a miss. */
export function missHint(content: string, oldString: string): string {
  const anchor = oldString.split('\n').find((l) => l.trim() !== '') ?? '';
  const lines = content.split('\n');
  const scored = lines
    .map((line, i) => ({ i, score: sequenceRatio(anchor.trim(), line.trim()) }))
    .filter((x) => x.score > 0.3)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, 3);
  if (scored.length === 0) return ' No similar line was found; re-read the file with skill_view.';
  const blocks = scored.map(({ i }) => {
    const out: string[] = [];
    for (let k = Math.max(0, i - 2); k <= Math.min(lines.length - 1, i + 2); k++) out.push(`L${k + 1}: ${lines[k]}`);
    return out.join('\n');
  });
  const best = lines[scored[0]!.i]!;
  const squash = (s: string) => s.replace(/\s+/g, '');
  const whitespace =
    squash(best) === squash(anchor)
      ? `\nThe closest line differs only in whitespace:\n file: ${visible(best)}\n sent: ${visible(anchor)}`
      : '';
  return ` Most similar lines:\n${blocks.join('\n---\n')}${whitespace}\nRe-read the file with skill_view and quote it exactly.`;
}
