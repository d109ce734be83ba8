import type { CapabilityDescriptor } from '../core/capability-descriptor';

/** One search hit with its score (higher is better). @public */
export interface CapabilitySearchHit {
  /** The capability. */
  capability: CapabilityDescriptor;
  /** Relevance score (a sum of field weights; only the order is meaningful). */
  score: number;
}

const WEIGHTS = { idExact: 100, aliasExact: 80, id: 40, alias: 35, tag: 25, title: 15, description: 5 } as const;

/** English words that say nothing about a capability ("check the inventory for Dune" → inventory, dune). */
const STOPWORDS = new Set([
  'a',
  'an',
  'the',
  'to',
  'of',
  'for',
  'in',
  'on',
  'at',
  'by',
  'and',
  'or',
  'is',
  'it',
  'my',
  'me',
  'i',
  'we',
  'be',
  'do',
  'with',
  'from',
  'into',
  'this',
  'that',
  'please',
  'can',
  'you',
  'what',
  'which',
  'check',
  'find',
  'get',
  'show',
  'some',
  'all',
  'any',
]);

/** Splits a query into lowercase terms on whitespace and ASCII punctuation (CJK runs stay whole), without stopwords. @internal */
export function searchTerms(query: string): string[] {
  return query
    .toLowerCase()
    .split(/[\s,;:!?()[\]{}"'`/\\|]+/u)
    .filter((t) => t && !STOPWORDS.has(t));
}

/**
 * Ranks capabilities against a free-text query by id, title, description, tags and aliases.
 *
 * @remarks
 * Each query term scores per field: exact id or alias match, substring match in either direction
 * for ids, aliases and tags (so the CJK query `整理` finds a capability aliased `整理`, and
 * `整理文件` finds it too), substring match in title and description. Capabilities with score 0
 * are dropped; ties are broken by id.
 *
 * @param capabilities - what to search
 * @param query - free text; an empty query lists everything (score 0) in id order
 * @param limit - maximum hits (default 8)
 * @public
 */
export function searchCapabilities(
  capabilities: readonly CapabilityDescriptor[],
  query: string,
  limit = 8,
): CapabilitySearchHit[] {
  const terms = searchTerms(query);
  if (terms.length === 0)
    return [...capabilities]
      .sort((a, b) => a.id.localeCompare(b.id))
      .slice(0, limit)
      .map((capability) => ({ capability, score: 0 }));
  const hits: CapabilitySearchHit[] = [];
  for (const capability of capabilities) {
    const id = capability.id.toLowerCase();
    const idParts = id.split(/[._-]/);
    const aliases = capability.aliases.map((a) => a.toLowerCase());
    const tags = capability.tags.map((t) => t.toLowerCase());
    const title = capability.title.toLowerCase();
    const description = capability.description.toLowerCase();
    let score = 0;
    for (const term of terms) {
      if (id === term) score += WEIGHTS.idExact;
      else if (idParts.includes(term) || (term.length >= 3 && id.includes(term))) score += WEIGHTS.id;
      if (aliases.includes(term)) score += WEIGHTS.aliasExact;
      else if (aliases.some((a) => a.includes(term) || term.includes(a))) score += WEIGHTS.alias;
      if (tags.some((t) => t === term || t.includes(term) || term.includes(t))) score += WEIGHTS.tag;
      if (title.includes(term)) score += WEIGHTS.title;
      if (description.includes(term)) score += WEIGHTS.description;
    }
    if (score > 0) hits.push({ capability, score });
  }
  return hits.sort((a, b) => b.score - a.score || a.capability.id.localeCompare(b.capability.id)).slice(0, limit);
}
