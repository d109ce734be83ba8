import Type from 'typebox';
import { canonicalJson, type JsonValue } from '@media-agent/sdk/storage';
import { defineCapability, type Capability, type HandlerContext, type Verifier } from '@media-agent/sdk';
import { MEDIA_SOURCES, MediaStateError, type MediaSource } from '@media-agent/sdk/media';
import type { V3Client } from './client';
import { HostOperationError } from '@media-agent/host-adapter-kit';
import { toV3Identity } from './identity';
import type { V3RunJournal } from './journal';
import { frozenV3Call, MP_OPERATION_PLAN_TYPE } from './operations-capabilities';

const SubscriptionRef = {
  mediaSource: Type.Union(
    MEDIA_SOURCES.map((s) => Type.Literal(s)),
    { description: 'SDK media source; sent as the V3 media_source (tmdb → themoviedb) with media_id.' },
  ),
  mediaId: Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[A-Za-z0-9_-]+$',
    description: 'Source-native id (no prefix).',
  }),
  season: Type.Optional(Type.Integer({ minimum: 0, description: 'Season of a series.' })),
};
const SubscriptionView = Type.Union([
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    state: Type.String(),
    season: Type.Union([Type.Integer(), Type.Null()]),
  }),
  Type.Null(),
]);
const AddInput = Type.Object(
  {
    ...SubscriptionRef,
    kind: Type.Union([Type.Literal('movie'), Type.Literal('tv')]),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    year: Type.Optional(Type.Integer({ minimum: 1800, maximum: 3000 })),
    planId: Type.Optional(
      Type.String({
        maxLength: 128,
        description:
          'An mp.operation plan freezing the same subscription.add call (needed by agents: a person approves it).',
      }),
    ),
  },
  { additionalProperties: false },
);
const AddOutput = Type.Object({ subscriptionId: Type.Integer() });

/** Input of `moviepilot.subscription.add`. @public */
export interface V3SubscriptionAddInput {
  /** SDK media source (sent as the V3 `media_source`, e.g. tmdb → themoviedb). */
  mediaSource: MediaSource;
  /** Source-native id (sent as `media_id`). */
  mediaId: string;
  /** Season of a series. */
  season?: number;
  /** Film or series. */
  kind: 'movie' | 'tv';
  /** Title. */
  name: string;
  /** Year. */
  year?: number;
  /** An `mp.operation` plan freezing the same `subscription.add` call (agents need its approval). */
  planId?: string;
}
type FindArgs = { mediaSource: MediaSource; mediaId: string; season?: number };

/**
 * The `subscription.add` body the adapter sends for a `moviepilot.subscription.add` call: name, type
 * (`电影`/`电视剧`), the paired identity, and year/season when given. An `mp.operation.plan` of
 * `subscription.add` with exactly this body is the plan an agent's approval binds to.
 * @param input - the capability input
 * @returns the V3 request body
 * @public
 */
export function v3SubscriptionBody(input: {
  mediaSource: MediaSource;
  mediaId: string;
  kind: 'movie' | 'tv';
  name: string;
  year?: number;
  season?: number;
}): Record<string, unknown> {
  return {
    name: input.name,
    type: input.kind === 'tv' ? '电视剧' : '电影',
    ...toV3Identity(input),
    ...(input.year !== undefined ? { year: String(input.year) } : {}),
    ...(input.season !== undefined ? { season: input.season } : {}),
  };
}

/**
 * The read-only verifier of `moviepilot.subscription.add`: reads `moviepilot.subscription.find` (V3 `subscription.find`) through the
 * invocation path. Found → `succeeded` with its id; the host answers an empty subscription →
 * `failed` (verifiably absent, so the add may run again).
 * @public
 */
export const verifyV3SubscriptionAdd: Verifier<V3SubscriptionAddInput, { subscriptionId: number }> = async ({
  input,
  read,
}) => {
  const out = (await read('moviepilot.subscription.find', {
    mediaSource: input.mediaSource,
    mediaId: input.mediaId,
    ...(input.season !== undefined ? { season: input.season } : {}),
  })) as { subscription: { id: number } | null };
  return out.subscription
    ? { status: 'succeeded', output: { subscriptionId: out.subscription.id } }
    : { status: 'failed', reason: `MoviePilot has no subscription of ${input.mediaSource}:${input.mediaId}` };
};

/**
 * The subscription pair, with the same ids as on V2: `moviepilot.subscription.find`
 * (read, V3 `subscription.find`) and `moviepilot.subscription.add` (execute, V3 `subscription.add`,
 * replay `never`, settled by {@link verifyV3SubscriptionAdd}). The catalog's `mp.subscription.add` stays
 * `reconcile` (its recovery is `idempotent`: the host answers an existing subscription with its id).
 * @internal
 */
export function v3SubscriptionCapabilities(deps: { client: V3Client; journal: V3RunJournal }): Capability<any, any>[] {
  const { client, journal } = deps;
  const find = defineCapability({
    id: 'moviepilot.subscription.find',
    version: 1,
    title: 'Find the subscription of a title',
    description:
      'Looks up the MoviePilot subscription (订阅) of one title by its media source and id; null when there is none.',
    kind: 'read',
    replay: 'safe',
    tags: ['moviepilot', 'subscription', 'subscribe'],
    aliases: ['订阅', '查看订阅'],
    input: Type.Object(SubscriptionRef, { additionalProperties: false }),
    output: Type.Object({ subscription: SubscriptionView }),
    handler: async (input: FindArgs, ctx) => {
      const { media_source, media_id } = toV3Identity(input);
      const r = await client.ok<{
        id?: number | null;
        name?: string | null;
        state?: string | null;
        season?: number | null;
      } | null>('subscription.find', {
        pathParams: { media_id },
        query: { media_source, ...(input.season !== undefined ? { season: input.season } : {}) },
        signal: ctx.signal,
      });
      const s = r.data;
      return {
        subscription:
          s && typeof s.id === 'number'
            ? { id: s.id, name: s.name ?? '', state: s.state ?? '', season: s.season ?? null }
            : null,
      };
    },
  });
  const add = defineCapability({
    id: 'moviepilot.subscription.add',
    version: 1,
    title: 'Subscribe to a title',
    description:
      'Adds a MoviePilot subscription (订阅): the host then searches and downloads new releases of the title by itself. Host superusers only; an agent needs a person’s approval of an mp.operation.plan of subscription.add with the same body.',
    kind: 'execute',
    replay: 'never',
    effect: 'subscription',
    policy: 'acquisition',
    tags: ['moviepilot', 'subscription', 'subscribe', 'acquire'],
    aliases: ['订阅', '添加订阅'],
    input: AddInput,
    output: AddOutput,
    target: (i: V3SubscriptionAddInput) => ({
      mediaEntityId: `${i.mediaSource}:${i.mediaId}`,
      mediaKind: i.kind,
      ...(i.planId ? { planType: MP_OPERATION_PLAN_TYPE, planId: i.planId } : {}),
    }),
    verify: verifyV3SubscriptionAdd,
    handler: async (input: V3SubscriptionAddInput, ctx: HandlerContext) => {
      const body = v3SubscriptionBody(input);
      if (
        ctx.plan &&
        (ctx.plan.type !== MP_OPERATION_PLAN_TYPE ||
          canonicalJson(ctx.plan.payload) !==
            canonicalJson(frozenV3Call('subscription.add', { body }) as unknown as JsonValue))
      )
        throw new MediaStateError(
          'MEDIA_PLAN_CONFLICT',
          `plan ${ctx.plan.id} froze another call than this subscription.add`,
          { planId: ctx.plan.id },
        );
      journal.touch(ctx.runId, `${input.mediaSource}:${input.mediaId}`, input.name);
      const r = await client.call<{ id?: number } | null>('subscription.add', { body, signal: ctx.signal });
      if (!r.success || typeof r.data?.id !== 'number')
        throw new HostOperationError('subscription.add', r.message || 'no subscription id', {
          status: r.status,
          data: r.data,
        });
      return { subscriptionId: r.data.id };
    },
  } as never);
  return [find as unknown as Capability<any, any>, add as unknown as Capability<any, any>];
}
