// The nine ways a patch's `old_string` is looked for in a file, most literal first. Each returns the
// spans it found in the ORIGINAL text; the first strategy that finds any span wins.
import { ratioUpperBound, sequenceRatio } from './sequence-ratio';
import { foldTypography } from './typographic';

/** A half-open range `[start, end)` of UTF-16 indices in the file's text. */
export interface TextSpan {
  readonly start: number;
  readonly end: number;
}

/** The names of the match strategies, in the order they are tried. */
export const FUZZY_STRATEGIES = [
  'exact',
  'line_trimmed',
  'whitespace_normalized',
  'indentation_flexible',
  'escape_normalized',
  'trimmed_boundary',
  'unicode_normalized',
  'block_anchor',
  'context_aware',
] as const;

/** One of {@link FUZZY_STRATEGIES}. @public */
export type FuzzyStrategy = (typeof FUZZY_STRATEGIES)[number];

/** What one strategy found. */
export interface StrategyMatch {
  readonly spans: readonly TextSpan[];
  /** The pattern as this strategy compared it (the unescaped one for `escape_normalized`). */
  readonly pattern: string;
}

/** A file split into lines, with where each line starts. */
interface LineIndex {
  readonly text: string;
  readonly lines: readonly string[];
  readonly starts: readonly number[];
}

function indexLines(text: string): LineIndex {
  const lines = text.split('\n');
  const starts: number[] = [];
  let at = 0;
  for (const line of lines) {
    starts.push(at);
    at += line.length + 1;
  }
  return { text, lines, starts };
}

/** The pattern's lines; a final newline ends the last line rather than adding an empty one. */
function patternLines(pattern: string): { lines: string[]; trailingNewline: boolean } {
  const lines = pattern.split('\n');
  const trailingNewline = lines.length > 1 && lines[lines.length - 1] === '';
  if (trailingNewline) lines.pop();
  return { lines, trailingNewline };
}

/** Non-overlapping windows of `count` whole lines accepted by `accept`, as spans. */
function lineWindows(
  file: LineIndex,
  count: number,
  trailingNewline: boolean,
  accept: (first: number) => boolean,
): TextSpan[] {
  const spans: TextSpan[] = [];
  if (count === 0) return spans;
  for (let i = 0; i + count <= file.lines.length; i++) {
    if (!accept(i)) continue;
    const last = i + count - 1;
    let end = file.starts[last]! + file.lines[last]!.length;
    if (trailingNewline && end < file.text.length) end += 1;
    spans.push({ start: file.starts[i]!, end });
    i = last;
  }
  return spans;
}

function exactSpans(text: string, pattern: string): TextSpan[] {
  const spans: TextSpan[] = [];
  if (pattern.length === 0) return spans;
  let from = 0;
  for (;;) {
    const at = text.indexOf(pattern, from);
    if (at < 0) return spans;
    spans.push({ start: at, end: at + pattern.length });
    from = at + pattern.length;
  }
}

function linesCompared(file: LineIndex, pattern: string, same: (fileLine: string, patternLine: string) => boolean) {
  const { lines, trailingNewline } = patternLines(pattern);
  return lineWindows(file, lines.length, trailingNewline, (first) =>
    lines.every((p, k) => same(file.lines[first + k]!, p)),
  );
}

/** 1. Every literal occurrence. */
export function matchExact(text: string, pattern: string): TextSpan[] {
  return exactSpans(text, pattern);
}

/** 2. Blocks of as many lines, each line compared with whitespace stripped at both ends. */
export function matchLineTrimmed(text: string, pattern: string): TextSpan[] {
  return linesCompared(indexLines(text), pattern, (f, p) => f.trim() === p.trim());
}

/** Runs of spaces and tabs collapsed to one space, with where each kept character came from. */
function collapseBlanks(input: string): { text: string; from: number[]; to: number[] } {
  let text = '';
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < input.length; ) {
    const ch = input[i]!;
    if (ch === ' ' || ch === '\t') {
      let j = i;
      while (j < input.length && (input[j] === ' ' || input[j] === '\t')) j++;
      text += ' ';
      from.push(i);
      to.push(j);
      i = j;
    } else {
      text += ch;
      from.push(i);
      to.push(i + 1);
      i++;
    }
  }
  return { text, from, to };
}

/**
 * 3. Runs of spaces and tabs collapsed to one space on both sides; a match ending in a collapsed run
 * covers the whole run in the file.
 */
export function matchWhitespaceNormalized(text: string, pattern: string): TextSpan[] {
  const file = collapseBlanks(text);
  const wanted = collapseBlanks(pattern).text;
  return exactSpans(file.text, wanted).map((s) => ({ start: file.from[s.start]!, end: file.to[s.end - 1]! }));
}

/** 4. Like `line_trimmed`, but only leading whitespace is ignored. */
export function matchIndentationFlexible(text: string, pattern: string): TextSpan[] {
  return linesCompared(indexLines(text), pattern, (f, p) => f.trimStart() === p.trimStart());
}

/** Literal `\n`, `\t` and `\r` (backslash and letter) turned into the control characters. */
export function unescapeControls(pattern: string): string {
  return pattern.replace(/\\([ntr])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : '\r'));
}

/** 5. Literal `\n`, `\t`, `\r` in the pattern read as control characters, then an exact match. */
export function matchEscapeNormalized(text: string, pattern: string): StrategyMatch {
  const unescaped = unescapeControls(pattern);
  if (unescaped === pattern) return { spans: [], pattern };
  return { spans: exactSpans(text, unescaped), pattern: unescaped };
}

/** The pattern without its leading and trailing blank lines. */
function withoutBlankEdges(pattern: string): string[] {
  const lines = patternLines(pattern).lines;
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a]!.trim() === '') a++;
  while (b > a && lines[b - 1]!.trim() === '') b--;
  return lines.slice(a, b);
}

/**
 * 6. The block's boundary trimmed: the pattern's blank first and last lines dropped, its first and
 * last lines compared with whitespace stripped, the lines between compared exactly.
 */
export function matchTrimmedBoundary(text: string, pattern: string): StrategyMatch {
  const lines = withoutBlankEdges(pattern);
  const file = indexLines(text);
  const last = lines.length - 1;
  const spans = lineWindows(file, lines.length, false, (first) =>
    lines.every((p, k) => {
      const f = file.lines[first + k]!;
      return k === 0 || k === last ? f.trim() === p.trim() : f === p;
    }),
  );
  return { spans, pattern: lines.join('\n') };
}

/**
 * 7. Typographic characters folded to ASCII on both sides (see `foldTypography`), then an exact
 * match, then a line-trimmed one; spans mapped back to the original text.
 */
export function matchUnicodeNormalized(text: string, pattern: string): TextSpan[] {
  const file = foldTypography(text);
  const wanted = foldTypography(pattern).text;
  if (file.text === text && wanted === pattern) return [];
  let spans = exactSpans(file.text, wanted);
  if (spans.length === 0) spans = matchLineTrimmed(file.text, wanted);
  return spans.map((s) => ({ start: file.origin[s.start]!, end: file.origin[s.end - 1]! + 1 }));
}

const anchorForm = (line: string) => foldTypography(line.trim()).text;

/**
 * 8. Blocks of as many lines (at least 2) whose first and last lines equal the pattern's once trimmed
 * and folded; the lines between must be similar (ratio ≥ 0.5 for a single candidate, ≥ 0.7 when
 * there are several). Two-line patterns match on the anchors alone.
 */
export function matchBlockAnchor(text: string, pattern: string): TextSpan[] {
  const { lines, trailingNewline } = patternLines(pattern);
  if (lines.length < 2) return [];
  const file = indexLines(text);
  const first = anchorForm(lines[0]!);
  const last = anchorForm(lines[lines.length - 1]!);
  const candidates = lineWindows(
    file,
    lines.length,
    trailingNewline,
    (i) => anchorForm(file.lines[i]!) === first && anchorForm(file.lines[i + lines.length - 1]!) === last,
  );
  if (lines.length === 2) return candidates;
  const threshold = candidates.length === 1 ? 0.5 : 0.7;
  const middle = lines.slice(1, -1).join('\n');
  return candidates.filter((span) => {
    const block = text
      .slice(span.start, span.end)
      .split('\n')
      .slice(1, lines.length - 1)
      .join('\n');
    return sequenceRatio(middle, block) >= threshold;
  });
}

const similar = (a: string, b: string, threshold: number) =>
  ratioUpperBound(a, b) >= threshold && sequenceRatio(a, b) >= threshold;

/**
 * 9. Blocks of as many lines whose first and last lines, and every non-blank pattern line, are each at
 * least 0.8 similar (trimmed) to their counterparts.
 */
export function matchContextAware(text: string, pattern: string): TextSpan[] {
  const { lines, trailingNewline } = patternLines(pattern);
  const trimmed = lines.map((l) => l.trim());
  if (trimmed.every((l) => l === '')) return [];
  const file = indexLines(text);
  const last = lines.length - 1;
  return lineWindows(file, lines.length, trailingNewline, (i) =>
    trimmed.every((p, k) => {
      if (p === '' && k !== 0 && k !== last) return true;
      return similar(p, file.lines[i + k]!.trim(), 0.8);
    }),
  );
}

/** Runs the strategies in order; the first that finds anything wins. */
export function findMatches(
  text: string,
  pattern: string,
): { strategy: FuzzyStrategy; match: StrategyMatch } | undefined {
  const attempts: Array<[FuzzyStrategy, () => StrategyMatch]> = [
    ['exact', () => ({ spans: matchExact(text, pattern), pattern })],
    ['line_trimmed', () => ({ spans: matchLineTrimmed(text, pattern), pattern })],
    ['whitespace_normalized', () => ({ spans: matchWhitespaceNormalized(text, pattern), pattern })],
    ['indentation_flexible', () => ({ spans: matchIndentationFlexible(text, pattern), pattern })],
    ['escape_normalized', () => matchEscapeNormalized(text, pattern)],
    ['trimmed_boundary', () => matchTrimmedBoundary(text, pattern)],
    ['unicode_normalized', () => ({ spans: matchUnicodeNormalized(text, pattern), pattern })],
    ['block_anchor', () => ({ spans: matchBlockAnchor(text, pattern), pattern })],
    ['context_aware', () => ({ spans: matchContextAware(text, pattern), pattern })],
  ];
  for (const [strategy, attempt] of attempts) {
    const match = attempt();
    if (match.spans.length > 0) return { strategy, match };
  }
  return undefined;
}
