// The registry a recorded trajectory replays against: the current runtime's definitions where it has them, else a
// stand-in built from the descriptor the file recorded (its schemas, kind, replay rule, policy, effect), so a file
// replays without the host that made it.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import { defineCapability } from '../../capabilities/define-capability';
import type { Capability } from '../../capabilities/types';
import { MediaAgentError } from '../../core/errors';
import type { TrajectoryRecordedCapability } from './trajectory-recording';

/** What a replay reads of a registry: whether it has a capability, and its definition. @public */
export type DefinitionSource = Pick<CapabilityRegistry, 'has' | 'definition'>;

const KINDS = new Set(['read', 'preview', 'propose', 'approve', 'execute']);
const REPLAYS = new Set(['safe', 'reconcile', 'never']);

/**
 * A stand-in definition from a recorded descriptor: the recorded input and output JSON Schemas, kind, replay rule,
 * policy kind, effect and admin flag; no `target`, `verify`, `impact` or `inverse` (they are code, not recorded).
 * Its handler is never meant to run: the replay replaces it with the recorded results.
 * @param d - the recorded descriptor
 * @returns the definition, or undefined when the descriptor is not complete enough (unknown kind, no input schema)
 * @public
 */
export function standInDefinition(d: TrajectoryRecordedCapability): Capability | undefined {
  if (!KINDS.has(d.kind) || !d.input || typeof d.input !== 'object' || !d.output || typeof d.output !== 'object')
    return undefined;
  try {
    return defineCapability({
      id: d.id,
      version: typeof d.version === 'number' && d.version >= 1 ? d.version : 1,
      title: typeof d.title === 'string' && d.title.trim() ? d.title : d.id,
      description: typeof d.title === 'string' ? d.title : d.id,
      kind: d.kind as Capability['kind'],
      replay: (REPLAYS.has(d.replay ?? '') ? d.replay : 'safe') as Capability['replay'],
      input: d.input as never,
      output: d.output as never,
      ...(typeof d.policy === 'string' ? { policy: d.policy } : {}),
      ...(typeof d.effect === 'string' && d.kind === 'execute' ? { effect: d.effect as never } : {}),
      ...(d.adminOnly === true ? { adminOnly: true } : {}),
      handler: async () => {
        throw new MediaAgentError('CAPABILITY_NOT_FOUND', `${d.id} is a recorded stand-in: it has no handler`);
      },
    }) as unknown as Capability;
  } catch {
    return undefined;
  }
}

/**
 * The current registry, completed by stand-ins for the recorded capabilities it does not have.
 * @param current - the current runtime's registry
 * @param recorded - the descriptors the trajectory recorded
 * @returns a definition source for the replay (a capability neither has stays missing)
 * @public
 */
export function recordedDefinitions(
  current: DefinitionSource,
  recorded: readonly TrajectoryRecordedCapability[],
): DefinitionSource {
  const standIns = new Map<string, Capability>();
  for (const d of recorded) {
    if (current.has(d.id)) continue;
    const def = standInDefinition(d);
    if (def) standIns.set(d.id, def);
  }
  return {
    has: (id) => current.has(id) || standIns.has(id),
    definition: (id) => (current.has(id) ? current.definition(id) : (standIns.get(id) ?? current.definition(id))),
  };
}
