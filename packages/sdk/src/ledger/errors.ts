import { MediaAgentError } from '../core/errors';

/**
 * A call id was reused with other arguments or for another capability; refused before any effect
 *.
 * @public
 */
export class IdempotencyConflictError extends MediaAgentError {
  /** @param scopeId - run/task scope; @param callId - the reused call id; @param existingKey - the key it is bound to */
  constructor(scopeId: string, callId: string, existingKey: string) {
    super(
      'LEDGER_CALL_ID_CONFLICT',
      `call id ${JSON.stringify(callId)} in ${scopeId} was already used with other arguments or another capability; refusing to execute`,
      {
        scopeId,
        callId,
        existingKey,
      },
    );
  }
}

/**
 * Another executor holds a live claim on the same idempotency key; this call did nothing.
 * @public
 */
export class InvocationInProgressError extends MediaAgentError {
  /** @param key - the idempotency key */
  constructor(key: string) {
    super(
      'LEDGER_IN_PROGRESS',
      `another executor is running the call with idempotency key ${key}; not starting a second one`,
      { key },
    );
  }
}

/**
 * An executor whose token is no longer current tried to settle an entry (its claim was rotated by
 * recovery after a crash, or settled by someone else); its write was refused.
 * @public
 */
export class LedgerStaleExecutorError extends MediaAgentError {
  /** @param key - the idempotency key */
  constructor(key: string) {
    super('LEDGER_STALE_EXECUTOR', `the executor token for ${key} is no longer current; the newer state was kept`, {
      key,
    });
  }
}

/**
 * The ledger was asked to claim an execution for a dry-run call; nothing was written. Code `LEDGER_DRY_RUN`.
 * @public
 */
export class DryRunClaimError extends MediaAgentError {
  /** @param capabilityId - the capability; @param key - the idempotency key asked for */
  constructor(capabilityId: string, key: string) {
    super('LEDGER_DRY_RUN', `${capabilityId}: a dry run can never claim an execution (key ${key})`, {
      capabilityId,
      key,
    });
  }
}
