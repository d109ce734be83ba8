// The default skill store: personal skills as folders under a host data directory, one library per user.
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { parse } from 'yaml';
import { personKey } from '../core/person-id';
import type {
  SkillCommand,
  SkillFileView,
  SkillManageResult,
  SkillOperation,
  SkillReadLog,
  SkillStore,
  SkillSummary,
  SkillWriteContext,
} from '../ports/skill-store';
import { deleteSkill, restoreSkill } from './skill-archive';
import { commitBatch, MAX_SKILL_OPERATIONS, planBatch } from './skill-batch';
import { catalogue, type CatalogueEntry } from './skill-catalogue';
import { SkillError } from './skill-error';
import { checkInside, readIfExists, sha256, writeAtomic } from './skill-files';
import { withLibraryLock } from './library-lock';
import { parseOwnership, type OwnershipMap } from './skill-ownership';
import { checkSkillFilePath, checkSkillName, SKILL_FILE, SUPPORT_FOLDERS } from './skill-paths';
import { checkCommandInput, checkManageInput, checkStoreOptions, checkViewInput } from './skill-input';

/** Largest file `skill_view` returns, in bytes (a larger one is an error, never truncated). */
export const SKILL_VIEW_MAX_BYTES = 512 * 1024;

/** Options of {@link FileSkillStore}. @public */
export interface FileSkillStoreOptions {
  /** The host's data directory; each user's library is `<dataDir>/users/<user key>/skills/`. */
  readonly dataDir: string;
  /** Folders of public skills (read-only, listed first; a personal skill never shadows them). */
  readonly publicDir?: string | readonly string[];
  /** Longest wait for a user's library lock, in ms. @defaultValue 5000 */
  readonly lockWaitMs?: number;
  /** The current time (for ownership and archive stamps). @defaultValue `() => new Date()` */
  readonly now?: () => Date;
}

const OWNERSHIP_FILE = '.ownership.json';
const LOCK_FILE = '.mutation.lock';

/**
 * A {@link SkillStore} on the file system.
 *
 * @remarks
 * Layout per user (the folder name is a SHA-256-derived key of the user id, so any id is safe on disk):
 * `<dataDir>/users/<key>/skills/` holding `<name>/SKILL.md` or `<category>/<name>/SKILL.md`, support
 * files under `references/`, `templates/`, `scripts/`, `assets/`, the host-written `.ownership.json`,
 * the lock file `.mutation.lock`, and archived packages under `.archive/`. Writes of one user are
 * serialised by the library lock (in process, and across processes by the lock file, which its holder
 * refreshes; one left by a process that died is taken over — at once when its pid shows that, else once
 * unrefreshed for 30 s, as after a crash on another machine or a restart that reused the pid). A batch is
 * rolled back on I/O errors; it is not a crash-safe transaction across files.
 *
 * @example
 * ```ts
 * const skills = new FileSkillStore({ dataDir: '/var/lib/media-agent', publicDir: '/opt/media-agent/skills' });
 * await skills.manage('user:alice', [{ action: 'create', name: 'subtitles', content: doc }], { mode: 'foreground' });
 * ```
 * @public
 */
export class FileSkillStore implements SkillStore {
  readonly #dataDir: string;
  readonly #publicRoots: readonly string[];
  readonly #lockWaitMs: number;
  readonly #now: () => Date;

  /**
   * @param options - data directory, public skill folders, lock wait, clock
   * @throws `SKILL_INPUT_INVALID` (`details.argument` names the option) for options of the wrong type
   */
  constructor(options: FileSkillStoreOptions) {
    checkStoreOptions(options);
    this.#dataDir = options.dataDir;
    const pub = options.publicDir;
    this.#publicRoots = pub === undefined ? [] : typeof pub === 'string' ? [pub] : [...pub];
    this.#lockWaitMs = options.lockWaitMs ?? 5000;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * The personal library folder of a person: `user:alice` and `alice` are the same person and have the
   * same library (the folder of the bare id, so libraries stored before keep working).
   * @param userId - `user:<id>` or the bare `<id>`
   * @throws `PERSON_ID_INVALID` for another actor kind (`agent:`, `apikey:`, `system:`), an empty or
   *   malformed id, or a non-string
   */
  libraryOf(userId: string): string {
    return join(this.#dataDir, 'users', sha256(`user:${personKey(userId, 'userId')}`).slice(0, 32), 'skills');
  }

  /** {@inheritDoc SkillStore.list} */
  async list(userId: string): Promise<SkillSummary[]> {
    const root = this.libraryOf(userId);
    const skills = await catalogue(this.#publicRoots, root);
    const out: SkillSummary[] = [];
    for (const entry of skills.values())
      out.push({
        name: entry.name,
        description: (await describe(entry)).slice(0, 60),
        path: `${entry.relDir}/${SKILL_FILE}`,
        source: entry.source,
      });
    return out;
  }

  /** {@inheritDoc SkillStore.view} */
  async view(userId: string, name: string, filePath?: string, reads?: SkillReadLog): Promise<SkillFileView> {
    const root = this.libraryOf(userId);
    checkSkillName(name);
    checkSkillFilePath(name, filePath);
    checkViewInput(reads);
    const entry = (await catalogue(this.#publicRoots, root)).get(name);
    if (!entry) throw new SkillError('SKILL_NOT_FOUND', `no skill named ${name}; see skills_list`, { name });
    const rel = checkSkillFilePath(name, filePath);
    const path = join(entry.dir, rel);
    await checkInside(entry.root, path);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile())
      throw new SkillError('SKILL_NOT_FOUND', `${name}/${rel} does not exist`, { name, filePath: rel });
    if (info.size > SKILL_VIEW_MAX_BYTES)
      throw new SkillError('SKILL_FILE_TOO_LARGE', `${name}/${rel} is larger than ${SKILL_VIEW_MAX_BYTES} bytes`, {
        name,
        filePath: rel,
        bytes: info.size,
      });
    const bytes = await readFile(path);
    const digest = sha256(bytes);
    reads?.record(name, rel, digest);
    return {
      name,
      filePath: rel,
      content: bytes.toString('utf8'),
      sha256: digest,
      editable: entry.source === 'personal',
      source: entry.source,
      files: await supportFiles(entry.dir),
    };
  }

  /** {@inheritDoc SkillStore.manage} */
  async manage(
    userId: string,
    operations: readonly SkillOperation[],
    context: SkillWriteContext,
  ): Promise<SkillManageResult> {
    const root = this.libraryOf(userId);
    checkManageInput(operations, context, MAX_SKILL_OPERATIONS);
    const deleting = operations.find((op) => op.action === 'delete');
    if (deleting && operations.length > 1)
      throw new SkillError('SKILL_BATCH_INVALID', 'delete must be the only operation of its skill_manage call');
    await mkdir(root, { recursive: true });
    return withLibraryLock(
      join(root, LOCK_FILE),
      async () => {
        const { skills, ownership, ownershipText } = await this.#state(root);
        const now = this.#now();
        if (deleting?.action === 'delete') {
          const name = checkSkillName(deleting.name);
          const done = await deleteSkill({
            root,
            skills,
            ownership,
            ownershipPath: join(root, OWNERSHIP_FILE),
            name,
            absorbedInto: deleting.absorbed_into,
            context,
            now,
          });
          return { applied: 1, skills: [name], ...done };
        }
        const plan = await planBatch({ root, skills, ownership, operations, context, now });
        await commitBatch(root, plan, join(root, OWNERSHIP_FILE), ownershipText, context.cancelled);
        return { applied: operations.length, skills: plan.skills };
      },
      { waitMs: this.#lockWaitMs },
    );
  }

  /** {@inheritDoc SkillStore.command} */
  async command(userId: string, command: SkillCommand): Promise<string> {
    const root = this.libraryOf(userId);
    checkCommandInput(command);
    const name = checkSkillName(command.name);
    await mkdir(root, { recursive: true });
    return withLibraryLock(
      join(root, LOCK_FILE),
      async () => {
        const { skills, ownership } = await this.#state(root);
        const ownershipPath = join(root, OWNERSHIP_FILE);
        if (command.verb === 'restore') return restoreSkill({ root, skills, ownership, ownershipPath, name });
        const entry = skills.get(name);
        if (!entry) throw new SkillError('SKILL_NOT_FOUND', `no skill named ${name}`, { name });
        if (entry.source !== 'personal')
          throw new SkillError('SKILL_READ_ONLY', `${name} is a public skill; it cannot be adopted or pinned`, {
            name,
          });
        const record = ownership[name] ?? { created_by: 'user' as const, pinned: false };
        const next =
          command.verb === 'adopt'
            ? { ...record, created_by: 'agent' as const }
            : { ...record, pinned: command.verb === 'pin' };
        await writeAtomic(ownershipPath, `${JSON.stringify({ ...ownership, [name]: next }, null, 2)}\n`);
        return command.verb === 'adopt'
          ? `Adopted ${name}: background learning may now maintain it${next.pinned ? ' once it is unpinned' : ''}.`
          : command.verb === 'pin'
            ? `Pinned ${name}: background learning will not change it.`
            : `Unpinned ${name}.`;
      },
      { waitMs: this.#lockWaitMs },
    );
  }

  async #state(
    root: string,
  ): Promise<{ skills: Map<string, CatalogueEntry>; ownership: OwnershipMap; ownershipText: Buffer | undefined }> {
    const ownershipText = await readIfExists(join(root, OWNERSHIP_FILE));
    const ownership = parseOwnership(ownershipText?.toString('utf8'));
    return { skills: await catalogue(this.#publicRoots, root), ownership, ownershipText };
  }
}

/** A skill's description from its front matter ('' when unreadable). */
async function describe(entry: CatalogueEntry): Promise<string> {
  const text = (await readIfExists(join(entry.dir, SKILL_FILE)))?.toString('utf8') ?? '';
  const m = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---/.exec(text);
  try {
    const meta = m ? (parse(m[1]!) as { description?: unknown }) : undefined;
    return typeof meta?.description === 'string' ? meta.description.trim() : '';
  } catch {
    return '';
  }
}

/** The support files of a package, relative to its folder (hidden entries and symlinks skipped). */
async function supportFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (at: string): Promise<void> => {
    const entries = await readdir(at, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (e.name.startsWith('.') || e.isSymbolicLink()) continue;
      const path = join(at, e.name);
      if (e.isDirectory()) await walk(path);
      else if (e.isFile()) out.push(relative(dir, path).split(sep).join('/'));
    }
  };
  for (const folder of SUPPORT_FOLDERS) await walk(join(dir, folder));
  return out.sort();
}
