/**
 * A plugin for MoviePilot 3.x: two plugin capabilities written against the scoped client the V3
 * adapter hands each invocation.
 *
 * - `plugin.Watchlist.plan` (propose) looks the subscription up (`subscription.find`); when the title is
 *   not followed yet it freezes the follow as a plan (type `watchlist.follow`) a person approves.
 * - `plugin.Watchlist.follow` (execute) carries out an approved plan: it looks again and adds the
 *   subscription only when the host has none (`subscription.add`), identity always sent as the
 *   `media_source` + `media_id` pair. Looking before writing makes a re-run harmless, hence `replay: 'reconcile'`.
 *
 * Each declares the catalog operations it sends (`operations`); `ctx.client` can send only those, for
 * the invoking actor. `subscription.add` is admin-only and needs a person's confirmation, so the follow
 * is authorized like a direct `mp.subscription.add`: a host superuser, and for an agent an approval of
 * its plan — a standing grant is not enough.
 */
import Type from 'typebox';
import { MediaIdSchema, MediaSourceSchema } from '@media-agent/sdk/media';
import type { PlanService } from '@media-agent/sdk/authorization';
import { defineV3PluginCapability, toV3Identity } from '@media-agent/host-adapter-v3';

/** The planning capability. */
export const PLAN_FOLLOW = 'plugin.Watchlist.plan';
/** The executing capability. */
export const FOLLOW = 'plugin.Watchlist.follow';
/** Plan type of a follow; approvals bind to it. */
export const FOLLOW_PLAN_TYPE = 'watchlist.follow';

const Title = {
  mediaSource: MediaSourceSchema,
  mediaId: MediaIdSchema,
  title: Type.String({ minLength: 1, maxLength: 200 }),
};
type Follow = { mediaSource: Parameters<typeof toV3Identity>[0]['mediaSource']; mediaId: string; title: string };

/** The Watchlist plugin's capabilities; register both on the V3 host's `host.capabilities`. @param plans - the host's plan service */
export function watchlistPlugin(plans: PlanService) {
  const plan = defineV3PluginCapability({
    id: PLAN_FOLLOW,
    version: 1,
    title: 'Plan following a title (MoviePilot subscription)',
    description:
      'Checks whether MoviePilot already follows (subscribes to) a movie or series; if not, plans the follow for a person to approve. Then call plugin.Watchlist.follow with the planId.',
    kind: 'propose',
    replay: 'reconcile',
    operations: ['subscription.find'],
    tags: ['plugin', 'Watchlist', 'subscription'],
    aliases: ['subscribe', '订阅'],
    input: Type.Object(Title, { additionalProperties: false }),
    output: Type.Object({
      followed: Type.Boolean(),
      subscriptionId: Type.Union([Type.Number(), Type.Null()]),
      plan: Type.Union([Type.Object({ id: Type.String(), payloadHash: Type.String() }), Type.Null()]),
    }),
    handler: async (input, ctx) => {
      const id = toV3Identity(input); // { media_source: 'themoviedb', media_id: '693134' }: always together
      const found = await ctx.client.call<{ id?: number }>('subscription.find', {
        pathParams: { media_id: id.media_id },
        query: { media_source: id.media_source },
      });
      if (typeof found.data?.id === 'number') return { followed: true, subscriptionId: found.data.id, plan: null };
      const p = await plans.create({
        type: FOLLOW_PLAN_TYPE,
        payload: { mediaSource: input.mediaSource, mediaId: input.mediaId, title: input.title },
        actor: ctx.actor,
        mediaEntityId: `${input.mediaSource}:${input.mediaId}`,
      });
      return { followed: false, subscriptionId: null, plan: { id: p.id, payloadHash: p.payloadHash } };
    },
  });
  const follow = defineV3PluginCapability({
    id: FOLLOW,
    version: 1,
    title: 'Follow a title (MoviePilot subscription)',
    description:
      'Subscribes MoviePilot to the title of an approved plugin.Watchlist.plan plan, so new releases are downloaded as they appear. Does nothing when it is already followed.',
    kind: 'execute',
    replay: 'reconcile',
    operations: ['subscription.find', 'subscription.add'],
    tags: ['plugin', 'Watchlist', 'subscription'],
    input: Type.Object({ planId: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false }),
    output: Type.Object({ subscriptionId: Type.Number(), created: Type.Boolean() }),
    target: (input) => ({ planType: FOLLOW_PLAN_TYPE, planId: input.planId }),
    handler: async (_input, ctx) => {
      if (ctx.plan?.type !== FOLLOW_PLAN_TYPE)
        throw new Error('plugin.Watchlist.follow executes a watchlist.follow plan');
      const want = ctx.plan.payload as Follow;
      const id = toV3Identity(want);
      const found = await ctx.client.call<{ id?: number }>('subscription.find', {
        pathParams: { media_id: id.media_id },
        query: { media_source: id.media_source },
      });
      if (typeof found.data?.id === 'number') return { subscriptionId: found.data.id, created: false };
      const added = await ctx.client.ok<{ id: number }>('subscription.add', { body: { name: want.title, ...id } });
      return { subscriptionId: added.data.id, created: true };
    },
  });
  return [plan, follow] as const;
}
