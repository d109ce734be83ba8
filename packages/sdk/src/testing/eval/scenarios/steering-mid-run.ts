import { defineScenario, type OracleRule } from '../scenario';
import { downloadsOf, rules } from '../rules';

const DUNE_2 = 'tmdb:693134';
/** What the user sends while the agent searches. */
export const STEERING_MESSAGE = 'Change of plan: I want the 2160p version, not 1080p.';

/** The message reached the model (`scenario_not_exercised`) and the submitted job is 2160p (`steering_ignored`). */
const followsTheSteering: OracleRule<unknown> = (f) => {
  if (!f.events.some((e) => e.type === 'inbox_applied'))
    return { code: 'scenario_not_exercised', reason: 'the steering message never reached the model' };
  const job = downloadsOf(f, DUNE_2)[0];
  if (!job) return { code: 'not_submitted', reason: 'nothing was submitted' };
  return job.resolution === '2160p'
    ? undefined
    : { code: 'steering_ignored', reason: `${job.id} is ${job.resolution}; the user asked for 2160p mid-run` };
};

/**
 * `steering_mid_run`: the goal asks for 1080p; while the agent searches releases, the user sends a second
 * message asking for 2160p (after the first successful `release.search`). The submitted download must
 * follow the second message.
 * @public
 */
export const steeringMidRun = defineScenario({
  id: 'steering_mid_run',
  title: 'A second user message changes the quality mid-run; the submitted plan follows it',
  goal: 'Add Dune: Part Two to the library in 1080p.',
  setup: async ({ host }) => {
    await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
  },
  middleware: (ctx) => [
    {
      name: 'eval-steering',
      async afterToolCall(call) {
        if (
          call.run.depth !== 0 ||
          call.call.name !== 'release.search' ||
          call.status !== 'succeeded' ||
          call.state.get() === 'sent'
        )
          return;
        call.state.set('sent');
        await ctx.host.appendToInbox(call.run.id, STEERING_MESSAGE, { actor: 'user:admin' });
      },
    },
  ],
  rules: [
    followsTheSteering,
    rules.oneDownload(DUNE_2),
    rules.finalReport(),
    rules.outcomeIs('submitted', 'done'),
    rules.reportsIds((f) => downloadsOf(f, DUNE_2).map((d) => d.id)),
    rules.idsWereRead(),
  ],
});
