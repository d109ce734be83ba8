// The run rule as the model sees it, and what the run is offered.
import { checkRun } from '../../authorization/evaluate';
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import type { CapabilityDescriptor } from '../../core/capability-descriptor';
import type { RunRecord } from '../../core/run-records';

/**
 * The run rule (the authorizer's `checkRun`, so the model sees the same denial): read-only
 * subagents, `plan_only`, allowlists. Undefined for a name that is not a registered capability.
 */
export function runRefusal(
  capabilities: CapabilityRegistry,
  run: RunRecord,
  name: string,
): { code: string; message: string } | undefined {
  if (!capabilities.has(name)) return undefined;
  return refusalOf(capabilities.get(name), run);
}

function refusalOf(descriptor: CapabilityDescriptor, run: RunRecord): { code: string; message: string } | undefined {
  const failure = checkRun({
    capability: descriptor,
    run: { mode: run.mode, allowlist: run.capabilityAllowlist, readOnly: run.depth > 0 },
  });
  return failure ? { code: failure.code, message: failure.reason } : undefined;
}

/** The capabilities the run's mode and allowlist permit, in registration order. */
export function runCatalog(capabilities: CapabilityRegistry, run: RunRecord): CapabilityDescriptor[] {
  return capabilities.list().filter((d) => !refusalOf(d, run));
}
