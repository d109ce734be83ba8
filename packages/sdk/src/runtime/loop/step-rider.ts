// The writes of a step carried by the ledger claim of the call it opened (see claim-commit.ts).
import type { ClaimRider } from '../../capabilities/claim-rider';
import type { TakenStep } from './step-writes';

/** A {@link ClaimRider} carrying the writes set aside for a claim, and what became of them. */
export interface StepRider extends ClaimRider {
  /** `waiting` (not written yet, or rolled back), `committed` with the claim, or `lost` (the lease was lost). */
  readonly state: 'waiting' | 'committed' | 'lost';
  /** The writes dropped when the lease was lost (state `lost`): their call settlements are still written alone. */
  readonly dropped: TakenStep | undefined;
  /** Puts writes it took back into the session when their transaction rolled back (state `waiting`). */
  restore(): void;
}
