import { defineCapability, type Capability } from '@media-agent/sdk';
import { MediaStateError } from '@media-agent/sdk/media';
import { typeName } from './mapping';
import type { V2HostView } from './host-view';
import Type from 'typebox';

/** Input of the subscription capabilities: a MoviePilot 2.x identity and an optional season. */
const SubscriptionRef = {
  mediaSource: Type.Union([Type.Literal('tmdb'), Type.Literal('douban')], {
    description: 'tmdb or douban (MoviePilot 2.x identities).',
  }),
  mediaId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
  season: Type.Optional(Type.Integer({ minimum: 1 })),
};
/** A subscription as the capabilities show it, or null. */
const SubscriptionView = Type.Union([
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    state: Type.String(),
    season: Type.Union([Type.Integer(), Type.Null()]),
  }),
  Type.Null(),
]);

/**
 * Host capabilities for subscriptions: `moviepilot.subscription.find` (read, `GET /api/v1/subscribe/media/{mediaid}`)
 * and `moviepilot.subscription.add` (execute, `POST /api/v1/subscribe/`, replay `never`, settled by looking the
 * subscription up).
 * @internal
 */
export function subscriptionCapabilities(view: V2HostView): Capability[] {
  const { client, tracking } = view;
  const find = defineCapability({
    id: 'moviepilot.subscription.find',
    version: 1,
    title: 'Find the subscription of a title',
    description:
      'Looks up the MoviePilot subscription (订阅) of one title by TMDB or Douban id; null when there is none.',
    kind: 'read',
    replay: 'safe',
    tags: ['subscription', 'subscribe'],
    aliases: ['订阅', '查看订阅'],
    input: Type.Object(SubscriptionRef, { additionalProperties: false }),
    output: Type.Object({ subscription: SubscriptionView }),
    handler: async (input, ctx) => {
      const s = await client.call<{
        id?: number | null;
        name?: string | null;
        state?: string | null;
        season?: number | null;
      }>('subscribe.media', {
        pathParams: { mediaid: `${input.mediaSource}:${input.mediaId}` },
        query: { season: input.season },
        signal: ctx.signal,
      });
      return {
        subscription: s?.id ? { id: s.id, name: s.name ?? '', state: s.state ?? '', season: s.season ?? null } : null,
      };
    },
  });
  const add = defineCapability({
    id: 'moviepilot.subscription.add',
    version: 1,
    title: 'Subscribe to a title',
    description:
      'Adds a MoviePilot subscription (订阅): the host then searches and downloads new releases of the title by itself.',
    kind: 'execute',
    replay: 'never',
    effect: 'subscription',
    policy: 'acquisition',
    tags: ['subscription', 'subscribe', 'acquire'],
    aliases: ['订阅', '添加订阅'],
    input: Type.Object(
      {
        ...SubscriptionRef,
        kind: Type.Union([Type.Literal('movie'), Type.Literal('tv')]),
        name: Type.String({ minLength: 1, maxLength: 200 }),
      },
      { additionalProperties: false },
    ),
    output: Type.Object({ subscriptionId: Type.Integer() }),
    target: (i) => ({ mediaEntityId: `${i.mediaSource}:${i.mediaId}`, mediaKind: i.kind }),
    verify: async ({ input, read }) => {
      const out = (await read('moviepilot.subscription.find', {
        mediaSource: input.mediaSource,
        mediaId: input.mediaId,
        ...(input.season ? { season: input.season } : {}),
      })) as { subscription: { id: number } | null };
      return out.subscription
        ? { status: 'succeeded', output: { subscriptionId: out.subscription.id } }
        : { status: 'failed', reason: 'the host has no subscription of this title' };
    },
    handler: async (input, ctx) => {
      const body = {
        name: input.name,
        type: typeName(input.kind),
        ...(input.mediaSource === 'tmdb' ? { tmdbid: Number(input.mediaId) } : { doubanid: input.mediaId }),
        ...(input.season ? { season: input.season } : {}),
      };
      const data = await client.call<{ id?: number }>('subscribe.create', { body, signal: ctx.signal });
      await tracking.touch(ctx.runId, { entities: [`${input.mediaSource}:${input.mediaId}`] });
      if (typeof data?.id !== 'number')
        throw new MediaStateError('MEDIA_INVALID_STATE', 'MoviePilot accepted the subscription but returned no id');
      return { subscriptionId: data.id };
    },
  });
  return [find as unknown as Capability, add as unknown as Capability];
}
