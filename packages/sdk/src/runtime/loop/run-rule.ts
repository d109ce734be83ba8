// The run rule as the model sees it, and what the run is offered.
import { checkRun } from '../../authorization/evaluate';
import { resolveRole } from '../../authorization/roles';
import { runOwner, type RunLookup } from '../../authorization/run-owner';
import { visibleCapabilities } from '../../capabilities/visible-capabilities';
import type { IdentityResolver } from '../../ports/identity';
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

/**
 * The capabilities a run is offered: those of {@link runCatalog} its owner's role may call (an admin-only
 * capability only when the run's owner — its starter, a subagent's top-level starter — is an
 * administrator, whoever steered the run). The owner's role is asked only when an admin-only capability
 * is among them.
 */
export async function offeredCatalog(
  capabilities: CapabilityRegistry,
  run: RunRecord,
  runs: RunLookup,
  identity: IdentityResolver,
): Promise<CapabilityDescriptor[]> {
  const catalog = runCatalog(capabilities, run);
  if (!catalog.some((d) => d.adminOnly === true)) return catalog;
  return visibleCapabilities(catalog, await resolveRole(identity, await runOwner(runs, run)));
}
