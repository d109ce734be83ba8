// The per-user library lock: an in-process queue per library plus an exclusive lock file, so two
// processes sharing the data directory never interleave a batch.
import { randomUUID } from 'node:crypto';
import { open, readFile, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { SkillError } from './skill-error';

/** How long to wait for the lock, how often to look again, and when a lock file is abandoned. */
export interface LibraryLockOptions {
  /** Longest wait in ms. @defaultValue 5000 */
  readonly waitMs?: number;
  /** Poll interval in ms. @defaultValue 50 */
  readonly pollMs?: number;
  /**
   * A lock file not refreshed for this long (ms) was left by a process that died or froze, wherever it ran,
   * and is taken over. Its holder refreshes it every third of this while it writes.
   * @defaultValue 30000
   */
  readonly staleMs?: number;
}

/** What a lock file holds. */
interface LockOwner {
  readonly pid?: unknown;
  readonly host?: unknown;
  readonly token?: unknown;
}

const queues = new Map<string, Promise<unknown>>();
/** Tokens of the lock files this process holds now. */
const held = new Set<string>();

/**
 * Whether the lock file's holder may still be writing. Taken over at once: a file that is not a lock
 * record, one of a process of this machine that no longer runs, or one with this process's pid that this
 * process does not hold (an earlier process had the pid: a restarted container's node is often pid 1).
 * Any other holder (another machine, a live pid) is respected until it stops refreshing the file.
 */
function ownerAlive(text: string): boolean {
  let owner: LockOwner;
  try {
    owner = JSON.parse(text) as LockOwner;
  } catch {
    return false;
  }
  if (owner === null || typeof owner !== 'object') return false;
  if (owner.host !== hostname() || typeof owner.pid !== 'number') return true; // cannot tell: respect it
  if (owner.pid === process.pid) return typeof owner.token === 'string' && held.has(owner.token);
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function acquireFile(lockPath: string, waitMs: number, pollMs: number, staleMs: number): Promise<string> {
  const deadline = Date.now() + waitMs;
  const token = randomUUID();
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(
        JSON.stringify({ pid: process.pid, host: hostname(), token, at: new Date().toISOString() }),
      );
      await handle.close();
      held.add(token);
      return token;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const found = await readFile(lockPath, 'utf8').catch(() => undefined);
    const age = await stat(lockPath).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    // Abandoned: its holder is gone (see ownerAlive), or stopped refreshing it (the empty file of a
    // holder that died between creating and writing it included).
    if (found !== undefined && ((found !== '' && !ownerAlive(found)) || age > staleMs)) {
      // Only the file judged abandoned is removed, not one another waiter has put there since.
      if ((await readFile(lockPath, 'utf8').catch(() => undefined)) === found)
        await unlink(lockPath).catch(() => undefined);
      continue;
    }
    if (Date.now() >= deadline)
      throw new SkillError(
        'SKILL_LIBRARY_BUSY',
        `the skill library is busy (another writer holds its lock for more than ${waitMs} ms); nothing was written, try again later`,
        { lockPath },
      );
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** Removes the lock file if it is still this holder's (a holder taken over never removes the new one). */
async function releaseFile(lockPath: string, token: string): Promise<void> {
  held.delete(token);
  const text = await readFile(lockPath, 'utf8').catch(() => undefined);
  if (text === undefined) return;
  try {
    if ((JSON.parse(text) as LockOwner).token !== token) return;
  } catch {
    return;
  }
  await unlink(lockPath).catch(() => undefined);
}

/**
 * Runs `fn` holding the library lock at `lockPath`: callers of this process queue, other processes
 * are kept out by the exclusive lock file, which the holder refreshes while `fn` runs. A lock file left
 * by a process that is gone is taken over at once when that can be told (a dead pid of this machine, or
 * this process's own pid from an earlier process), else once it was not refreshed for `staleMs`.
 * @throws `SKILL_LIBRARY_BUSY` when another process holds it longer than `waitMs`
 */
export async function withLibraryLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: LibraryLockOptions = {},
): Promise<T> {
  const staleMs = options.staleMs ?? 30_000;
  const previous = queues.get(lockPath) ?? Promise.resolve();
  const run = previous
    .catch(() => undefined)
    .then(async () => {
      const token = await acquireFile(lockPath, options.waitMs ?? 5000, options.pollMs ?? 50, staleMs);
      const refresh = setInterval(
        () => {
          const now = new Date();
          void utimes(lockPath, now, now).catch(() => undefined);
        },
        Math.max(10, Math.floor(staleMs / 3)),
      );
      refresh.unref();
      try {
        return await fn();
      } finally {
        clearInterval(refresh);
        await releaseFile(lockPath, token);
      }
    });
  queues.set(lockPath, run);
  try {
    return await run;
  } finally {
    if (queues.get(lockPath) === run) queues.delete(lockPath);
  }
}
