// The side effects a run attempted, as the verified goal report judges them: which capability, what kind of
// effect, how each call ended, and whether the effect was read back.
import { needsReadBack, type EffectKind } from '../core/capability-descriptor';
import type { LedgerEntry, LedgerState } from '../core/records';

/**
 * One side effect a run attempted (an `execute` capability call of its model).
 * @public
 */
export interface RunEffect {
  /** The capability called, e.g. `download.submit`. */
  capabilityId: string;
  /** What a successful call changes (the capability's `effect`). */
  effect: EffectKind;
  /**
   * How the call stands now: the ledger state (`succeeded`, `pending` — accepted, not done —, `failed`,
   * `unknown` — it may or may not have happened —, `running`), or `not_run` when it never reached its
   * handler (denied, refused, its input invalid, its target ambiguous).
   */
  outcome: LedgerState | 'not_run';
  /** Its idempotency key, when it was claimed (the ledger entry's key). */
  idempotencyKey: string | null;
  /** The error code, when it failed or never ran (e.g. `AUTH_DENIED`, `MEDIA_NOT_FOUND`). */
  errorCode: string | null;
  /**
   * The read-back of a `subscription`, `setting` or `schedule` effect that succeeded: `confirmed` when the
   * capability's verifier found the effect in place; else why not. Null for other kinds and calls that did not
   * succeed.
   */
  readBack: { confirmed: boolean; reason: string | null } | null;
  /**
   * What the call was about, to tell a retry of the same change from another change of the same capability:
   * the capability's `target` (plan, media entity) when it declares one, else a hash of the input. Absent on
   * effects stored before it existed.
   */
  subject?: string;
  /** When the call was made (ms). */
  at: number;
}

/** The run-state key of a run's effects. @internal */
export const EFFECTS_STATE_KEY = 'effects';

/** At most this many effects are kept per run (the oldest are dropped first). @internal */
export const MAX_RUN_EFFECTS = 200;

/**
 * Brings each effect up to date with its ledger entry (an `unknown` call a verifier settled later, a
 * `pending` job that finished), by idempotency key. Effects without an entry keep their outcome, and so does a call
 * that never ran (`not_run`: denied or refused before its handler): an entry under its key is a later attempt's.
 * @internal
 */
export function withLedgerStates(effects: readonly RunEffect[], entries: readonly LedgerEntry[]): RunEffect[] {
  const byKey = new Map(entries.map((e) => [e.key, e]));
  return effects.map((e) => {
    const entry = e.idempotencyKey && e.outcome !== 'not_run' ? byKey.get(e.idempotencyKey) : undefined;
    if (!entry || entry.state === e.outcome) return e;
    const succeeded = entry.state === 'succeeded';
    return {
      ...e,
      outcome: entry.state,
      errorCode: succeeded ? null : (entry.error?.code ?? e.errorCode),
      // An `unknown` call its read-only verifier settled as succeeded was read back by that verifier.
      readBack: !succeeded
        ? null
        : e.outcome === 'unknown' && needsReadBack(e.effect)
          ? { confirmed: true, reason: 'settled by its read-only verifier' }
          : e.readBack,
    };
  });
}
