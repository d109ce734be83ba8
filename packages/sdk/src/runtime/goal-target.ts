// The goal's target: which title a run is about, taken from catalog lookups and the people's own
// words, never from the model's choice. Pure rules, tested directly.

/**
 * A title a `catalog.lookup` call returned, as the goal-target rule needs it.
 * @public
 */
export interface GoalCandidate {
  /** e.g. `tmdb:438631`. */
  mediaEntityId: string;
  /** Display title. */
  title: string;
  /** Every name of the title (display, original, localized). */
  names: string[];
  /** Release year, when known. */
  year: number | null;
}

/**
 * What the rule says about acting on one media entity.
 * - `unrelated`: no lookup of this run returned it (nothing to check);
 * - `resolved`: the goal is about this title;
 * - `ambiguous`: a lookup returned it among titles the goal and the people's messages do not tell apart.
 * @public
 */
export type GoalTargetResolution =
  | { kind: 'unrelated' }
  | { kind: 'resolved'; target: GoalCandidate }
  | { kind: 'ambiguous'; candidates: GoalCandidate[] };

/** Lower-case words of a text (letters and digits of any script), NFKC-normalized. */
function words(text: string): Set<string> {
  return new Set(
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [],
  );
}

/**
 * Turns the items of a `catalog.lookup` output into candidates (items without an id or title are skipped).
 * @param output - the capability's output (`{ items: MediaItem[] }`)
 * @returns the candidates, in the lookup's order
 * @public
 */
export function candidatesFromLookup(output: unknown): GoalCandidate[] {
  const items = (output as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return [];
  return items.flatMap((item) => {
    const i = item as Record<string, unknown>;
    if (typeof i.mediaEntityId !== 'string' || typeof i.title !== 'string') return [];
    const names = [i.title, i.originalTitle, i.localizedTitle].filter(
      (n): n is string => typeof n === 'string' && n !== '',
    );
    return [
      {
        mediaEntityId: i.mediaEntityId,
        title: i.title,
        names: [...new Set(names)],
        year: typeof i.year === 'number' ? i.year : null,
      },
    ];
  });
}

/**
 * Whether `text` singles `candidate` out among `others`: it names the candidate's year and no other
 * has that year, or it contains a word of the candidate's names that no other's names contain
 * ("Part Two", "2049", "沙丘2").
 */
function singledOut(candidate: GoalCandidate, others: readonly GoalCandidate[], text: Set<string>): boolean {
  if (candidate.year !== null && text.has(String(candidate.year)) && !others.some((o) => o.year === candidate.year))
    return true;
  const otherWords = new Set(others.flatMap((o) => [...words(o.names.join(' '))]));
  return [...words(candidate.names.join(' '))].some((w) => !otherWords.has(w) && text.has(w));
}

/**
 * Decides whether acting on `mediaEntityId` is acting on the goal's title.
 *
 * @remarks
 * Each lookup's result is one question ("which title?"). A lookup that returned only this entity
 * answers it; a lookup that returned several answers it only when the goal or a later message from a
 * person singles this entity out, and every lookup that returned it must be answered (its year where no other candidate shares it, or a word of its names
 * no other candidate has). "add Dune" after a lookup that returned Dune (2021) and Dune: Part Two
 * (2024) is ambiguous whichever the model picked; "add Dune 2021" or a reply "Part Two" resolves it.
 *
 * @param mediaEntityId - the entity a side-effecting call acts on
 * @param lookups - every lookup result of the run, one array per call
 * @param text - the goal and the people's messages, joined
 * @returns the resolution
 * @public
 */
export function resolveGoalTarget(
  mediaEntityId: string,
  lookups: ReadonlyArray<readonly GoalCandidate[]>,
  text: string,
): GoalTargetResolution {
  const sets = lookups.filter((set) => set.some((c) => c.mediaEntityId === mediaEntityId));
  if (sets.length === 0) return { kind: 'unrelated' };
  const tokens = words(text);
  const target = sets[0]!.find((c) => c.mediaEntityId === mediaEntityId)!;
  const unanswered = sets.filter((set) => {
    const others = set.filter((c) => c.mediaEntityId !== mediaEntityId);
    return others.length > 0 && !singledOut(target, others, tokens);
  });
  // Every lookup that returned this title must be answered: a narrower lookup the model made afterwards
  // (by exact id, say) is the model's choice, not the person's.
  if (unanswered.length === 0) return { kind: 'resolved', target };
  const candidates = new Map<string, GoalCandidate>();
  for (const set of unanswered) for (const c of set) candidates.set(c.mediaEntityId, c);
  return { kind: 'ambiguous', candidates: [...candidates.values()] };
}

/**
 * The question put to a person when a goal is ambiguous.
 * @param candidates - the titles it could mean
 * @returns e.g. `Which title do you mean: Dune (2021, tmdb:438631) or Dune: Part Two (2024, tmdb:693134)?`
 * @public
 */
export function ambiguityQuestion(candidates: readonly GoalCandidate[]): string {
  const list = candidates.map((c) => `${c.title} (${c.year ?? 'year unknown'}, ${c.mediaEntityId})`);
  return `Which title do you mean: ${list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list.at(-1)}` : list[0]}?`;
}

/** Letters of scripts written without spaces between words (Han, Hiragana, Katakana, Hangul). */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * The titles a text names among a run's lookup results: a candidate is named when every word of one of its
 * names is in the text ("add Dune: Part Two" names Dune: Part Two; a word in a script written without spaces, as
 * 沙丘 in 把沙丘加到片库, may stand inside a longer run of letters); of the candidates of one lookup, only those
 * with the longest such name count, so "Dune: Part Two" is not also "Dune".
 * @param lookups - every lookup result of the run, one array per call
 * @param text - the goal and the people's messages, joined
 * @returns the named titles, each once, in lookup order
 * @public
 */
export function namedInText(lookups: ReadonlyArray<readonly GoalCandidate[]>, text: string): GoalCandidate[] {
  const tokens = words(text);
  const plain = text.normalize('NFKC').toLowerCase();
  const named = new Map<string, GoalCandidate>();
  for (const set of lookups) {
    const scored = set.map((c) => ({
      c,
      score: Math.max(
        0,
        ...c.names.map((n) => {
          const w = [...words(n)];
          if (w.length > 0 && w.every((x) => tokens.has(x))) return w.length;
          // Scripts written without spaces (Chinese, Japanese): the name's words inside the text's runs of letters.
          const cjk = w.filter((x) => UNSPACED.test(x));
          return cjk.length > 0 && w.every((x) => tokens.has(x) || (UNSPACED.test(x) && plain.includes(x)))
            ? w.length
            : 0;
        }),
      ),
    }));
    const best = Math.max(0, ...scored.map((x) => x.score));
    if (best === 0) continue;
    for (const x of scored) if (x.score === best && !named.has(x.c.mediaEntityId)) named.set(x.c.mediaEntityId, x.c);
  }
  return [...named.values()];
}
