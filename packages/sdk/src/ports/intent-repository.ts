/**
 * Intents in storage: one holder per (media entity, effect class) across every process of a store
 * (docs/intents.md).
 * @packageDocumentation
 */
import type { IntentRecord } from '../core/intent-records';

/**
 * Who holds each intent.
 *
 * @remarks
 * The key is unique in the store: of any number of processes acquiring the same key at the same instant, one
 * ends as the holder and every other one gets that holder's row back. SQL stores do it with
 * `INSERT … ON CONFLICT (key) DO UPDATE … WHERE <expired or same holder>` (PostgreSQL: a concurrent acquire of the
 * same key waits for the other transaction, then sees its row), the memory store and SQLite run their writers one
 * at a time.
 * @public
 */
export interface IntentRepository {
  /**
   * Acquires `record.key` for `record`'s holder, atomically:
   * - no row with the key, or a row that expired (`expiresAt <= now`): `record` is stored;
   * - a row of the same holder (the same non-null `holderRunId`; or both null and the same `holderActor`): it is
   *   refreshed — `expiresAt` and `capabilityId` from `record`, `planId` from `record` when the row has none,
   *   `createdAt` kept;
   * - a row of another holder that has not expired: nothing changes.
   * @param record - the caller as holder (its `createdAt` is normally `now`)
   * @param now - the time expiry is judged at (ms)
   * @returns the row that holds the key afterwards: the caller's, or the other holder's
   */
  acquire(record: IntentRecord, now: number): Promise<IntentRecord>;
  /**
   * Releases the key if run `holderRunId` holds it (a row of another holder, or of a caller outside runs, stays).
   * @returns whether a row was released
   */
  release(key: string, holderRunId: string): Promise<boolean>;
  /** The row of `key`, expired or not, or undefined when none is stored. */
  get(key: string): Promise<IntentRecord | undefined>;
  /**
   * Releases every intent run `runId` holds (called when the run reaches a terminal status).
   * @returns how many were released
   */
  releaseByRun(runId: string): Promise<number>;
}
