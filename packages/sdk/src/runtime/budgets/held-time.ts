// The time a run spent held at a spending cap: it does not count against the run's own duration budget
// (`maxDurationSec`), or a run held overnight would end `budget_exceeded` the moment it resumes.
import type { JsonValue } from '../../core/records';

/** Key of the run's runtime state that records its holds. */
export const SPEND_HOLD_STATE_KEY = 'spendHold';

/** What the runtime state records: the time held before, and since when the run is held now (ms), if it is. */
export interface SpendHold {
  /** Milliseconds held at spending caps in earlier holds. */
  heldMs: number;
  /** When the current hold began (ms), absent while the run is not held. */
  since?: number;
}

function holdOf(value: JsonValue | undefined): SpendHold {
  const v = (value ?? {}) as { heldMs?: unknown; since?: unknown };
  return {
    heldMs: typeof v.heldMs === 'number' && v.heldMs > 0 ? v.heldMs : 0,
    ...(typeof v.since === 'number' ? { since: v.since } : {}),
  };
}

/** The record after a hold begins at `now` (a hold already begun keeps its start). */
export function holdStarted(value: JsonValue | undefined, now: number): SpendHold {
  const hold = holdOf(value);
  return { heldMs: hold.heldMs, since: hold.since ?? now };
}

/** The record after the hold ends at `now`: its time is added to `heldMs`. */
export function holdEnded(value: JsonValue | undefined, now: number): SpendHold {
  const hold = holdOf(value);
  return { heldMs: hold.heldMs + (hold.since === undefined ? 0 : Math.max(0, now - hold.since)) };
}

/** Milliseconds the run was held at spending caps (ended holds). */
export function heldMs(value: JsonValue | undefined): number {
  return holdOf(value).heldMs;
}
