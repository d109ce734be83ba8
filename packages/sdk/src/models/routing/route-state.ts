// The host-wide state of a fallback chain: until when each entry that failed is skipped (its cool-down), and
// the rules that pick the entry of a turn. Pure: every function takes the time as an argument.

/**
 * How long an entry that failed is skipped by new turns, and a run that moved away from the primary keeps its
 * entry, in milliseconds (`model.fallbackCooldownMs`).
 * @public
 */
export const DEFAULT_FALLBACK_COOLDOWN_MS = 60_000;

/**
 * Per entry of the chain (index 0 is the primary), the time (ms) until which it is cooling down after a failure;
 * 0 (or a past time) when it may be tried.
 * @internal
 */
export type CoolingUntil = readonly number[];

/** A chain of `entries` entries, none cooling down. @internal */
export function freshRoute(entries: number): CoolingUntil {
  return Array.from({ length: entries }, () => 0);
}

/** Whether entry `index` may be tried at `now`. @internal */
export function available(cooling: CoolingUntil, index: number, now: number): boolean {
  return (cooling[index] ?? 0) <= now;
}

/**
 * The entry a turn starts on: the run's own entry (`sticky`, 0 for a run that never moved) or, when it is cooling
 * down, the first later entry that is not; the run's entry itself when every one from it on is cooling down (a
 * turn is never refused without a call).
 * @param cooling - the host's cool-downs
 * @param sticky - the entry the run answered on last (0 at its start)
 * @param now - the host clock's time (ms)
 * @internal
 */
export function firstEntry(cooling: CoolingUntil, sticky: number, now: number): number {
  const from = Math.min(Math.max(0, sticky), cooling.length - 1);
  for (let i = from; i < cooling.length; i++) if (available(cooling, i, now)) return i;
  return from;
}

/**
 * The entry a turn moves to after entry `failed` failed: the first later entry not cooling down, else the next
 * one (cooling or not: better a call than none), else undefined (the chain is used up, the turn fails).
 * @internal
 */
export function nextEntry(cooling: CoolingUntil, failed: number, now: number): number | undefined {
  for (let i = failed + 1; i < cooling.length; i++) if (available(cooling, i, now)) return i;
  return failed + 1 < cooling.length ? failed + 1 : undefined;
}

/** The cool-downs after entry `index` failed at `now`: skipped until `now + cooldownMs`. @internal */
export function afterFailure(cooling: CoolingUntil, index: number, now: number, cooldownMs: number): CoolingUntil {
  return cooling.map((until, i) => (i === index ? Math.max(until, now + cooldownMs) : until));
}

/** The cool-downs after entry `index` answered: it may be tried again at once. @internal */
export function afterSuccess(cooling: CoolingUntil, index: number): CoolingUntil {
  return cooling[index] === 0 ? cooling : cooling.map((until, i) => (i === index ? 0 : until));
}

/**
 * What a run remembers of its route: the entry it moved to and when (ms). Stored in the run's runtime state.
 * @internal
 */
export interface RunRoute {
  entry: number;
  at: number;
}

/**
 * The entry a run's turn starts from: the entry it moved to, while its cool-down lasts (the choice is sticky within
 * the run); the primary (0) once `cooldownMs` has passed since the move, or when it never moved.
 * @internal
 */
export function stickyEntry(route: RunRoute | undefined, now: number, cooldownMs: number): number {
  if (!route || route.entry <= 0) return 0;
  return now < route.at + cooldownMs ? route.entry : 0;
}
