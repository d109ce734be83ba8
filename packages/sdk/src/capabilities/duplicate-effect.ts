// The never-effect duplicate rule of forks (docs/forks.md#the-duplicate-rule): a pure function.
import type { ReplayPolicy } from '../core/capability-descriptor';
import type { PriorEffect } from './invocation';

/** Outcomes of a prior effect that may have taken place in the world: repeating one is a duplicate. */
const TOOK_PLACE: ReadonlySet<PriorEffect['outcome']> = new Set(['succeeded', 'pending', 'unknown', 'running']);

/**
 * Whether a fork's call repeats a `never` effect its lineage already performed: the capability's replay policy is
 * `never`, the verdict that allowed it is not a person's approval (`basis !== 'approval'`), and a prior effect has
 * the same capability id and argument hash with an outcome that may have taken place (`succeeded`, `pending`,
 * `unknown`, `running`). Pure.
 * @param call - the capability called, its replay policy and the call's argument hash
 * @param basis - the basis of the verdict that allowed the call
 * @param prior - the lineage's effects (`InvocationContext.priorEffects`); absent for a run that is not a fork
 * @returns the prior effect it repeats, or undefined when the call may go on
 * @example
 * ```ts
 * duplicateEffect({ capabilityId: 'download.submit', replay: 'never', argsHash }, 'grant', priorEffects);
 * // → { key: 'download.submit:v1:run_1:…', outcome: 'pending', … }: refused FORK_DUPLICATE_EFFECT
 * ```
 */
export function duplicateEffect(
  call: { capabilityId: string; replay: ReplayPolicy; argsHash: string },
  basis: string,
  prior: readonly PriorEffect[] | undefined,
): PriorEffect | undefined {
  if (prior === undefined || prior.length === 0 || call.replay !== 'never' || basis === 'approval') return undefined;
  return prior.find(
    (p) => p.capabilityId === call.capabilityId && p.argsHash === call.argsHash && TOOK_PLACE.has(p.outcome),
  );
}

/** The denial's reason: which effect it repeats, and how a person lets it run. */
export function duplicateEffectReason(capabilityId: string, prior: PriorEffect): string {
  return `this run is a fork, and run ${prior.runId} already performed ${capabilityId} with the same arguments (ledger key ${prior.key}, ${prior.outcome}); it cannot be repeated safely. It runs only if a person confirms it by approving the plan; otherwise tell the person it was already done`;
}
