import type { ReplayPolicy } from '../core/capability-descriptor';
import type { LedgerState } from '../core/records';

/**
 * What a claim does with an existing ledger state:
 * - none → `insert` a `running` entry;
 * - `succeeded` or `pending` → `return-recorded` (never submit the same execution identity twice;
 *   pending is not done, but it was accepted);
 * - `failed` → `reclaim` (the call verifiably did not take effect);
 * - `running` → `in-progress` (another executor holds it; cold-start recovery turns a dead one into `unknown`);
 * - `unknown` → `reclaim` when the replay policy is `reconcile` (the handler is idempotent under the
 *   key, re-running it learns the outcome) or `safe`; `verify` when it is `never`.
 * @public
 */
export type ClaimAction = 'insert' | 'reclaim' | 'return-recorded' | 'in-progress' | 'verify';

/**
 * The claim rule as a pure function; see {@link ClaimAction}.
 * @param state - state of the existing entry, or undefined when there is none
 * @param replay - the capability's replay policy
 * @public
 */
export function nextClaimAction(state: LedgerState | undefined, replay: ReplayPolicy): ClaimAction {
  switch (state) {
    case undefined:
      return 'insert';
    case 'succeeded':
    case 'pending':
      return 'return-recorded';
    case 'failed':
      return 'reclaim';
    case 'running':
      return 'in-progress';
    case 'unknown':
      return replay === 'never' ? 'verify' : 'reclaim';
  }
}
