// Which side-effecting capabilities declare no provenance: listed once at start-up (docs/untrusted-text.md).
import { isSideEffecting, type CapabilityDescriptor } from '../core/capability-descriptor';

/**
 * The ids, sorted, of the `propose`/`approve`/`execute` capabilities whose schemas declare no provenance
 * (`CapabilityDescriptor.provenance` is not `declared`): a run's calls of them are not checked for untrusted
 * arguments, as before the check existed.
 * @param descriptors - the registered capabilities
 * @internal
 */
export function undeclaredEffects(
  descriptors: readonly Pick<CapabilityDescriptor, 'id' | 'kind' | 'provenance'>[],
): string[] {
  return descriptors
    .filter((d) => isSideEffecting(d.kind) && d.provenance !== 'declared')
    .map((d) => d.id)
    .sort();
}

/**
 * The start-up warning naming them, or undefined when there are none.
 * @param ids - what {@link undeclaredEffects} returned
 * @internal
 */
export function undeclaredWarning(ids: readonly string[]): string | undefined {
  if (ids.length === 0) return undefined;
  return `undeclared: ${ids.join(', ')} keep today's behaviour: no taint check (their schemas mark no issued ids or untrusted text; docs/untrusted-text.md)`;
}
