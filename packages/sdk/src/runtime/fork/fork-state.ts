// What a fork keeps in its runtime state: where it comes from, its lineage's effects, and its model.
import type { PriorEffect } from '../../capabilities/invocation';
import type { JsonValue } from '../../core/records';

/** Key of the fork's origin and lineage in its runtime state. */
export const FORK_STATE_KEY = 'fork';

/** Key of the model id a fork's turns use (`ForkRunOptions.model`) in its runtime state. */
export const MODEL_OVERRIDE_STATE_KEY = 'model_override';

/** A fork's runtime state under {@link FORK_STATE_KEY}. */
export interface ForkState {
  /** The original run. */
  fromRunId: string;
  /** The original's event the fork was made at. */
  atSeq: number;
  /** The lineage's effects the duplicate rule checks (docs/forks.md#the-duplicate-rule), as of the fork's making. */
  lineage: PriorEffect[];
  /**
   * The runs of the lineage, nearest first (the original, then its own ancestors): the duplicate rule also reads
   * their ledger entries at each call, so an effect one of them performs after the fork was made counts too.
   * Absent on forks made before it existed (their `fromRunId` stands in).
   */
  ancestors?: string[];
}

/** The fork state of a runtime state value, or undefined when it is not a fork's (anything malformed reads as none). */
export function forkStateOf(value: JsonValue | undefined): ForkState | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.fromRunId !== 'string' || typeof v.atSeq !== 'number' || !Array.isArray(v.lineage)) return undefined;
  const lineage = (v.lineage as unknown[]).filter(
    (e): e is PriorEffect =>
      typeof e === 'object' &&
      e !== null &&
      typeof (e as PriorEffect).key === 'string' &&
      typeof (e as PriorEffect).capabilityId === 'string' &&
      typeof (e as PriorEffect).argsHash === 'string' &&
      typeof (e as PriorEffect).outcome === 'string' &&
      typeof (e as PriorEffect).runId === 'string',
  );
  const ancestors = Array.isArray(v.ancestors)
    ? (v.ancestors as unknown[]).filter((a): a is string => typeof a === 'string')
    : undefined;
  return { fromRunId: v.fromRunId, atSeq: v.atSeq, lineage, ...(ancestors ? { ancestors } : {}) };
}

/** The runs of a fork's lineage, nearest first: its `ancestors`, or its original alone when it has none recorded. */
export function lineageRunsOf(fork: ForkState): string[] {
  return fork.ancestors && fork.ancestors.length > 0 ? fork.ancestors : [fork.fromRunId];
}

/** The model id a run's turns use instead of the host's, when it has one (a non-empty string). */
export function modelOverrideOf(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
