// File access inside a skill library: no symlink on the way, nothing outside the root, atomic writes.
import { createHash, randomUUID } from 'node:crypto';
import { lstat, mkdir, open, readFile, rename, rm, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { SkillError } from './skill-error';

/** SHA-256 of a text, hex. */
export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

const exists = (error: unknown) => (error as NodeJS.ErrnoException).code !== 'ENOENT';

/**
 * Checks that `path` lies inside `root` and that no existing segment from the root down to it is a
 * symbolic link (or junction).
 * @throws `SKILL_PATH_INVALID` otherwise
 */
export async function checkInside(root: string, path: string): Promise<void> {
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
    throw new SkillError('SKILL_PATH_INVALID', 'the path resolves outside the skill library', { path: rel });
  let at = root;
  for (const part of rel.split(sep)) {
    at = join(at, part);
    try {
      if ((await lstat(at)).isSymbolicLink())
        throw new SkillError(
          'SKILL_PATH_INVALID',
          `${relative(root, at)} is a symbolic link; skill files must be plain files`,
          {
            path: relative(root, at),
          },
        );
    } catch (error) {
      if (error instanceof SkillError) throw error;
      if (exists(error)) throw error;
      return; // the rest does not exist yet
    }
  }
}

/** The file's bytes, or undefined when it does not exist. */
export async function readIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if (exists(error)) throw error;
    return undefined;
  }
}

/** True when something (file or folder) is at `path`. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if (exists(error)) throw error;
    return false;
  }
}

/** Writes a file atomically: a temporary file in the same folder (exclusive, 0600), fsync, rename. */
export async function writeAtomic(path: string, data: string | Buffer): Promise<void> {
  const tmp = join(dirname(path), `.tmp-${randomUUID()}`);
  const handle = await open(tmp, 'wx', 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tmp, path);
  } catch (error) {
    await unlink(tmp).catch(() => undefined);
    throw error;
  }
}

/**
 * Creates the folders of `path` under `root` that do not exist yet.
 * @returns the folders it created, outermost first
 */
export async function makeParents(root: string, path: string): Promise<string[]> {
  const created: string[] = [];
  let at = root;
  const parts = relative(root, dirname(path))
    .split(sep)
    .filter((p) => p !== '');
  for (const part of parts) {
    at = join(at, part);
    if (!(await pathExists(at))) {
      await mkdir(at);
      created.push(at);
    }
  }
  return created;
}

/** Removes a folder and what it holds (no error when it is gone). */
export async function removeTree(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}
