// What a side-effecting call touches, as the authorizer is asked about it: the call's own target, with what it does
// not say taken from the plan it executes.
import type { AuthorizationRequest } from '../authorization/authorizer';
import type { InvocationTarget } from '../core/capability-descriptor';
import type { PlanRecord } from '../core/records';

/**
 * The authorization target of a call: plan type and id and steps from `target`; media entity, media kind and bytes
 * from `target`, else from `plan` (bytes 0 when neither says).
 * @internal
 */
export function authorizationTarget(
  target: InvocationTarget,
  plan: PlanRecord | undefined,
): AuthorizationRequest['target'] {
  return {
    planType: target.planType,
    planId: target.planId,
    mediaEntityId: target.mediaEntityId ?? plan?.mediaEntityId ?? undefined,
    mediaKind: target.mediaKind ?? plan?.mediaKind ?? undefined,
    bytes: target.bytes ?? plan?.bytes ?? 0,
    steps: target.steps,
  };
}
