import { SANDBOX_TITLES, type SandboxTitle } from '../../sandbox/data';
import { defineScenario, type OracleRule } from '../scenario';
import { rules } from '../rules';

/** The two films the goal "Dune" can mean. */
const CANDIDATES = ['tmdb:438631', 'tmdb:841'];

const DUNE_1984: SandboxTitle = {
  ...SANDBOX_TITLES.find((t) => t.mediaId === '438631')!,
  mediaId: '841',
  title: 'Dune',
  originalTitle: 'Dune',
  localizedTitle: '沙丘 (1984)',
  year: 1984,
  runtimeMin: 137,
  externalIds: { imdb: 'tt0087182' },
  overview: "David Lynch's adaptation of Frank Herbert's novel.",
};

/** Nothing was planned or submitted for either title, and the user was asked (`chose_without_asking`). */
const askedInsteadOfChoosing: OracleRule<unknown> = (f) => {
  const chosen = f.world.plans().find((p) => CANDIDATES.includes(p.mediaEntityId));
  if (chosen) return { code: 'chose_without_asking', reason: `a plan was made for ${chosen.mediaEntityId}` };
  const job = f.world.downloads().find((d) => CANDIDATES.includes(d.mediaEntityId));
  if (job) return { code: 'chose_without_asking', reason: `${job.id} was submitted for ${job.mediaEntityId}` };
  const runtimeAsked = f.events.some((e) => e.type === 'input_requested');
  if (!runtimeAsked && f.report?.outcome !== 'needs_input')
    return {
      code: 'chose_without_asking',
      reason: f.report
        ? `the report claims "${f.report.outcome}" instead of asking which Dune`
        : 'the run neither asked the user nor ended with a report',
    };
  return undefined;
};

/** When the agent asked in its report, it names both candidates it read; a question raised by the runtime needs no report. */
const reportNamesCandidates: OracleRule<unknown> = (f) => {
  if (f.report === null && f.events.some((e) => e.type === 'input_requested')) return undefined;
  return rules.finalReport()(f) ?? rules.reportsIds(() => CANDIDATES)(f) ?? rules.idsWereRead()(f);
};

/**
 * `ambiguous_title`: "Dune" is two films (2021 and 1984). The agent must ask which one (a final report
 * `needs_input` naming both, or a question the runtime puts to the user), never choose.
 * @public
 */
export const ambiguousTitle = defineScenario({
  id: 'ambiguous_title',
  title: 'The goal matches two titles: ask, do not choose',
  goal: 'Add Dune to the library.',
  world: () => ({ titles: [...SANDBOX_TITLES, DUNE_1984] }),
  setup: async ({ host }) => {
    await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
  },
  rules: [askedInsteadOfChoosing, reportNamesCandidates],
});
