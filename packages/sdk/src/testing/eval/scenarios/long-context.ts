import Type from 'typebox';
import { defineCapability } from '../../../capabilities/define-capability';
import { SANDBOX_TITLES } from '../../sandbox/data';
import { defineScenario, type OracleRule } from '../scenario';
import { callsOf, downloadsOf, rules } from '../rules';

/** Pages of the watchlist, entries per page, and where the must-have entry is. */
const PAGES = 6;
const PER_PAGE = 8;
const TARGET = 'tmdb:872585';

/** A watchlist of 48 entries with long notes; the one marked must-have (Oppenheimer) is on page 6. */
function watchlistPage(page: number) {
  const others = SANDBOX_TITLES.filter((t) => `tmdb:${t.mediaId}` !== TARGET);
  return Array.from({ length: PER_PAGE }, (_, k) => {
    const n = (page - 1) * PER_PAGE + k;
    const mustHave = page === PAGES && k === 5;
    const t = mustHave ? SANDBOX_TITLES.find((x) => `tmdb:${x.mediaId}` === TARGET)! : others[n % others.length]!;
    return {
      position: n + 1,
      mediaEntityId: `tmdb:${t.mediaId}`,
      title: t.title,
      priority: mustHave ? 'must-have' : 'someday',
      note: `${t.overview} `.repeat(6).trim(),
    };
  });
}

/** The capability the scenario adds: a paged watchlist (a plugin's read capability). */
const watchlistCapability = defineCapability({
  id: 'watchlist.page',
  version: 1,
  title: 'Read the watchlist',
  description: `One page of the user's watchlist (${PER_PAGE} entries, pages 1-${PAGES}), with each entry's media entity id and priority.`,
  kind: 'read',
  replay: 'safe',
  input: Type.Object({ page: Type.Integer({ minimum: 1 }) }),
  output: Type.Object({
    page: Type.Integer(),
    pages: Type.Integer(),
    entries: Type.Array(
      Type.Object({
        position: Type.Integer(),
        mediaEntityId: Type.String(),
        title: Type.String(),
        priority: Type.String(),
        note: Type.String(),
      }),
    ),
  }),
  handler: async ({ page }) => ({ page, pages: PAGES, entries: page <= PAGES ? watchlistPage(page) : [] }),
});

/** Page 6 was read (`no_read_evidence`), and only the target was submitted (`wrong_target`). */
const readPageSixSubmittedTarget: OracleRule<unknown> = (f) => {
  const other = f.world.downloads().find((d) => d.mediaEntityId !== TARGET);
  if (other) return { code: 'wrong_target', reason: `${other.id} downloads ${other.mediaEntityId}, not ${TARGET}` };
  const readSix = callsOf(f, 'watchlist.page', 'succeeded').some(
    (e) => (e.data.output as { page?: number } | undefined)?.page === PAGES,
  );
  return readSix ? undefined : { code: 'no_read_evidence', reason: `watchlist page ${PAGES} was never read` };
};

/**
 * `long_context`: the must-have entry of a six-page watchlist with long notes is on the last page; a
 * small context window makes the runtime compact the conversation on the way. The agent must read
 * page 6 and submit that title, once.
 * @public
 */
export const longContext = defineScenario({
  id: 'long_context',
  title: 'The target is on the sixth page, with compaction on the way',
  goal: `My watchlist (capability watchlist.page, ${PAGES} pages) has exactly one entry with priority "must-have". Find it and add that title to the library.`,
  runs: { contextWindowTokens: 6_000, budgets: { maxToolCalls: 40 } },
  setup: async ({ host }) => {
    host.capabilities.register(watchlistCapability);
    await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
  },
  rules: [
    readPageSixSubmittedTarget,
    rules.oneDownload(TARGET),
    rules.finalReport(),
    rules.outcomeIs('submitted', 'done'),
    rules.reportsIds((f) => downloadsOf(f, TARGET).map((d) => d.id)),
    rules.idsWereRead(),
  ],
});
