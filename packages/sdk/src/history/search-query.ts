// Query normalisation for session search: turns free text into terms and boolean operators that
// every route (FTS5 MATCH, bigram MATCH, trigram MATCH, LIKE) can use without a syntax error.
import { bigramTokens, cjkCount, cjkRuns, hasCjk } from './cjk';

/** Longest query, in code points; longer queries are cut. */
export const MAX_QUERY_CHARS = 1024;

/** A boolean operator of the query language. */
export type QueryOperator = 'AND' | 'OR' | 'NOT' | 'NEAR';

/** One unit of a normalised query: an operator or a term (a word, a prefix or a quoted phrase). */
export type QueryUnit =
  | { kind: 'op'; op: QueryOperator }
  | { kind: 'term'; text: string; phrase: boolean; prefix: boolean };

/** A normalised query. */
export interface NormalizedQuery {
  /** The normalised text (empty when nothing searchable is left). */
  text: string;
  /** Its units in order. */
  units: QueryUnit[];
  /** The terms only. */
  terms: Extract<QueryUnit, { kind: 'term' }>[];
  /** True when the query holds CJK letters. */
  cjk: boolean;
  /** True when the query uses `OR` or `NOT` explicitly. */
  explicitBoolean: boolean;
}

const OPERATORS = new Set(['AND', 'OR', 'NOT', 'NEAR']);
// Characters FTS5 would parse as syntax (column filters, groups, …).
const HOSTILE = /[+{}():"^@/#&|~[\]<>,;!?$=\\']/g;
const PLACEHOLDER = /\uE000(\d+)\uE000/g;
// Identifiers joined by dots, hyphens or underscores (`chat-send`, `P2.2`, `my-app.config.ts`).
const JOINED = /^[\p{L}\p{N}]+(?:[._-]+[\p{L}\p{N}]+)+$/u;

/**
 * Normalises a query: cut to {@link MAX_QUERY_CHARS}; balanced `"…"` phrases kept whole, stray
 * quotes dropped; FTS5-hostile characters turned into spaces (`%` too unless the query holds CJK);
 * repeated `*` collapsed and a leading `*` dropped; dangling or repeated operators dropped; joined
 * identifiers turned into phrases. Never throws.
 */
export function normalizeQuery(raw: string): NormalizedQuery {
  let text = [...raw].slice(0, MAX_QUERY_CHARS).join('');
  const cjk = hasCjk(text);
  const phrases: string[] = [];
  text = text.replace(/"([^"]*)"/g, (_, inner: string) => {
    phrases.push(inner.replace(/\s+/g, ' ').trim());
    return ` \uE000${phrases.length - 1}\uE000 `;
  });
  text = text.replace(HOSTILE, ' ');
  if (!cjk) text = text.replace(/%/g, ' ');
  text = text.replace(/\*{2,}/g, '*').replace(/(^|\s)\*+/g, '$1');

  const units: QueryUnit[] = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const placeholder = /^\uE000(\d+)\uE000$/.exec(word);
    if (placeholder) {
      const phrase = phrases[Number(placeholder[1])] ?? '';
      if (phrase) units.push({ kind: 'term', text: phrase, phrase: true, prefix: false });
      continue;
    }
    const plain = word.replace(PLACEHOLDER, ' ').trim();
    if (!plain) continue;
    if (OPERATORS.has(plain)) {
      units.push({ kind: 'op', op: plain as QueryOperator });
      continue;
    }
    const prefix = plain.endsWith('*');
    const body = plain.replace(/\*/g, '');
    if (!body) continue;
    units.push({ kind: 'term', text: body, phrase: JOINED.test(body) && /[._-]/.test(body), prefix });
  }
  // Drop operators at either end and operators that follow another operator.
  const cleaned: QueryUnit[] = [];
  for (const u of units) {
    const prev = cleaned[cleaned.length - 1];
    if (u.kind === 'op' && (prev === undefined || prev.kind === 'op')) continue;
    cleaned.push(u);
  }
  while (cleaned.length > 0 && cleaned[cleaned.length - 1]?.kind === 'op') cleaned.pop();
  const terms = cleaned.filter((u): u is Extract<QueryUnit, { kind: 'term' }> => u.kind === 'term');
  return {
    text: cleaned.map(unitText).join(' '),
    units: cleaned,
    terms,
    cjk: terms.some((t) => hasCjk(t.text)),
    explicitBoolean: cleaned.some((u) => u.kind === 'op' && (u.op === 'OR' || u.op === 'NOT')),
  };
}

function unitText(u: QueryUnit): string {
  if (u.kind === 'op') return u.op;
  return u.phrase ? `"${u.text}"` : `${u.text}${u.prefix ? '*' : ''}`;
}

const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** The FTS5 MATCH text for the unicode61 index: every term quoted, operators kept, prefixes as `"x"*`. */
export function fts5Match(q: NormalizedQuery): string {
  return q.units.map((u) => (u.kind === 'op' ? u.op : `${quote(u.text)}${u.prefix && !u.phrase ? '*' : ''}`)).join(' ');
}

/** The relaxed MATCH text: every term ORed (phrases stay whole, operators dropped). */
export function fts5OrMatch(q: NormalizedQuery): string {
  return q.terms.map((t) => `${quote(t.text)}${t.prefix && !t.phrase ? '*' : ''}`).join(' OR ');
}

/** The MATCH text for the bigram index: each term as a phrase of its bigram tokens, operators kept. */
export function cjkMatch(q: NormalizedQuery): string {
  return q.units
    .map((u) => {
      if (u.kind === 'op') return u.op;
      const tokens = u.text.split(/\s+/).flatMap((w) => (w.match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).flatMap(bigramTokens));
      return tokens.length ? quote(tokens.join(' ')) : quote(u.text);
    })
    .join(' ');
}

/** The MATCH text for the trigram index: each term quoted (a substring), operators kept. */
export function trigramMatch(q: NormalizedQuery): string {
  return q.units.map((u) => (u.kind === 'op' ? u.op : quote(u.text))).join(' ');
}

/** True when every maximal CJK run of the query's terms has at least two letters. */
export function cjkRunsAtLeastTwo(q: NormalizedQuery): boolean {
  return q.terms.every((t) => cjkRuns(t.text).every((r) => [...r].length >= 2));
}

/** True when every term that holds CJK has at least three CJK letters. */
export function cjkTermsAtLeastThree(q: NormalizedQuery): boolean {
  return q.terms.every((t) => !hasCjk(t.text) || cjkCount(t.text) >= 3);
}

/** True when every term has at least three characters (a trigram can match it). */
export function termsAtLeastThree(q: NormalizedQuery): boolean {
  return q.terms.every((t) => [...t.text].length >= 3);
}

/** One OR group of the LIKE fallback: terms that must all occur, terms that must not. */
export interface LikeGroup {
  /** Terms that must occur (ANDed). */
  include: string[];
  /** Terms that must not occur. */
  exclude: string[];
}

/**
 * The boolean subset the LIKE fallback understands: groups split at `OR`, terms ANDed within a
 * group, `NOT` negating the next term, `AND`/`NEAR` ignored, quotes and `*` stripped; a group of
 * negated terms only is dropped. With `orTerms` every positive term is its own group (the CJK
 * short-term route: `广西 OR 桂林 OR 漓江` and `广西 桂林` both match either).
 */
export function likeGroups(q: NormalizedQuery, orTerms = false): LikeGroup[] {
  const groups: LikeGroup[] = [];
  let current: LikeGroup = { include: [], exclude: [] };
  let negate = false;
  for (const u of q.units) {
    if (u.kind === 'op') {
      if (u.op === 'OR') {
        groups.push(current);
        current = { include: [], exclude: [] };
      } else if (u.op === 'NOT') negate = true;
      continue;
    }
    (negate ? current.exclude : current.include).push(u.text);
    negate = false;
  }
  groups.push(current);
  const kept = groups.filter((g) => g.include.length > 0);
  if (!orTerms) return kept;
  return kept.flatMap((g) => g.include.map((t) => ({ include: [t], exclude: g.exclude })));
}

/** The first positive term of a query (what snippets are centred on), or ''. */
export function firstPositiveTerm(q: NormalizedQuery): string {
  return likeGroups(q)[0]?.include[0] ?? q.terms[0]?.text ?? '';
}
