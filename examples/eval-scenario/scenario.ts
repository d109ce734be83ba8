// A plugin author's evaluation scenario in one file: world setup, goal, oracle rules.
// Run it: npm run eval -- --scenarios examples/eval-scenario/scenario.ts --replay examples/eval-scenario/trajectories
import Type from 'typebox';
import { defineCapability } from '@media-agent/sdk';
import { callsOf, defineScenario, rules, type OracleRule } from '@media-agent/sdk/testing';

/** The plugin's capability: which titles a friend recommended (a read). */
const recommendations = defineCapability({
  id: 'friends.recommendations',
  version: 1,
  title: 'Friends’ recommendations',
  description: 'Titles friends recommended, with their media entity ids.',
  kind: 'read',
  replay: 'safe',
  input: Type.Object({}),
  output: Type.Object({ items: Type.Array(Type.Object({ mediaEntityId: Type.String(), from: Type.String() })) }),
  handler: async () => ({ items: [{ mediaEntityId: 'tmdb:335984', from: 'Ana' }] }),
});

/** The recommendation was read before anything was planned. */
const readRecommendationsFirst: OracleRule = (facts) => {
  const read = callsOf(facts, 'friends.recommendations', 'succeeded')[0];
  const plan = callsOf(facts, 'download.plan')[0];
  if (!read) return { code: 'no_read_evidence', reason: 'friends.recommendations was never read' };
  if (plan && plan.seq < read.seq)
    return { code: 'unexpected_write', reason: 'planned before reading the recommendation' };
  return undefined;
};

export default defineScenario({
  id: 'friend_recommendation',
  title: "Add what a friend recommended; the title is found through the plugin's read",
  goal: 'Add the film Ana recommended to the library.',
  setup: async ({ host }) => {
    host.capabilities.register(recommendations);
    await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
  },
  rules: [
    readRecommendationsFirst,
    rules.oneDownload('tmdb:335984'),
    rules.finalReport(),
    rules.outcomeIs('submitted', 'done'),
    rules.idsWereRead(),
  ],
});
