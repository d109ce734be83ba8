// Opening a SQLite file that other processes may be opening at the same instant: the steps SQLite's busy
// handler does not cover (the switch to WAL of a new file, a lock held by a connection this one would
// deadlock with) are retried until the busy timeout.
import type { Database } from 'better-sqlite3';
import { sqliteCode } from './sqlite-errors';

/** Longest pause between two tries of a busy step, in ms (the first pause is 1 ms, doubled each time). */
const MAX_PAUSE_MS = 50;

/** One shared cell to block on: `Atomics.wait` on it is a synchronous pause that never wakes early. */
const PAUSE_CELL = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread for `ms` milliseconds (better-sqlite3 is synchronous: its waits block as well). */
function pause(ms: number): void {
  Atomics.wait(PAUSE_CELL, 0, 0, ms);
}

/**
 * True for an error SQLite returns while another connection holds a lock it needs: `SQLITE_BUSY*`
 * (`SQLITE_BUSY_RECOVERY`, `SQLITE_BUSY_SNAPSHOT`…) and `SQLITE_LOCKED*`.
 * @internal
 */
export function isSqliteBusy(error: unknown): boolean {
  const code = sqliteCode(error);
  return code !== undefined && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * Runs `step`, trying it again while it fails busy ({@link isSqliteBusy}) for up to `timeoutMs` ms, with
 * pauses of 1, 2, 4… up to 50 ms. For steps SQLite's busy handler does not retry by itself: setting
 * `journal_mode = WAL` on a new file (it needs an exclusive lock, and SQLite returns `SQLITE_BUSY` at once
 * when waiting could deadlock), or the first read of a WAL file another process is recovering.
 * @param step - synchronous work on a connection; run again from the start on each try
 * @param timeoutMs - how long to keep trying, in ms (the connection's busy timeout)
 * @param now - the time in ms (a test's clock)
 * @returns what `step` returned
 * @throws the last error of `step` when it is not busy, or still busy after `timeoutMs`
 * @internal
 */
export function retryWhileBusy<T>(step: () => T, timeoutMs: number, now: () => number = Date.now): T {
  const deadline = now() + timeoutMs;
  let wait = 1;
  for (;;) {
    try {
      return step();
    } catch (error) {
      if (!isSqliteBusy(error) || now() >= deadline) throw error;
    }
    pause(Math.min(wait, Math.max(1, deadline - now())));
    wait = Math.min(wait * 2, MAX_PAUSE_MS);
  }
}

/**
 * Sets the busy timeout, then switches the file to WAL mode, retrying while that is busy (see
 * {@link retryWhileBusy}). The busy timeout comes first so every later step waits for other processes'
 * locks instead of failing at once.
 * @param db - a connection just opened
 * @param busyTimeoutMs - the connection's busy timeout, in ms
 * @returns the journal mode the file is in afterwards (`wal`, or `memory` for an in-memory database)
 * @throws the driver's error (`SQLITE_BUSY` after `busyTimeoutMs`, `SQLITE_NOTADB` for a file that is not a
 *   database…)
 * @internal
 */
export function openWal(db: Database, busyTimeoutMs: number): string {
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  return String(retryWhileBusy(() => db.pragma('journal_mode = WAL', { simple: true }), busyTimeoutMs));
}
