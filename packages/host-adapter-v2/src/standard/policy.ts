import { settingChanges } from '@media-agent/host-adapter-kit';
import {
  defineStandardCapability,
  MediaStateError,
  PolicyKindSchema,
  PolicySettingsSchema,
} from '@media-agent/sdk/media';
import { defineCapability, type Capability, type HandlerContext } from '@media-agent/sdk';
import Type from 'typebox';
import type { V2HostClient } from '../client';
import type { V2StandardDeps, V2StandardHelpers } from './services';

/**
 * Acquisition and organize policies, kept in the host's user configuration (`/api/v1/user/config/{key}`).
 * @param deps - the host view and plan service
 * @param h - the shared reads and checks
 * @returns `policy.preview`, `policy.apply` by id
 * @internal
 */
export function v2PolicyCapabilities(deps: V2StandardDeps, _h: V2StandardHelpers) {
  const { view } = deps;
  const { client } = view;
  return {
    'policy.preview': defineStandardCapability('policy.preview', async (input, ctx) => {
      const current = await readPolicy(client, input.kind, ctx.signal);
      const { proposed, changes } = settingChanges(current.settings, input.settings);
      return { kind: input.kind, revision: current.revision, current: current.settings, proposed, changes };
    }),
    'policy.apply': defineStandardCapability(
      'policy.apply',
      async (input, ctx) => {
        const current = await readPolicy(client, input.kind, ctx.signal);
        if (ctx.idempotencyKey && current.key === ctx.idempotencyKey)
          return { kind: input.kind, revision: current.revision, settings: current.settings };
        const next: StoredPolicy = {
          revision: current.revision + 1,
          settings: { ...current.settings, ...input.settings },
          key: ctx.idempotencyKey ?? null,
          previous: { revision: current.revision, settings: current.settings },
        };
        await client.call('userconfig.set', {
          pathParams: { key: policyKey(input.kind) },
          body: next,
          signal: ctx.signal,
        });
        return { kind: input.kind, revision: next.revision, settings: next.settings };
      },
      {
        // Undone by putting the settings before this revision back (moviepilot.policy.revert).
        inverse: {
          capability: V2_POLICY_REVERT,
          input: (output) => ({ kind: output.kind, revision: output.revision }),
        },
        impact: async (input, ctx) => {
          const current = await readPolicy(client, input.kind, ctx.signal);
          const { changes } = settingChanges(current.settings, input.settings);
          return {
            reversible: true,
            reversibleBy: 'inverse',
            notes: [
              `revision ${current.revision} → ${current.revision + 1} of the ${input.kind} policy (MoviePilot user configuration ${policyKey(input.kind)})`,
              ...changes
                .slice(0, 19)
                .map((c) => `${c.field}: ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`.slice(0, 300)),
            ],
          };
        },
      },
    ),
  };
}

/** Id of the adapter capability that puts a policy's previous settings back (`policy.apply`'s inverse). @public */
export const V2_POLICY_REVERT = 'moviepilot.policy.revert';

/**
 * `moviepilot.policy.revert`: puts back the settings a policy had before revision `revision` (kept with it in
 * the host's user configuration), as a new revision. Refused when the policy changed since
 * (`MEDIA_PLAN_CONFLICT`: revert the newer change first) or the revision keeps no previous settings
 * (`MEDIA_INVALID_STATE`).
 * @internal
 */
export function policyRevertCapability(client: V2HostClient): Capability {
  return defineCapability({
    id: V2_POLICY_REVERT,
    version: 1,
    title: 'Revert a policy change',
    description:
      'Puts back the settings a policy (acquisition, organize, automation, identity) had before the given revision, as a new revision. Refused when the policy changed since.',
    kind: 'execute',
    replay: 'reconcile',
    effect: 'setting',
    tags: ['policy', 'revert', 'undo', 'settings'],
    aliases: ['撤销策略', '恢复策略'],
    input: Type.Object(
      {
        kind: PolicyKindSchema,
        revision: Type.Integer({ minimum: 1, description: 'The revision to revert (from policy.apply).' }),
      },
      { additionalProperties: false },
    ),
    output: Type.Object({
      kind: PolicyKindSchema,
      revision: Type.Integer({ minimum: 1 }),
      settings: PolicySettingsSchema,
    }),
    impact: async (input: { kind: string; revision: number }, ctx: { signal: AbortSignal }) => {
      const current = await readPolicy(client, input.kind, ctx.signal);
      return {
        reversible: true,
        notes: [`the ${input.kind} policy goes back to revision ${current.previous?.revision ?? '?'}'s settings`],
      };
    },
    handler: async (input: { kind: string; revision: number }, ctx: HandlerContext) => {
      const current = await readPolicy(client, input.kind, ctx.signal);
      if (ctx.idempotencyKey && current.key === ctx.idempotencyKey)
        return { kind: input.kind, revision: current.revision, settings: current.settings };
      if (current.revision !== input.revision)
        throw new MediaStateError(
          'MEDIA_PLAN_CONFLICT',
          `the ${input.kind} policy is at revision ${current.revision}, not ${input.revision}: revert the newer change first`,
          { kind: input.kind, revision: current.revision },
        );
      if (!current.previous)
        throw new MediaStateError(
          'MEDIA_INVALID_STATE',
          `revision ${input.revision} of the ${input.kind} policy keeps no previous settings to put back`,
          { kind: input.kind, revision: current.revision },
        );
      const next: StoredPolicy = {
        revision: current.revision + 1,
        settings: current.previous.settings,
        key: ctx.idempotencyKey ?? null,
        previous: { revision: current.revision, settings: current.settings },
      };
      await client.call('userconfig.set', {
        pathParams: { key: policyKey(input.kind) },
        body: next,
        signal: ctx.signal,
      });
      return { kind: input.kind, revision: next.revision, settings: next.settings };
    },
  } as never) as Capability;
}

/** A policy as kept in the host's user configuration: its revision and settings, and the settings before it. */
interface StoredPolicy {
  revision: number;
  settings: Record<string, unknown>;
  key: string | null;
  previous: { revision: number; settings: Record<string, unknown> } | null;
}

/** The user-configuration key a policy kind is kept under. @internal */
const policyKey = (kind: string) => `media_agent_policy_${kind}`;

/** Reads a policy kind from the host\'s user configuration (revision 0 and no settings when unset). */
async function readPolicy(client: V2HostClient, kind: string, signal: AbortSignal): Promise<StoredPolicy> {
  const data = await client.call<{ value?: Partial<StoredPolicy> | null }>('userconfig.get', {
    pathParams: { key: policyKey(kind) },
    signal,
  });
  const v = data?.value;
  return {
    revision: v?.revision ?? 0,
    settings: v?.settings ?? {},
    key: v?.key ?? null,
    previous: v?.previous ?? null,
  };
}
