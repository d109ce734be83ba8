// The per-user library lock: an in-process queue per library plus an exclusive lock file, so two
// processes sharing the data directory never interleave a batch.
import { hostname } from 'node:os';
import { open, readFile, unlink } from 'node:fs/promises';
import { SkillError } from './skill-error';

/** How long to wait for the lock, and how often to look again. */
export interface LibraryLockOptions {
  /** Longest wait in ms. @defaultValue 5000 */
  readonly waitMs?: number;
  /** Poll interval in ms. @defaultValue 50 */
  readonly pollMs?: number;
}

const queues = new Map<string, Promise<unknown>>();

function ownerAlive(text: string): boolean {
  try {
    const owner = JSON.parse(text) as { pid?: unknown; host?: unknown };
    if (owner.host !== hostname() || typeof owner.pid !== 'number') return true; // cannot tell: respect it
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function acquireFile(lockPath: string, waitMs: number, pollMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(JSON.stringify({ pid: process.pid, host: hostname(), at: new Date().toISOString() }));
      await handle.close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = await readFile(lockPath, 'utf8').catch(() => undefined);
    // A lock file left by a process of this machine that no longer runs is stale.
    if (held !== undefined && held !== '' && !ownerAlive(held)) {
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

/**
 * Runs `fn` holding the library lock at `lockPath`: callers of this process queue, other processes
 * are kept out by the exclusive lock file (a file left by a dead process of this machine is taken over).
 * @throws `SKILL_LIBRARY_BUSY` when another process holds it longer than `waitMs`
 */
export async function withLibraryLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: LibraryLockOptions = {},
): Promise<T> {
  const previous = queues.get(lockPath) ?? Promise.resolve();
  const run = previous
    .catch(() => undefined)
    .then(async () => {
      await acquireFile(lockPath, options.waitMs ?? 5000, options.pollMs ?? 50);
      try {
        return await fn();
      } finally {
        await unlink(lockPath).catch(() => undefined);
      }
    });
  queues.set(lockPath, run);
  try {
    return await run;
  } finally {
    if (queues.get(lockPath) === run) queues.delete(lockPath);
  }
}
