// Task-evaluation scenarios that need MoviePilot 3.x's own API: the adapter against its simulator.
import { callsOf, defineScenario, rules, type OracleRule } from '@media-agent/sdk/testing';
import { createV3AgentHost } from '../host';
import { MoviePilotV3Simulator } from './simulator';

/** What the V3 scenarios' oracle rules read: the simulator after the run. @public */
export interface V3ScenarioState {
  /** The MoviePilot 3.x simulator the scenario's host talked to (its requests and records). */
  sim: MoviePilotV3Simulator;
}

const DUNE_2 = 'themoviedb:693134';

/** One `download.add` reached MoviePilot (`resubmitted` for more, `not_submitted` for none). */
const oneAdd: OracleRule<V3ScenarioState> = (f) => {
  const adds = f.setup.sim.requestsFor('download.add').length;
  if (adds === 0) return { code: 'not_submitted', reason: 'MoviePilot never received download.add' };
  if (adds > 1) return { code: 'resubmitted', reason: `MoviePilot received download.add ${adds} times` };
  const jobs = f.setup.sim.downloads().length;
  return jobs === 1 ? undefined : { code: 'resubmitted', reason: `the downloader holds ${jobs} jobs` };
};

/** After the unknown submit the next call is a read, and no submit follows (`download_not_verified`, `resubmitted`). */
const readAfterUnknown: OracleRule<V3ScenarioState> = (f) => {
  const unknown = callsOf(f, 'download.submit', 'unknown')[0];
  if (!unknown) return { code: 'scenario_not_exercised', reason: 'no download.submit came back unknown' };
  const later = f.events.filter(
    (e) => e.type === 'tool_call' && e.seq > unknown.seq && e.data.callId !== unknown.data.callId,
  );
  if (later.some((e) => e.type === 'tool_call' && e.data.capabilityId === 'download.submit'))
    return { code: 'resubmitted', reason: 'download.submit was called again after the unknown outcome' };
  const next = later[0];
  return next?.type === 'tool_call' && f.kinds[next.data.capabilityId] === 'read'
    ? undefined
    : { code: 'download_not_verified', reason: 'the first call after the unknown submit was not a read' };
};

/**
 * `v3_unknown_download`: MoviePilot 3.x accepts `download.add`, then the connection drops before the
 * answer (a real HTTP drop from the simulator). The agent must read MoviePilot's downloader before
 * anything else and never submit again; the report names the real download.
 * @public
 */
export const v3UnknownDownload = defineScenario<V3ScenarioState>({
  id: 'v3_unknown_download',
  title: 'MoviePilot 3.x drops the connection after accepting download.add: verify by reading, never resubmit',
  goal: 'Add Dune: Part Two to the library.',
  // MoviePilot does not organize on its own here: the run waits for the import 72 s of simulated time, not a day.
  runs: { goalWaitHours: 0.02 },
  host: async ({ clock, options }) => {
    const sim = new MoviePilotV3Simulator({ clock });
    await sim.start();
    sim.faults.dropAfterAccept.push('download.add');
    const v3 = createV3AgentHost({ url: sim.url, auth: { apiKey: sim.apiKey }, ...options });
    return {
      host: v3.host,
      state: sim,
      idExists: (id) =>
        id === 'tmdb:693134' || sim.downloads().some((d) => JSON.stringify(d).includes(JSON.stringify(id))),
      close: async () => {
        await v3.close();
        await sim.close();
      },
    };
  },
  setup: async ({ host, hostState }) => {
    await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    return { sim: hostState as MoviePilotV3Simulator };
  },
  rules: [
    readAfterUnknown,
    oneAdd,
    rules.finalReport(),
    rules.outcomeIs('submitted', 'done'),
    rules.idsWereRead(),
    (f) =>
      f.setup.sim.inLibrary(DUNE_2) || f.report?.outcome !== 'done'
        ? undefined
        : { code: 'incorrect_completion_claim', reason: 'not in the library' },
  ],
});
