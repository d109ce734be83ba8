import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { JsonValue, LedgerEntry, RecordedError } from '../core/records';
import type { StorageAdapter, StorageSession } from '../ports/storage-adapter';
import {
  DryRunClaimError,
  IdempotencyConflictError,
  InvocationInProgressError,
  LedgerStaleExecutorError,
} from './errors';
import type { ClaimRequest, ClaimResult, InvocationLedger, SettleOutcome } from './invocation-ledger';
import { nextClaimAction } from './claim-rules';
import {
  currentExecutor,
  formatExecutor,
  isClaimAbandoned,
  localExecutorProbe,
  type ExecutorProbe,
} from './executor-identity';

/**
 * The default {@link InvocationLedger} on a {@link StorageAdapter}. Every write is a
 * compare-and-set on the executor token.
 * @public
 */
export class DefaultInvocationLedger implements InvocationLedger {
  /** How recovery tells a live executor on this machine from a dead one. */
  readonly #probe: ExecutorProbe = localExecutorProbe();
  readonly #executor = formatExecutor(currentExecutor());

  /** @param storage - the store; @param clock - time; @param ids - token source */
  constructor(
    private readonly storage: StorageAdapter,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** {@inheritDoc InvocationLedger.recorded} */
  async recorded(
    session: StorageSession,
    request: Pick<ClaimRequest, 'key' | 'scopeId' | 'callId'>,
  ): Promise<LedgerEntry | undefined> {
    const byCall = await this.#checkCallId(session, request);
    const entry = byCall ?? (await session.ledger.get(request.key));
    return entry && (entry.state === 'succeeded' || entry.state === 'pending') ? entry : undefined;
  }

  /**
   * {@inheritDoc InvocationLedger.claim}
   *
   * @remarks
   * The common case — a key never claimed — is one statement: the entry is inserted at once, and the insert does
   * nothing when the key, or the call id in its scope, is stored already (the repository's contract, a unique key
   * in the SQL stores). Only then is the stored entry read to decide: a call id bound to another key is refused, an
   * entry that failed (or, when replays are safe, whose outcome is unknown) is claimed again, a recorded one
   * returned, a running one reported in progress.
   */
  async claim(session: StorageSession, request: ClaimRequest): Promise<ClaimResult> {
    if (request.dryRun === true) throw new DryRunClaimError(request.capability.id, request.key);
    const now = this.clock.now();
    const token = this.#token();
    const entry: LedgerEntry = {
      key: request.key,
      capabilityId: request.capability.id,
      capabilityVersion: request.capability.version,
      scopeId: request.scopeId,
      callId: request.callId ?? null,
      argsHash: request.argsHash,
      state: 'running',
      token,
      actor: request.actor,
      invocationId: request.invocationId,
      runId: request.runId ?? null,
      taskId: request.taskId ?? null,
      approvalId: request.approvalId ?? null,
      grantId: request.grantId ?? null,
      bytes: request.bytes,
      output: null,
      error: null,
      inputSummary: request.inputSummary,
      attempts: 1,
      claimedAt: now,
      updatedAt: now,
      settledAt: null,
    };
    if (await session.ledger.insert(entry)) return { kind: 'claimed', entry };
    const byCall = await this.#checkCallId(session, request);
    // The entry found by call id is the entry of this key (else the check threw): no second lookup.
    const existing = byCall ?? (await session.ledger.get(request.key));
    // Nothing stored, yet the insert did nothing: another process holds it (its claim commits, or is rolled back).
    if (existing === undefined) throw new InvocationInProgressError(request.key);
    switch (nextClaimAction(existing.state, request.capability.replay)) {
      case 'insert':
        throw new InvocationInProgressError(request.key);
      case 'reclaim': {
        const prev = existing;
        const patch: Partial<LedgerEntry> = {
          state: 'running',
          token,
          actor: request.actor,
          invocationId: request.invocationId,
          approvalId: request.approvalId ?? null,
          grantId: request.grantId ?? null,
          bytes: request.bytes,
          output: null,
          error: null,
          attempts: prev.attempts + 1,
          claimedAt: now,
          updatedAt: now,
          settledAt: null,
        };
        if (!(await session.ledger.compareAndSet(prev.key, prev.token, patch, [prev.state])))
          throw new InvocationInProgressError(request.key);
        return { kind: 'claimed', entry: Object.assign({}, prev, patch) };
      }
      case 'return-recorded':
        return { kind: 'recorded', entry: existing };
      case 'verify':
        return { kind: 'unknown', entry: existing };
      case 'in-progress':
        throw new InvocationInProgressError(request.key);
    }
  }

  /** {@inheritDoc InvocationLedger.settle} */
  async settle(
    session: StorageSession,
    key: string,
    token: string,
    outcome: SettleOutcome,
    claimed?: LedgerEntry,
  ): Promise<LedgerEntry> {
    const base =
      claimed !== undefined && claimed.key === key && claimed.token === token && claimed.state === 'running'
        ? claimed
        : undefined;
    return this.#write(session, key, token, ['running'], outcome.state, outcome.output, outcome.error, base);
  }

  /** {@inheritDoc InvocationLedger.resolveUnknown} */
  async resolveUnknown(
    session: StorageSession,
    key: string,
    token: string,
    outcome: { state: 'succeeded' | 'failed'; output?: JsonValue; error?: RecordedError },
  ): Promise<LedgerEntry> {
    return this.#write(session, key, token, ['unknown'], outcome.state, outcome.output, outcome.error);
  }

  /**
   * A new executor token: `<host>:<pid>@<boot id>.<start ticks>~<id>`, so recovery can tell a live
   * executor on this machine from a dead one, even when a restarted process got the same pid.
   */
  #token(): string {
    return `${this.#executor}~${this.ids.next('tok')}`;
  }

  /** {@inheritDoc InvocationLedger.get} */
  get(key: string): Promise<LedgerEntry | undefined> {
    return this.storage.ledger.get(key);
  }

  /** {@inheritDoc InvocationLedger.recover} */
  async recover(options: { claimedBefore?: number; runId?: string } = {}): Promise<LedgerEntry[]> {
    const claimedBefore = options.claimedBefore ?? this.clock.now() + 1;
    return this.storage.transaction(async (s) => {
      const recovered: LedgerEntry[] = [];
      for (const entry of await s.ledger.listByState(['running'], { claimedBefore })) {
        if (options.runId !== undefined && entry.runId !== options.runId) continue;
        // A claim held by a live process on this machine, or made by another machine not long ago, is not
        // a crash: leave it to its executor (a run's claims are recovered when its lease is taken over).
        if (options.runId === undefined && !isClaimAbandoned(entry, this.#probe, this.clock.now())) continue;
        const now = this.clock.now();
        const patch: Partial<LedgerEntry> = {
          state: 'unknown',
          token: this.#token(),
          error: {
            code: 'OUTCOME_UNKNOWN',
            message: 'the process ended while the call was running; verify the outcome before retrying',
          },
          updatedAt: now,
          settledAt: now,
        };
        if (await s.ledger.compareAndSet(entry.key, entry.token, patch, ['running']))
          recovered.push({ ...entry, ...patch });
      }
      return recovered;
    });
  }

  /** {@inheritDoc InvocationLedger.cleanup} */
  async cleanup(retentionMs: number): Promise<number> {
    if (!(retentionMs > 0)) return 0;
    return this.storage.ledger.deleteSettledBefore(this.clock.now() - retentionMs, ['succeeded', 'failed', 'pending']);
  }

  /**
   * Refuses a call id already bound to another key.
   * @returns the entry bound to the call id (then it is the entry of `request.key`), or undefined
   */
  async #checkCallId(
    session: StorageSession,
    request: Pick<ClaimRequest, 'key' | 'scopeId' | 'callId'>,
  ): Promise<LedgerEntry | undefined> {
    if (request.callId === undefined) return undefined;
    const byCall = await session.ledger.findByCall(request.scopeId, request.callId);
    if (byCall && byCall.key !== request.key)
      throw new IdempotencyConflictError(request.scopeId, request.callId, byCall.key);
    return byCall;
  }

  async #write(
    session: StorageSession,
    key: string,
    token: string,
    from: LedgerEntry['state'][],
    state: Exclude<LedgerEntry['state'], 'running'>,
    output: JsonValue | undefined,
    error: RecordedError | undefined,
    base?: LedgerEntry,
  ): Promise<LedgerEntry> {
    const now = this.clock.now();
    const patch = { state, output: output ?? null, error: error ?? null, updatedAt: now, settledAt: now };
    if (!(await session.ledger.compareAndSet(key, token, patch, from))) throw new LedgerStaleExecutorError(key);
    // The compare-and-set matched the token: the row is the claimed entry with this patch (no read back needed).
    if (base) return Object.assign({}, base, patch);
    const entry = await session.ledger.get(key);
    return entry!;
  }
}
