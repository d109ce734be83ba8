// The runtime state a fork starts with, rebuilt from the original's events up to the fork point.
import type { CapabilityDescriptor } from '../../core/capability-descriptor';
import { isHumanActor } from '../../core/actor';
import type { JsonValue } from '../../core/records';
import type { RunEventRecord, RunRecord } from '../../core/run-records';
import type { RunProvenance } from '../../core/run-provenance';
import { candidatesFromLookup, type GoalCandidate } from '../goal-target';
import { CATALOG_LOOKUP, GOAL_STATE_KEY } from '../loop/goal-targets';
import { PROVENANCE_STATE_KEY, provenanceState, shownBy } from '../loop/run-provenance-state';
import { FORK_STATE_KEY, MODEL_OVERRIDE_STATE_KEY, type ForkState } from './fork-state';

/** What {@link forkSeed} needs of the original and of the fork. */
export interface ForkSeedInput {
  /** The original run (its runtime state holds the positions of the messages people typed, and its model). */
  original: Pick<RunRecord, 'runtimeState' | 'startedBy' | 'depth'>;
  /** The original's events at or before the fork point, oldest first. */
  events: readonly RunEventRecord[];
  /** Messages the fork copies. */
  messageCount: number;
  /** The descriptor of a registered capability (undefined when it is no longer registered: its outputs are skipped). */
  descriptor: (capabilityId: string) => Pick<CapabilityDescriptor, 'output'> | undefined;
  /** The fork's origin and lineage. */
  fork: ForkState;
  /** The model id the fork's turns use, when one was given or inherited. */
  model: string | undefined;
  /** True when the fork has a new goal: the original goal message stays a person's words. */
  goalChanged: boolean;
}

/** The fork's runtime state and checklist. */
export interface ForkSeed {
  /** The runtime state: provenance, catalog lookups, the fork's lineage, its model. */
  runtimeState: JsonValue;
  /** The last checklist at or before the fork point, or null. */
  checklist: JsonValue | null;
}

/**
 * The runtime state a fork starts with (docs/forks.md#what-is-copied): what the original was shown (the ids and
 * untrusted text of every capability output at or before the fork point, through the same function as a live call)
 * and where people typed in the copied messages; every `catalog.lookup` result (the goal targets' candidates); the
 * fork's lineage and model; and the checklist of the last `checklist_updated` event. Everything else (loop guard,
 * compaction, tool discovery, the model route, usage, report) starts fresh. Pure.
 */
export function forkSeed(input: ForkSeedInput): ForkSeed {
  let shown: RunProvenance = { ids: {}, untrusted: [] };
  const lookups: GoalCandidate[][] = [];
  let checklist: JsonValue | null = null;
  for (const e of input.events) {
    if (e.type === 'checklist_updated') {
      checklist = ((e.data as { checklist?: JsonValue }).checklist ?? null) as JsonValue | null;
      continue;
    }
    if (e.type !== 'tool_call') continue;
    const data = e.data as { capabilityId?: unknown; phase?: unknown; output?: JsonValue };
    if ((data.phase !== 'succeeded' && data.phase !== 'pending') || data.output === undefined) continue;
    const id = String(data.capabilityId);
    const descriptor = input.descriptor(id);
    if (!descriptor) continue;
    try {
      shown = shownBy(descriptor.output, data.output, shown);
    } catch {
      // An output that no longer matches its schema shows nothing (as a live call that fails to read it).
    }
    if (id === CATALOG_LOOKUP && data.phase === 'succeeded') {
      const found = candidatesFromLookup(data.output);
      if (found.length > 0) lookups.push(found);
    }
  }
  const state = (input.original.runtimeState ?? {}) as Record<string, JsonValue>;
  const typed = provenanceState(state[PROVENANCE_STATE_KEY]).typedMessages.filter((n) => n <= input.messageCount);
  // With a new goal, the original goal (message 1) is still what a person typed.
  if (input.goalChanged && input.original.depth === 0 && isHumanActor(input.original.startedBy) && !typed.includes(1))
    typed.unshift(1);
  const runtimeState: Record<string, JsonValue> = {
    [PROVENANCE_STATE_KEY]: {
      ids: shown.ids,
      untrusted: shown.untrusted,
      typedMessages: typed,
    } as unknown as JsonValue,
    [FORK_STATE_KEY]: input.fork as unknown as JsonValue,
  };
  if (lookups.length > 0) runtimeState[GOAL_STATE_KEY] = { lookups, targets: [] } as unknown as JsonValue;
  if (input.model !== undefined) runtimeState[MODEL_OVERRIDE_STATE_KEY] = input.model;
  return { runtimeState, checklist };
}
