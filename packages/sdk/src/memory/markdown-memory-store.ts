// The default memory store: Markdown files under a data directory, one folder per user.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, realpath, rename, rm, stat, unlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { JsonValue } from '../core/records';
import type { MemoryFileInfo, MemoryScope, MemoryStore } from '../ports/memory-store';
import { MemoryError } from './errors';

const PROPOSAL_ID = /^[0-9a-f]{32}$/;
/** Longest wait for another process's lock on a memory folder, in ms. */
const LOCK_WAIT_MS = 5_000;
/** A lock file older than this (ms) belongs to a process that died. */
const STALE_LOCK_MS = 30_000;
const USER_KEY = /^[0-9a-f]{32,64}$/;

/** @throws `MEMORY_INPUT_INVALID` unless the text to write is a string */
function checkText(text: unknown, argument: string): void {
  if (typeof text !== 'string')
    throw new MemoryError('MEMORY_INPUT_INVALID', `${argument} must be a string; got ${typeof text}`);
}

/** True for a missing file or folder. */
function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === 'ENOENT';
}

/**
 * Stable memory as Markdown files:
 * - `<dataDir>/MEMORY.md`: the global memory (administrators write it);
 * - `<dataDir>/users/<userKey>/MEMORY.md` and `USER.md`: a user's environment facts and preferences;
 * - `<dataDir>/users/<userKey>/.pending/<id>.json`: the user's pending proposals;
 * - any other `*.md` under those folders: topic notes, read only through `search_memory`
 *   (`activity/` folders are never read).
 *
 * @remarks
 * Writes go to a new temporary file in the same folder (mode 0600), are flushed to disk, then
 * renamed over the file. Read-modify-writes of one scope are serialised within the process and, through
 * a `.memory.lock` file in the scope's folder, across processes sharing the data directory (a waiter
 * gives up after 5 s with `MEMORY_BUSY`; a lock left by a dead process is taken over after 30 s).
 * @example
 * ```ts
 * const host = createAgentHost({ memory: { dataDir: '/var/lib/media-agent/memory' } });
 * ```
 * @public
 */
export class MarkdownMemoryStore implements MemoryStore {
  readonly #root: string;
  readonly #locks = new Map<string, Promise<unknown>>();

  /**
   * @param dataDir - the memory root (created on the first write)
   * @throws {@link MemoryError} `MEMORY_INPUT_INVALID` when `dataDir` is not a non-empty string
   */
  constructor(dataDir: string) {
    if (typeof dataDir !== 'string' || dataDir === '')
      throw new MemoryError('MEMORY_INPUT_INVALID', 'dataDir must be the memory folder path');
    this.#root = dataDir;
  }

  /** The folder of a scope. */
  #dir(scope: MemoryScope): string {
    if (typeof scope !== 'object' || scope === null || (scope.kind !== 'global' && scope.kind !== 'user'))
      throw new MemoryError('MEMORY_INPUT_INVALID', "scope must be { kind: 'global' } or { kind: 'user', userKey }");
    if (scope.kind === 'global') return this.#root;
    if (typeof scope.userKey !== 'string' || !USER_KEY.test(scope.userKey))
      throw new MemoryError(
        'MEMORY_INPUT_INVALID',
        'userKey must be 32 to 64 lowercase hex characters (memoryUserKey)',
      );
    return join(this.#root, 'users', scope.userKey);
  }

  /** The path of a primary file of a scope: only `MEMORY.md` and `USER.md` (a file argument never names another path). */
  #file(scope: MemoryScope, file: unknown, name = file): string {
    if (file !== 'MEMORY.md' && file !== 'USER.md')
      throw new MemoryError(
        'MEMORY_INPUT_INVALID',
        `file must be MEMORY.md or USER.md; got ${JSON.stringify(String(file)).slice(0, 60)}`,
      );
    return join(this.#dir(scope), String(name));
  }

  /** The proposals folder of a user. */
  #pending(userKey: string, id?: string): string {
    const dir = join(this.#dir({ kind: 'user', userKey }), '.pending');
    if (id === undefined) return dir;
    if (typeof id !== 'string' || !PROPOSAL_ID.test(id))
      throw new MemoryError('MEMORY_PROPOSAL_NOT_FOUND', 'a proposal id is 32 lowercase hex characters');
    return join(dir, `${id}.json`);
  }

  /** {@inheritDoc MemoryStore.read} */
  async read(scope: MemoryScope, file: 'MEMORY.md' | 'USER.md'): Promise<string | null> {
    const path = this.#file(scope, file);
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      if (isMissing(error)) return null;
      throw new MemoryError('MEMORY_READ_FAILED', `${file} could not be read: ${(error as Error).message}`);
    }
  }

  /** {@inheritDoc MemoryStore.write} */
  async write(scope: MemoryScope, file: 'MEMORY.md' | 'USER.md', text: string): Promise<void> {
    const path = this.#file(scope, file);
    checkText(text, 'text');
    await this.#atomicWrite(path, text);
  }

  /** {@inheritDoc MemoryStore.backup} */
  async backup(scope: MemoryScope, file: 'MEMORY.md' | 'USER.md', raw: string): Promise<string> {
    const name = `${file}.bak.${Date.now()}-${randomBytes(4).toString('hex')}`;
    const path = this.#file(scope, file, name);
    checkText(raw, 'raw');
    await this.#atomicWrite(path, raw);
    return name;
  }

  /** {@inheritDoc MemoryStore.withLock} */
  async withLock<T>(scope: MemoryScope, fn: () => Promise<T>): Promise<T> {
    const key = this.#dir(scope);
    if (typeof fn !== 'function') throw new MemoryError('MEMORY_INPUT_INVALID', 'withLock needs a function to run');
    const before = this.#locks.get(key) ?? Promise.resolve();
    const locked = () => this.#withFileLock(key, fn);
    const run = before.then(locked, locked);
    const tail = run.catch(() => undefined);
    this.#locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.#locks.get(key) === tail) this.#locks.delete(key);
    }
  }

  /** {@inheritDoc MemoryStore.putProposal} */
  async putProposal(userKey: string, id: string, proposal: JsonValue): Promise<void> {
    const path = this.#pending(userKey, id);
    const text: unknown = JSON.stringify(proposal);
    if (typeof text !== 'string') throw new MemoryError('MEMORY_INPUT_INVALID', 'a proposal must be a JSON value');
    await this.#atomicWrite(path, text);
  }

  /** {@inheritDoc MemoryStore.getProposal} */
  async getProposal(userKey: string, id: string): Promise<JsonValue | undefined> {
    try {
      return JSON.parse(await readFile(this.#pending(userKey, id), 'utf8')) as JsonValue;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /** {@inheritDoc MemoryStore.listProposals} */
  async listProposals(userKey: string): Promise<JsonValue[]> {
    let names: string[];
    try {
      names = await readdir(this.#pending(userKey));
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    const out: JsonValue[] = [];
    for (const name of names) {
      const id = name.endsWith('.json') ? name.slice(0, -5) : '';
      if (!PROPOSAL_ID.test(id)) continue;
      const p = await this.getProposal(userKey, id);
      if (p !== undefined) out.push(p);
    }
    return out;
  }

  /** {@inheritDoc MemoryStore.deleteProposal} */
  async deleteProposal(userKey: string, id: string): Promise<boolean> {
    try {
      await unlink(this.#pending(userKey, id));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  /** {@inheritDoc MemoryStore.listMarkdown} */
  async listMarkdown(scope: MemoryScope): Promise<MemoryFileInfo[]> {
    const dir = this.#dir(scope);
    let rootReal: string;
    try {
      rootReal = await realpath(dir);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    const out: MemoryFileInfo[] = [];
    const walk = async (folder: string): Promise<void> => {
      let items: import('node:fs').Dirent[];
      try {
        items = await readdir(folder, { withFileTypes: true });
      } catch {
        return;
      }
      for (const item of items) {
        const full = join(folder, item.name);
        const rel = relative(dir, full);
        if (item.name === 'activity' || item.name === '.pending') continue;
        if (scope.kind === 'global' && rel === 'users') continue;
        let real: string;
        try {
          real = await realpath(full);
        } catch {
          continue;
        }
        // Symlinks that leave the scope are never followed.
        if (real !== rootReal && !real.startsWith(rootReal + sep)) continue;
        const info = await stat(real);
        if (info.isDirectory()) await walk(full);
        else if (info.isFile() && item.name.endsWith('.md'))
          out.push({
            path: relative(this.#root, full).split(sep).join('/'),
            primary: rel === 'MEMORY.md' || rel === 'USER.md',
            size: info.size,
          });
      }
    };
    await walk(dir);
    return out.sort((a, b) => a.path.localeCompare(b.path));
  }

  /** {@inheritDoc MemoryStore.readMarkdown} */
  async readMarkdown(path: string): Promise<string> {
    if (typeof path !== 'string') throw new MemoryError('MEMORY_INPUT_INVALID', 'path must be a string');
    const full = join(this.#root, ...path.split('/'));
    const rel = relative(this.#root, full);
    if (rel.startsWith('..') || rel === '') throw new MemoryError('MEMORY_INPUT_INVALID', 'path is outside the memory');
    return readFile(full, 'utf8');
  }

  /**
   * Holds `<folder>/.memory.lock` (created exclusively) while `fn` runs, so another process sharing the
   * folder waits; a lock older than {@link STALE_LOCK_MS} was left by a process that died and is taken over.
   * @throws {@link MemoryError} `MEMORY_BUSY` after {@link LOCK_WAIT_MS} of waiting
   */
  async #withFileLock<T>(folder: string, fn: () => Promise<T>): Promise<T> {
    await mkdir(folder, { recursive: true });
    const lock = join(folder, '.memory.lock');
    const until = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        const handle = await open(lock, 'wx', 0o600);
        await handle.writeFile(`${process.pid} ${Date.now()}`);
        await handle.close();
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const age = await stat(lock).then(
          (s) => Date.now() - s.mtimeMs,
          () => 0,
        );
        if (age > STALE_LOCK_MS) await rm(lock, { force: true });
        else if (Date.now() > until)
          throw new MemoryError('MEMORY_BUSY', 'another process is writing this memory; try again', { lock });
        else await new Promise((r) => setTimeout(r, 20));
      }
    }
    try {
      return await fn();
    } finally {
      await rm(lock, { force: true });
    }
  }

  /** Temporary file (exclusive, 0600) → flush → rename. */
  async #atomicWrite(path: string, text: string): Promise<void> {
    const folder = join(path, '..');
    await mkdir(folder, { recursive: true });
    const tmp = `${path}.tmp-${randomBytes(6).toString('hex')}`;
    const handle = await open(tmp, 'wx', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(tmp, path);
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
  }
}
