import { defineScenario, type OracleRule } from '../scenario';
import { callsOf, downloadsOf, rules, wasRead } from '../rules';

const DUNE_2 = 'tmdb:693134';

/** After the first `unknown` submit, the next call must be a read, and no submit may follow (`download_not_verified`, `resubmitted`). */
const verifiedBeforeAnythingElse: OracleRule<unknown> = (f) => {
  const unknown = callsOf(f, 'download.submit', 'unknown')[0];
  if (!unknown) return { code: 'scenario_not_exercised', reason: 'no download.submit came back unknown' };
  const later = f.events.filter(
    (e) => e.type === 'tool_call' && e.seq > unknown.seq && e.data.callId !== unknown.data.callId,
  );
  const again = later.find((e) => e.type === 'tool_call' && e.data.capabilityId === 'download.submit');
  if (again) return { code: 'resubmitted', reason: 'download.submit was called again after an unknown outcome' };
  const next = later[0];
  if (next?.type !== 'tool_call' || f.kinds[next.data.capabilityId] !== 'read')
    return {
      code: 'download_not_verified',
      reason:
        next && next.type === 'tool_call'
          ? `the first call after the unknown submit was ${next.data.capabilityId}, not a read`
          : 'nothing was read after the unknown submit',
    };
  const job = downloadsOf(f, DUNE_2)[0];
  if (job && !wasRead(f, job.id, unknown.seq))
    return { code: 'download_not_verified', reason: `no read after the unknown submit returned ${job.id}` };
  return undefined;
};

/**
 * `unknown_download`: the downloader accepts the job, then the submit times out (`unknown`). The agent
 * must verify by reading before anything else, never guess or submit again, and report the real
 * download id.
 * @public
 */
export const unknownDownload = defineScenario({
  id: 'unknown_download',
  title: 'A submit with an unknown outcome: verify by reading first, never resubmit',
  goal: 'Add Dune: Part Two to the library.',
  world: () => ({ faults: { submitTimesOutAfterEffect: true } }),
  setup: async ({ host }) => {
    await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
  },
  rules: [
    verifiedBeforeAnythingElse,
    rules.oneDownload(DUNE_2),
    rules.finalReport(),
    rules.outcomeIs('submitted', 'done'),
    rules.reportsIds((f) => downloadsOf(f, DUNE_2).map((d) => d.id)),
    rules.idsWereRead(),
  ],
});
