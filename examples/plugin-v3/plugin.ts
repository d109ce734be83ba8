/**
 * A plugin capability for MoviePilot 3.x, written against the V3 adapter's client.
 *
 * `plugin.Watchlist.follow` follows a title: it looks the subscription up (`subscription.find`) and
 * adds one only when the host has none (`subscription.add`), sending the V3 identity as the
 * `media_source` + `media_id` pair. Because it looks before it writes, running it again with the same
 * input is safe: `replay: 'reconcile'` lets the ledger re-run an interrupted call to learn the outcome.
 * As an `execute`, an agent needs an approval or a standing grant; the catalog marks
 * `subscription.add` admin-only, so the client must be a host superuser (an API key is).
 */
import Type from 'typebox';
import { defineCapability, MediaIdSchema, MediaSourceSchema } from '@media-agent/sdk';
import { toV3Identity, type V3Client } from '@media-agent/host-adapter-v3';

export const FOLLOW = 'plugin.Watchlist.follow';

export function watchlistFollow(client: V3Client) {
  return defineCapability({
    id: FOLLOW,
    version: 1,
    title: 'Follow a title (MoviePilot subscription)',
    description: 'Subscribes MoviePilot to a movie or series so new releases are downloaded as they appear. Does nothing when it is already followed.',
    kind: 'execute',
    replay: 'reconcile',
    tags: ['plugin', 'Watchlist', 'subscription'],
    aliases: ['subscribe', '订阅'],
    input: Type.Object({ mediaSource: MediaSourceSchema, mediaId: MediaIdSchema, title: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
    output: Type.Object({ subscriptionId: Type.Number(), created: Type.Boolean() }),
    handler: async (input, ctx) => {
      const id = toV3Identity(input); // { media_source: 'themoviedb', media_id: '693134' }: always together
      const found = await client.call<{ id?: number }>('subscription.find', { pathParams: { media_id: id.media_id }, query: { media_source: id.media_source }, signal: ctx.signal });
      if (typeof found.data?.id === 'number') return { subscriptionId: found.data.id, created: false };
      const added = await client.call<{ id: number }>('subscription.add', { body: { name: input.title, ...id }, signal: ctx.signal });
      if (!added.success) throw new Error(`MoviePilot refused the subscription: ${added.message}`);
      return { subscriptionId: added.data.id, created: true };
    },
  });
}
