// The rate rule of run starts: a sliding window of start times (pure functions, no state of their own).

/**
 * What {@link slidingWindow} decides for one more start.
 * @public
 */
export interface WindowVerdict {
  /** Whether one more start fits in the window. */
  allowed: boolean;
  /** When refused: ms until the oldest start in the window leaves it (at least 1); 0 when allowed. */
  retryAfterMs: number;
}

/**
 * Drops the start times that left the window: keeps those in `(now - windowMs, now]`, oldest first.
 * @param starts - start times in ms, oldest first
 * @param now - the current time in ms
 * @param windowMs - the window length in ms
 * @returns a new array (the input is not changed)
 * @public
 */
export function pruneWindow(starts: readonly number[], now: number, windowMs: number): number[] {
  let first = 0;
  while (first < starts.length && starts[first]! <= now - windowMs) first++;
  return starts.slice(first);
}

/**
 * The sliding-window rule: at most `max` starts in any window of `windowMs` ending now. A refused
 * start is not recorded (the caller records only what it let through), so refusals never use up the
 * allowance.
 * @param starts - start times in ms within the window, oldest first (see {@link pruneWindow})
 * @param now - the current time in ms
 * @param windowMs - the window length in ms (e.g. 60 000 for "per minute")
 * @param max - the most starts allowed in one window (a positive integer)
 * @returns allowed, or refused with the wait until the oldest start leaves the window
 * @public
 */
export function slidingWindow(starts: readonly number[], now: number, windowMs: number, max: number): WindowVerdict {
  return prunedWindowVerdict(pruneWindow(starts, now, windowMs), now, windowMs, max);
}

/**
 * {@link slidingWindow} for start times already pruned ({@link pruneWindow}, {@link pruneWindowInPlace}): no copy.
 * @internal
 */
export function prunedWindowVerdict(
  inWindow: readonly number[],
  now: number,
  windowMs: number,
  max: number,
): WindowVerdict {
  if (inWindow.length < max) return { allowed: true, retryAfterMs: 0 };
  // The start that must leave before one more fits: the (length - max + 1)-th oldest.
  const leaving = inWindow[inWindow.length - max]!;
  return { allowed: false, retryAfterMs: Math.max(1, leaving + windowMs - now) };
}

/**
 * {@link pruneWindow} in place: removes from `starts` the start times that left the window (a prefix), so a
 * limiter that keeps its window does not copy it on every start.
 * @param starts - start times in ms, oldest first (changed)
 * @param now - the current time in ms
 * @param windowMs - the window length in ms
 * @returns `starts`
 * @internal
 */
export function pruneWindowInPlace(starts: number[], now: number, windowMs: number): number[] {
  let first = 0;
  while (first < starts.length && starts[first]! <= now - windowMs) first++;
  if (first > 0) starts.splice(0, first);
  return starts;
}
