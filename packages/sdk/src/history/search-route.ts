// Which indexes a discovery tries, in order: a pure rule over the query, the role filter and the
// index state.
import type { HistoryIndexStatus, HistoryRole } from './history-store';
import { cjkRunsAtLeastTwo, cjkTermsAtLeastThree, type NormalizedQuery, termsAtLeastThree } from './search-query';

/** One attempt of a discovery: an index MATCH, the relaxed OR MATCH, or a LIKE scan (`like_or`: terms ORed). */
export type RouteStep = 'fts5' | 'cjk' | 'trigram' | 'fts5_or' | 'like' | 'like_or';

/** The attempts of a discovery and when they stop. */
export interface RoutePlan {
  /** Steps in order; a LIKE step is always last. */
  steps: RouteStep[];
  /**
   * True when the first step that runs decides (even with no rows): CJK queries, whose index routes
   * are exact substring searches; later steps are tried only when a step cannot run. False: a step
   * with no rows passes to the next (the word index misses Latin glued to CJK, and an AND of words
   * is relaxed to OR).
   */
  firstRunDecides: boolean;
}

/**
 * The attempts of a discovery, in order. Rules, first match wins:
 * - `tool` in the roles, or no index that could serve the query is ready: LIKE;
 * - CJK: the bigram index when ready and every CJK run has ≥ 2 letters, the trigram index when
 *   ready and every CJK term has ≥ 3 CJK letters, then LIKE with the terms ORed;
 * - otherwise the word index (BM25), then the bigram index, the trigram index when every term has
 *   ≥ 3 characters, and the relaxed OR query when there are ≥ 2 terms and no explicit OR/NOT.
 * @param q - the normalised query (with at least one term)
 * @param roles - the role filter
 * @param status - which indexes are built and complete
 */
export function routePlan(q: NormalizedQuery, roles: readonly HistoryRole[], status: HistoryIndexStatus): RoutePlan {
  const anyIndex = q.cjk ? status.messages_fts_cjk || status.messages_fts_trigram : status.messages_fts;
  if (roles.includes('tool') || !anyIndex) return { steps: ['like'], firstRunDecides: true };
  if (q.cjk) {
    const steps: RouteStep[] = [];
    if (status.messages_fts_cjk && cjkRunsAtLeastTwo(q)) steps.push('cjk');
    if (status.messages_fts_trigram && cjkTermsAtLeastThree(q)) steps.push('trigram');
    steps.push('like_or');
    return { steps, firstRunDecides: true };
  }
  const steps: RouteStep[] = ['fts5'];
  if (status.messages_fts_cjk) steps.push('cjk');
  if (status.messages_fts_trigram && termsAtLeastThree(q)) steps.push('trigram');
  if (q.terms.length >= 2 && !q.explicitBoolean) steps.push('fts5_or');
  return { steps, firstRunDecides: false };
}
