// A normalised query as PostgreSQL `tsquery` text: `&` AND, `|` OR, `& !` NOT, `<->` phrases, `:*` prefixes.
import { bigramTokens } from './cjk';
import type { NormalizedQuery, QueryUnit } from './search-query';

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const lexeme = (t: string) => `'${t.toLowerCase().replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

function termQuery(u: Extract<QueryUnit, { kind: 'term' }>, bigrams: boolean): string | undefined {
  const words = u.text.match(WORD) ?? [];
  const tokens = bigrams ? words.flatMap(bigramTokens) : words;
  if (tokens.length === 0) return undefined;
  const parts = tokens.map(lexeme);
  if (u.prefix && !u.phrase) parts[parts.length - 1] = `${parts[parts.length - 1]}:*`;
  return parts.length === 1 ? (parts[0] as string) : `(${parts.join(' <-> ')})`;
}

/**
 * The `tsquery` text of a query: terms ANDed unless joined by `OR`, `NOT` negating the next term,
 * phrases (and terms the parser splits) as `<->` sequences, `prefix*` as `:*`; with `bigrams` every
 * term becomes the phrase of its CJK bigram tokens (what the CJK column indexes). With `or`, every
 * term is ORed (the relaxed query).
 * @returns the text, or '' when no term has a word
 */
export function tsqueryText(q: NormalizedQuery, options: { bigrams?: boolean; or?: boolean } = {}): string {
  let out = '';
  let pending: 'AND' | 'OR' | 'NOT' = 'AND';
  for (const u of q.units) {
    if (u.kind === 'op') {
      if (options.or) continue;
      if (u.op === 'OR') pending = 'OR';
      else if (u.op === 'NOT') pending = 'NOT';
      continue;
    }
    const t = termQuery(u, options.bigrams ?? false);
    if (!t) continue;
    if (!out) out = pending === 'NOT' ? `!${t}` : t;
    else if (options.or || pending === 'OR') out = `${out} | ${t}`;
    else out = pending === 'NOT' ? `${out} & !${t}` : `${out} & ${t}`;
    pending = 'AND';
  }
  return out;
}
