import { settingChanges } from '@media-agent/host-adapter-kit';
import {
  defineStandardCapability,
  MediaStateError,
  PolicyKindSchema,
  PolicySettingsSchema,
} from '@media-agent/sdk/media';
import { defineCapability, type Capability } from '@media-agent/sdk';
import Type from 'typebox';
import type { V3Services, V3StandardHelpers } from './services';

/**
 * Acquisition and organize policies, kept by the adapter per host.
 * @param s - the services of one host
 * @param h - the shared reads and views
 * @returns `policy.preview`, `policy.apply` by id
 * @internal
 */
export function v3PolicyCapabilities(s: V3Services, _h: V3StandardHelpers) {
  return {
    'policy.preview': defineStandardCapability('policy.preview', async (input) => {
      const current = s.policies.get(input.kind) ?? { revision: 0, settings: {} };
      const { proposed, changes } = settingChanges(current.settings, input.settings);
      return { kind: input.kind, revision: current.revision, current: current.settings, proposed, changes };
    }),
    'policy.apply': defineStandardCapability(
      'policy.apply',
      async (input) => {
        const current = s.policies.get(input.kind) ?? { revision: 0, settings: {} };
        const next = {
          revision: current.revision + 1,
          settings: { ...current.settings, ...input.settings },
          previous: { revision: current.revision, settings: current.settings },
        };
        s.policies.set(input.kind, next);
        return { kind: input.kind, revision: next.revision, settings: next.settings };
      },
      {
        // Undone by putting the settings before this revision back (moviepilot.policy.revert).
        inverse: {
          capability: V3_POLICY_REVERT,
          input: (output) => ({ kind: output.kind, revision: output.revision }),
        },
        impact: (input) => {
          const current = s.policies.get(input.kind) ?? { revision: 0, settings: {} };
          const { changes } = settingChanges(current.settings, input.settings);
          return {
            reversible: true,
            reversibleBy: 'inverse',
            notes: [
              `revision ${current.revision} → ${current.revision + 1} of the ${input.kind} policy (kept by the adapter for this host)`,
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
export const V3_POLICY_REVERT = 'moviepilot.policy.revert';

/**
 * `moviepilot.policy.revert`: puts back the settings a policy had before revision `revision` (kept with it by the
 * adapter), as a new revision. Refused when the policy changed since (`MEDIA_PLAN_CONFLICT`: revert the newer
 * change first) or the revision keeps no previous settings (`MEDIA_INVALID_STATE`).
 * @internal
 */
export function v3PolicyRevertCapability(s: V3Services): Capability {
  return defineCapability({
    id: V3_POLICY_REVERT,
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
    impact: (input: { kind: string }) => ({
      reversible: true,
      notes: [
        `the ${input.kind} policy goes back to revision ${s.policies.get(input.kind)?.previous?.revision ?? '?'}'s settings`,
      ],
    }),
    handler: async (input: { kind: string; revision: number }) => {
      const current = s.policies.get(input.kind) ?? { revision: 0, settings: {} };
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
      const next = {
        revision: current.revision + 1,
        settings: current.previous.settings,
        previous: { revision: current.revision, settings: current.settings },
      };
      s.policies.set(input.kind, next);
      return { kind: input.kind, revision: next.revision, settings: next.settings };
    },
  } as never) as Capability;
}
