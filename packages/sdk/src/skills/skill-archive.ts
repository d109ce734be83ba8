// Deleting a personal skill: a foreground delete removes it; a background delete archives the whole
// package (`.archive/<name>`) for `/skills restore`.
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { SkillWriteContext } from '../ports/skill-store';
import type { CatalogueEntry } from './skill-catalogue';
import { SkillError } from './skill-error';
import { pathExists, readIfExists, removeTree, sha256, writeAtomic } from './skill-files';
import { backgroundMayWrite, type OwnershipMap, type SkillOwnership } from './skill-ownership';
import { checkSkillName, SKILL_FILE } from './skill-paths';
import { parseSkillDocument } from './skill-document';
import { cancelledError } from './skill-batch';

/** The archive folder of a library. */
export const ARCHIVE_DIR = '.archive';
/** The record written into an archived package. */
export const ARCHIVE_OWNER_FILE = '.archive-owner.json';

/** What `.archive-owner.json` holds: the ownership record, the merge target and where the skill lived. */
export interface ArchiveOwner extends Partial<SkillOwnership> {
  readonly absorbed_into: string;
  /** The folder relative to the library (`<category>/<name>` or `<name>`). */
  readonly rel_dir: string;
  readonly archived_at: string;
}

const stamp = (d: Date) => d.toISOString().replace(/[-:T]/g, '').slice(0, 14);

/** Everything a delete needs. */
export interface DeleteInput {
  readonly root: string;
  readonly skills: ReadonlyMap<string, CatalogueEntry>;
  readonly ownership: OwnershipMap;
  readonly ownershipPath: string;
  readonly name: string;
  readonly absorbedInto: string | undefined;
  readonly context: SkillWriteContext;
  readonly now: Date;
}

const writeOwnership = (path: string, map: OwnershipMap) => writeAtomic(path, `${JSON.stringify(map, null, 2)}\n`);

/**
 * Deletes a personal skill.
 * @returns where a background delete archived it, and whether a foreground delete left cleanup pending
 * @throws `SKILL_NOT_FOUND`, `SKILL_READ_ONLY` (public; background on a skill it may not change),
 *   `SKILL_DELETE_REFUSED` (pinned; no or a missing merge target in the background), `SKILL_READ_REQUIRED`
 */
export async function deleteSkill(input: DeleteInput): Promise<{ archivedTo?: string; cleanupPending?: boolean }> {
  const { root, skills, ownership, name, context, now } = input;
  const entry = skills.get(name);
  if (!entry) throw new SkillError('SKILL_NOT_FOUND', `no skill named ${name}`, { name });
  if (entry.source === 'public')
    throw new SkillError('SKILL_READ_ONLY', `${name} is a public skill and read-only`, { name });
  const record = ownership[name];
  if (record?.pinned)
    throw new SkillError('SKILL_DELETE_REFUSED', `${name} is pinned; unpin it first (/skills unpin ${name})`, { name });
  const absorbed = input.absorbedInto === undefined ? undefined : checkSkillName(input.absorbedInto, 'absorbed_into');
  if (absorbed !== undefined && (absorbed === name || !skills.has(absorbed)))
    throw new SkillError(
      'SKILL_DELETE_REFUSED',
      `absorbed_into must name another existing skill (${absorbed} is not one)`,
      {
        name,
        absorbedInto: absorbed,
      },
    );
  const rest = { ...ownership };
  delete rest[name];
  if (context.mode === 'foreground') {
    const hidden = join(root, `.deleted-${randomUUID()}`);
    await rename(entry.dir, hidden);
    try {
      await writeOwnership(input.ownershipPath, rest);
    } catch (error) {
      await rename(hidden, entry.dir);
      throw error;
    }
    try {
      await removeTree(hidden);
      return {};
    } catch {
      return { cleanupPending: true };
    }
  }
  // Background: only what it may maintain, only merged into another skill, only after reading it.
  if (!backgroundMayWrite(record))
    throw new SkillError(
      'SKILL_READ_ONLY',
      `${name} is owned by the user or pinned; a background review may not delete it`,
      {
        name,
      },
    );
  if (absorbed === undefined)
    throw new SkillError(
      'SKILL_DELETE_REFUSED',
      'a background review deletes a skill only when merging it: set absorbed_into to the existing skill that now holds its content',
      { name },
    );
  const text = await readIfExists(join(entry.dir, SKILL_FILE));
  if (text === undefined || context.reads?.digest(name, SKILL_FILE) !== sha256(text))
    throw new SkillError(
      'SKILL_READ_REQUIRED',
      `read ${name}/SKILL.md with skill_view (this review) before deleting it`,
      {
        name,
      },
    );
  if (context.cancelled?.()) throw cancelledError();
  const archive = join(root, ARCHIVE_DIR);
  await mkdir(archive, { recursive: true });
  let target = name;
  if (await pathExists(join(archive, target))) target = `${name}-${stamp(now)}`;
  const dest = join(archive, target);
  await rename(entry.dir, dest);
  try {
    const owner: ArchiveOwner = {
      ...(record ?? {}),
      absorbed_into: absorbed,
      rel_dir: entry.relDir,
      archived_at: now.toISOString(),
    };
    await writeAtomic(join(dest, ARCHIVE_OWNER_FILE), `${JSON.stringify(owner, null, 2)}\n`);
    if (context.cancelled?.()) throw cancelledError();
    await writeOwnership(input.ownershipPath, rest);
  } catch (error) {
    await unlink(join(dest, ARCHIVE_OWNER_FILE)).catch(() => undefined);
    await rename(dest, entry.dir);
    throw error;
  }
  return { archivedTo: `${ARCHIVE_DIR}/${target}` };
}

/** Everything a restore needs. */
export interface RestoreInput {
  readonly root: string;
  readonly skills: ReadonlyMap<string, CatalogueEntry>;
  readonly ownership: OwnershipMap;
  readonly ownershipPath: string;
  readonly name: string;
}

/**
 * `/skills restore <name>`: the exact archive `.archive/<name>`, else the newest timestamped one, moved
 * back with its ownership record.
 * @returns the reply for the user
 * @throws `SKILL_NOT_FOUND` (no archive), `SKILL_EXISTS` (the name is taken in any root, or the folder
 *   exists), `SKILL_DOCUMENT_INVALID` (the archived SKILL.md no longer validates)
 */
export async function restoreSkill(input: RestoreInput): Promise<string> {
  const { root, skills, name } = input;
  const archive = join(root, ARCHIVE_DIR);
  const names = await readdir(archive).catch(() => [] as string[]);
  const stamped = names.filter((n) => new RegExp(`^${name}-\\d{14}$`).test(n)).sort();
  const chosen = names.includes(name) ? name : stamped.at(-1);
  if (chosen === undefined) throw new SkillError('SKILL_NOT_FOUND', `no archived skill named ${name}`, { name });
  if (skills.has(name))
    throw new SkillError(
      'SKILL_EXISTS',
      `a ${skills.get(name)!.source} skill named ${name} exists; the archive was left as it is`,
      { name },
    );
  const from = join(archive, chosen);
  const ownerText = await readIfExists(join(from, ARCHIVE_OWNER_FILE));
  const owner = ownerText ? (JSON.parse(ownerText.toString('utf8')) as ArchiveOwner) : undefined;
  const relDir =
    owner?.rel_dir && /^[a-z0-9][a-z0-9_-]{0,63}(\/[a-z0-9][a-z0-9_-]{0,63})?$/.test(owner.rel_dir)
      ? owner.rel_dir
      : name;
  const dest = join(root, relDir);
  if (await pathExists(dest))
    throw new SkillError('SKILL_EXISTS', `the folder ${relDir} exists; restore refused`, { name });
  const doc = await readIfExists(join(from, SKILL_FILE));
  if (doc === undefined)
    throw new SkillError('SKILL_DOCUMENT_INVALID', `the archived ${name} has no SKILL.md`, { name });
  parseSkillDocument(doc.toString('utf8'), name, false);
  if (relDir.includes('/')) await mkdir(join(root, relDir.split('/')[0]!), { recursive: true });
  await rename(from, dest);
  try {
    await unlink(join(dest, ARCHIVE_OWNER_FILE)).catch(() => undefined);
    const { absorbed_into: _a, rel_dir: _r, archived_at: _t, ...record } = owner ?? ({} as ArchiveOwner);
    const restored: SkillOwnership = {
      created_by: record.created_by ?? 'user',
      pinned: record.pinned ?? false,
      ...(record.source !== undefined ? { source: record.source } : {}),
      ...(record.last_source !== undefined ? { last_source: record.last_source } : {}),
      ...(record.updated_at !== undefined ? { updated_at: record.updated_at } : {}),
    };
    await writeOwnership(input.ownershipPath, { ...input.ownership, [name]: restored });
  } catch (error) {
    if (ownerText) await writeAtomic(join(dest, ARCHIVE_OWNER_FILE), ownerText).catch(() => undefined);
    await rename(dest, from);
    throw error;
  }
  return `Restored skill ${name}${chosen === name ? '' : ` (from ${chosen})`}.`;
}
