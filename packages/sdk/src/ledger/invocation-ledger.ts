import type { CapabilityDescriptor } from '../core/capability-descriptor';
import type { LedgerEntry, LedgerState, JsonValue, RecordedError } from '../core/records';
import type { StorageSession } from '../ports/storage-adapter';

/** A request to claim an idempotency key before a side effect. @public */
export interface ClaimRequest {
  /** Idempotency key (see `deriveIdempotencyKey`). */
  key: string;
  /** SHA-256 of the canonical input. */
  argsHash: string;
  /** The capability invoked (its id and version are part of the key; its replay policy decides recovery). */
  capability: CapabilityDescriptor;
  /** Run id, task id or `request:<invocationId>`. */
  scopeId: string;
  /** Tool-call or request id, when given. */
  callId: string | undefined;
  /** Who invokes, e.g. `agent:<runId>`. */
  actor: string;
  /** Id of this invocation, shared with its audit row. */
  invocationId: string;
  /** The run invoking, when a run's model calls. */
  runId: string | undefined;
  /** The background task invoking, when a task calls. */
  taskId: string | undefined;
  /** Approval that authorized the call. */
  approvalId: string | undefined;
  /** Grant that authorized the call. */
  grantId: string | undefined;
  /** Bytes charged to the grant. */
  bytes: number;
  /** Input summary with `redact` fields and secret-like names removed; the raw input is never stored. */
  inputSummary: string;
  /** True for a dry-run call: the ledger refuses the claim (`LEDGER_DRY_RUN`), whoever asks. */
  dryRun?: boolean;
}

/**
 * Result of a claim:
 * `claimed` — the caller holds the key (token in `entry.token`) and may run the handler;
 * `recorded` — the call already `succeeded` or is `pending`: return the recorded result, run nothing;
 * `unknown` — the outcome of an earlier attempt is unknown and the replay policy forbids re-running:
 * only a read-only verifier may settle it.
 * @public
 */
export type ClaimResult =
  | { kind: 'claimed'; entry: LedgerEntry }
  | { kind: 'recorded'; entry: LedgerEntry }
  | { kind: 'unknown'; entry: LedgerEntry };

/** How a claim ends. @public */
export interface SettleOutcome {
  /** Final (or pending/unknown) state. */
  state: Exclude<LedgerState, 'running'>;
  /** Recorded output (succeeded, pending). */
  output?: JsonValue;
  /** Recorded error (failed, unknown). */
  error?: RecordedError;
}

/**
 * The invocation ledger port: idempotency keys, atomic claims with executor
 * tokens, outcome records, recovery after a crash, retention.
 * @public
 */
export interface InvocationLedger {
  /**
   * Claims `request.key` inside the caller's transaction.
   * @throws `LEDGER_CALL_ID_CONFLICT` when the call id was used with other arguments; `LEDGER_IN_PROGRESS` when another executor holds the key
   */
  claim(session: StorageSession, request: ClaimRequest): Promise<ClaimResult>;
  /**
   * The entry for `key` when it was already `succeeded` or `pending` (a recorded result), else undefined.
   * @throws `LEDGER_CALL_ID_CONFLICT` as {@link InvocationLedger.claim}
   */
  recorded(
    session: StorageSession,
    request: Pick<ClaimRequest, 'key' | 'scopeId' | 'callId'>,
  ): Promise<LedgerEntry | undefined>;
  /**
   * Settles a `running` claim held by `token`.
   * @param session - the storage session of the settling transaction
   * @param key - the idempotency key
   * @param token - the executor token of the claim
   * @param outcome - how the call ended
   * @param claimed - optional: the entry as returned by the claim (`claimed.token === token`); when given, the
   *   settled entry is built from it instead of being read back (the compare-and-set on the token proves nobody
   *   else changed it)
   * @returns the settled entry
   * @throws `LEDGER_STALE_EXECUTOR` when `token` is no longer current
   */
  settle(
    session: StorageSession,
    key: string,
    token: string,
    outcome: SettleOutcome,
    claimed?: LedgerEntry,
  ): Promise<LedgerEntry>;
  /**
   * Settles an `unknown` entry from a verifier's conclusion (the only way out of `unknown`).
   * @throws `LEDGER_STALE_EXECUTOR` when the entry is no longer `unknown` under `token`
   */
  resolveUnknown(
    session: StorageSession,
    key: string,
    token: string,
    outcome: { state: 'succeeded' | 'failed'; output?: JsonValue; error?: RecordedError },
  ): Promise<LedgerEntry>;
  /** The entry for a key, or undefined. */
  get(key: string): Promise<LedgerEntry | undefined>;
  /**
   * Cold-start recovery: every `running` entry (claimed before `claimedBefore`, default now) whose
   * executor is gone becomes `unknown` with a new executor token, so the crashed executor can never
   * settle it. A claim of a live process on this machine (another host process sharing the SQLite
   * file) is left alone. With `runId`, only that run's entries, whoever holds them (the run was taken
   * over after its lease expired).
   * @returns the recovered entries
   */
  recover(options?: { claimedBefore?: number; runId?: string }): Promise<LedgerEntry[]>;
  /**
   * Deletes `succeeded`, `failed` and `pending` entries settled more than `retentionMs` ago; `0` (or less) turns
   * cleanup off; `running` and `unknown` are never deleted by age.
   * @returns how many entries were deleted
   */
  cleanup(retentionMs: number): Promise<number>;
}
