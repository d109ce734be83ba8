/**
 * Schedules in storage and the claims of their ticks (docs/schedules.md).
 * @packageDocumentation
 */
import type { ScheduleRecord, ScheduleStatus, ScheduleTickRecord } from '../core/schedule-records';

/** Filter of {@link ScheduleRepository.list}; fields combine with AND. @public */
export interface ScheduleFilter {
  /** Only schedules of this owner. */
  owner?: string;
  /** Only schedules in this status. */
  status?: ScheduleStatus;
  /** At most this many (default 100). */
  limit?: number;
}

/**
 * Schedules and their tick records.
 *
 * @remarks
 * A tick is claimed by inserting its {@link ScheduleTickRecord}: the key (`scheduleId`, `tickAt`) is unique, so of
 * any number of processes on one store exactly one inserts it. The scheduler claims a tick, creates its run and
 * advances the schedule (a compare-and-set on its revision) in one transaction: a process killed at any point
 * leaves either all of it or none of it.
 * @public
 */
export interface ScheduleRepository {
  /**
   * Inserts a new schedule (its id must be new).
   * @returns false, storing nothing, when the owner already has a schedule with the same non-null `clientKey`
   */
  insert(record: ScheduleRecord): Promise<boolean>;
  /** The schedule with this id, or undefined. */
  get(id: string): Promise<ScheduleRecord | undefined>;
  /** The owner's schedule created with `clientKey`, or undefined. */
  findByClientKey(owner: string, clientKey: string): Promise<ScheduleRecord | undefined>;
  /** Replaces the schedule only if its stored revision equals `expectedRevision`; returns whether it did. */
  compareAndSet(id: string, expectedRevision: number, record: ScheduleRecord): Promise<boolean>;
  /**
   * Deletes the schedule and its tick records if its stored revision equals `expectedRevision`; returns whether
   * it did. The runs it started stay.
   */
  delete(id: string, expectedRevision: number): Promise<boolean>;
  /** Schedules, oldest first (creation time, then id). */
  list(filter?: ScheduleFilter): Promise<ScheduleRecord[]>;
  /** Active schedules whose `nextTickAt <= now`, earliest `nextTickAt` first, at most `limit`. */
  due(now: number, limit: number): Promise<ScheduleRecord[]>;
  /**
   * In a transaction, the schedule to fire: the stored record if it is still active with `nextTickAt <= now`, locked
   * until the transaction ends; undefined when it is not, or when another transaction holds its lock (PostgreSQL:
   * `FOR UPDATE SKIP LOCKED` — that transaction is handling it, so this one moves on at once instead of queueing
   * behind it; SQLite and the memory store run write transactions one at a time, so there it is a read).
   */
  lockDue(id: string, now: number): Promise<ScheduleRecord | undefined>;
  /**
   * Stores the tick record unless one with the same (`scheduleId`, `tickAt`) exists: the claim.
   * @returns whether it was stored (never throws on a duplicate key; on PostgreSQL a concurrent claim of the same
   *   key waits for the other transaction and then answers false if it committed)
   */
  claimTick(tick: ScheduleTickRecord): Promise<boolean>;
  /** A schedule's tick records, newest tick first, with `tickAt < before` when given, at most `limit` (default 50). */
  ticks(scheduleId: string, options?: { before?: number; limit?: number }): Promise<ScheduleTickRecord[]>;
  /**
   * What a schedule started with ticks in [`from`, `to`) (ms): the fired ticks, and the sum of their runs'
   * `usage.costUsd` (runs retention removed count 0).
   */
  firedBetween(scheduleId: string, from: number, to: number): Promise<{ runs: number; costUsd: number }>;
}
