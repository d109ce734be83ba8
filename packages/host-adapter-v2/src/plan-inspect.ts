import { defineCapability, type Capability } from '@media-agent/sdk';
import type { PlanService } from '@media-agent/sdk/authorization';
import Type from 'typebox';

/**
 * A read capability the organize verifier uses: the download an organize plan targets.
 * @internal
 */
export function planInspectCapability(plans: PlanService): Capability {
  return defineCapability({
    id: 'moviepilot.plan.inspect',
    version: 1,
    title: 'Inspect an organize or download plan',
    description: 'Shows which host download an SDK plan (download or organize) targets.',
    kind: 'read',
    replay: 'safe',
    input: Type.Object({ planId: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false }),
    output: Type.Object({
      planId: Type.String(),
      type: Type.String(),
      downloadId: Type.Union([Type.String(), Type.Null()]),
      mediaEntityId: Type.Union([Type.String(), Type.Null()]),
    }),
    handler: async (input) => {
      const plan = await plans.get(input.planId);
      const payload = plan.payload as { downloadId?: string; hash?: string | null };
      return {
        planId: plan.id,
        type: plan.type,
        downloadId: payload.downloadId ?? payload.hash ?? null,
        mediaEntityId: plan.mediaEntityId,
      };
    },
  }) as unknown as Capability;
}
