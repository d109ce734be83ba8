// The loop guard's stored state: its shape, the empty state and the check of a stored one.
import { MediaAgentError } from '../../core/errors';
import { LOOP_GUARD_CODES, type LoopGuardCode } from './codes';
import type { CycleEntry } from './cycle';

/**
 * Serializable state of a {@link LoopGuard}; store it on the run and restore it with
 * {@link LoopGuard.fromJSON} after a crash so counting continues where it stopped.
 * @public
 */
export interface LoopGuardState {
  /** State format version. */
  version: 1;
  /** Failures per call signature (the `cycleWindow` signatures that failed last). */
  sameCallFailures: Record<string, number>;
  /** Signatures whose failure count a successful write has since made stale ("a new experiment"). */
  progressSinceFailure: string[];
  /** Failures per tool. */
  toolFailures: Record<string, number>;
  /** Last result fingerprint and its repeat count per read-only call signature (the `cycleWindow` seen last). */
  sameResults: Record<string, { fingerprint: string; count: number }>;
  /** Current run of identical calls with identical results. */
  streak: { key: string; count: number } | null;
  /** Most recent calls (signature + result), oldest first, at most `cycleWindow`. */
  history: CycleEntry[];
  /** Tool searches dispatched this run. */
  searches: number;
  /** Subagent launches dispatched this run. */
  subagents: number;
  /** Continuation prompts given this run. */
  continuations: number;
  /** Set once the guard stopped the run. */
  stopped: { code: LoopGuardCode; reason: string; count: number } | null;
  /** Calls refused in a row since the last call that was allowed to run (absent in older states: 0). */
  blockedInARow?: number;
}

/**
 * Thrown by {@link LoopGuard.fromJSON} when the stored state is not a version-1 loop guard state.
 * Code `LOOP_GUARD_STATE_INVALID`.
 * @public
 */
export class LoopGuardStateError extends MediaAgentError {
  /** @param reason - what is wrong with the stored state */
  constructor(reason: string) {
    super('LOOP_GUARD_STATE_INVALID', `invalid loop guard state: ${reason}`, { reason });
  }
}

/**
 * The state of a guard that has seen nothing yet.
 * @returns a fresh version-1 state
 * @internal
 */
export function emptyLoopGuardState(): LoopGuardState {
  return {
    version: 1,
    sameCallFailures: {},
    progressSinceFailure: [],
    toolFailures: {},
    sameResults: {},
    streak: null,
    history: [],
    searches: 0,
    subagents: 0,
    continuations: 0,
    stopped: null,
    blockedInARow: 0,
  };
}

/**
 * Checks a stored state (parsed JSON) and copies it: a state written before `blockedInARow` existed counts 0 refusals.
 * @param value - the stored state
 * @returns a copy that shares nothing with `value`
 * @throws {@link LoopGuardStateError} when `value` is not a version-1 state
 * @internal
 */
export function parseLoopGuardState(value: unknown): LoopGuardState {
  if (!isRecord(value)) throw new LoopGuardStateError('not an object');
  if (value.version !== 1) throw new LoopGuardStateError(`unsupported version ${String(value.version)}`);
  const counts = (name: string): Record<string, number> => {
    const v = value[name];
    if (!isRecord(v) || !Object.values(v).every(isCount))
      throw new LoopGuardStateError(`${name} must map keys to counts`);
    return { ...(v as Record<string, number>) };
  };
  const count = (name: string): number => {
    const v = value[name];
    if (!isCount(v)) throw new LoopGuardStateError(`${name} must be a non-negative integer`);
    return v;
  };
  const progress = value.progressSinceFailure;
  if (!Array.isArray(progress) || !progress.every((k) => typeof k === 'string'))
    throw new LoopGuardStateError('progressSinceFailure must be a string array');
  const sameResults = value.sameResults;
  if (
    !isRecord(sameResults) ||
    !Object.values(sameResults).every((r) => isRecord(r) && typeof r.fingerprint === 'string' && isCount(r.count))
  )
    throw new LoopGuardStateError('sameResults must map keys to { fingerprint, count }');
  const streak = value.streak;
  if (streak !== null && !(isRecord(streak) && typeof streak.key === 'string' && isCount(streak.count)))
    throw new LoopGuardStateError('streak must be null or { key, count }');
  const history = value.history;
  if (
    !Array.isArray(history) ||
    !history.every((e) => isRecord(e) && typeof e.key === 'string' && typeof e.poll === 'boolean')
  )
    throw new LoopGuardStateError('history must be an array of { key, poll }');
  const stopped = value.stopped;
  const codes: readonly string[] = Object.values(LOOP_GUARD_CODES);
  if (
    stopped !== null &&
    !(
      isRecord(stopped) &&
      typeof stopped.code === 'string' &&
      codes.includes(stopped.code) &&
      typeof stopped.reason === 'string' &&
      isCount(stopped.count)
    )
  )
    throw new LoopGuardStateError('stopped must be null or { code, reason, count }');
  return {
    version: 1,
    sameCallFailures: counts('sameCallFailures'),
    progressSinceFailure: [...(progress as string[])],
    toolFailures: counts('toolFailures'),
    sameResults: structuredClone(sameResults as LoopGuardState['sameResults']),
    streak: streak === null ? null : { ...(streak as { key: string; count: number }) },
    history: (history as CycleEntry[]).map((e) => ({ key: e.key, poll: e.poll })),
    searches: count('searches'),
    subagents: count('subagents'),
    continuations: count('continuations'),
    stopped: stopped === null ? null : { ...(stopped as NonNullable<LoopGuardState['stopped']>) },
    blockedInARow: value.blockedInARow === undefined ? 0 : count('blockedInARow'),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
