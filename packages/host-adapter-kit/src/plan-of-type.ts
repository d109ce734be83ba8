import { MediaStateError } from '@media-agent/sdk/media';

/**
 * The plan a `download.submit` or `organize.execute` call names, checked: it exists and is of the type
 * the capability executes.
 * @param plan - the plan the invocation path found for the call, if any
 * @param type - the plan type the capability executes
 * @param planId - the plan id the call named (for the message when there is no plan)
 * @returns the plan
 * @throws `MediaStateError` `MEDIA_NOT_FOUND` when there is no such plan (make one with `<type>.plan`),
 *   `MEDIA_PLAN_CONFLICT` when it is a plan of the other type (both types named)
 * @public
 */
export function planOfType<P extends { type: string; id: string }>(
  plan: P | undefined,
  type: 'download' | 'organize',
  planId: string,
): P {
  if (!plan)
    throw new MediaStateError(
      'MEDIA_NOT_FOUND',
      `no plan ${JSON.stringify(planId)}: make one with ${type}.plan first`,
      {
        planId,
      },
    );
  if (plan.type !== type)
    throw new MediaStateError(
      'MEDIA_PLAN_CONFLICT',
      `plan ${plan.id} is a ${plan.type} plan, not ${type === 'organize' ? 'an' : 'a'} ${type} plan`,
      { planId: plan.id },
    );
  return plan;
}
