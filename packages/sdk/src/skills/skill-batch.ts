// A `skill_manage` batch: planned in memory (every check before any write), then committed file by
// file with the originals kept, and restored in reverse order when anything fails.
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { SkillOperation, SkillWriteContext } from '../ports/skill-store';
import { applyFuzzyPatch } from './fuzzy-patch';
import type { CatalogueEntry } from './skill-catalogue';
import { parseSkillDocument, SKILL_MAX_CHARS } from './skill-document';
import { SkillError } from './skill-error';
import { checkInside, makeParents, readIfExists, removeTree, sha256, writeAtomic } from './skill-files';
import { backgroundMayWrite, type OwnershipMap } from './skill-ownership';
import { checkSkillFilePath, checkSkillName, SKILL_FILE } from './skill-paths';
import { findUnsafeText } from './unsafe-text';

/** Most operations in one `skill_manage` call. */
export const MAX_SKILL_OPERATIONS = 20;

/** One file the batch will write (`next` text) or remove (`next` null). */
interface PlannedFile {
  readonly path: string;
  readonly name: string;
  readonly filePath: string;
  /** What is on disk now (undefined: absent). */
  readonly original: Buffer | undefined;
  next: string | null;
}

/** What the planner works on. */
export interface BatchInput {
  readonly root: string;
  readonly skills: ReadonlyMap<string, CatalogueEntry>;
  readonly ownership: OwnershipMap;
  readonly operations: readonly SkillOperation[];
  readonly context: SkillWriteContext;
  readonly now: Date;
}

/** A planned batch: files to write, the new sidecar, the skills touched. */
export interface BatchPlan {
  readonly files: readonly PlannedFile[];
  readonly ownership: OwnershipMap;
  readonly skills: readonly string[];
}

export const cancelledError = () =>
  new SkillError('SKILL_REVIEW_CANCELLED', 'the review was cancelled; nothing more is written');

/** Refuses text that carries an unsafe pattern. */
function scan(text: string, name: string, filePath: string): void {
  const finding = findUnsafeText(text);
  if (finding)
    throw new SkillError('SKILL_CONTENT_UNSAFE', `${name}/${filePath} was refused: it matches ${finding}`, {
      name,
      filePath,
      pattern: finding,
    });
}

function tooLong(text: string, name: string, filePath: string): void {
  if (text.length > SKILL_MAX_CHARS)
    throw new SkillError(
      'SKILL_DOCUMENT_INVALID',
      `${name}/${filePath} would be longer than ${SKILL_MAX_CHARS} characters`,
      {
        name,
        filePath,
      },
    );
}

/**
 * Plans every operation in order on an in-memory copy: names, paths, ownership guards, read-before-write,
 * the fuzzy patch, document rules and the unsafe-text scan. Nothing is written.
 * @throws `SkillError` at the first operation that fails (its index is in `details.operation`)
 */
export async function planBatch(input: BatchInput): Promise<BatchPlan> {
  const { root, skills, context, now } = input;
  const ownership: OwnershipMap = { ...input.ownership };
  const files = new Map<string, PlannedFile>();
  const created = new Map<string, string>(); // name -> folder, for skills created in this batch
  const overwritten = new Set<string>();
  const touched: string[] = [];
  const background = context.mode === 'background';

  const file = async (name: string, dir: string, filePath: string): Promise<PlannedFile> => {
    const path = join(dir, filePath);
    let planned = files.get(path);
    if (!planned) {
      await checkInside(root, path);
      planned = { path, name, filePath, original: await readIfExists(path), next: null };
      planned.next = planned.original === undefined ? null : planned.original.toString('utf8');
      files.set(path, planned);
    }
    return planned;
  };
  const current = (f: PlannedFile) => f.next;

  for (const [index, op] of input.operations.entries()) {
    if (context.cancelled?.()) throw cancelledError();
    try {
      const name = checkSkillName(op.name);
      if (op.action === 'delete')
        throw new SkillError('SKILL_BATCH_INVALID', 'delete must be the only operation of its skill_manage call');
      if (op.action === 'create') {
        if (skills.has(name) || created.has(name))
          throw new SkillError(
            'SKILL_EXISTS',
            `a skill named ${name} already exists${skills.get(name)?.source === 'public' ? ' (a public skill; personal skills cannot shadow it)' : ''}; patch it or pick another name`,
            { name },
          );
        const category = op.category === undefined ? undefined : checkSkillName(op.category, 'category');
        const dir = category ? join(root, category, name) : join(root, name);
        await checkInside(root, join(dir, SKILL_FILE));
        parseSkillDocument(op.content, name, true);
        scan(op.content, name, SKILL_FILE);
        const target = await file(name, dir, SKILL_FILE);
        if (target.original !== undefined)
          throw new SkillError('SKILL_EXISTS', `the folder of ${name} is not empty`, { name });
        target.next = op.content;
        overwritten.add(target.path);
        created.set(name, dir);
        ownership[name] = {
          created_by: background ? 'agent' : 'user',
          pinned: false,
          source: context.origin ?? null,
          last_source: context.origin ?? null,
          updated_at: now.toISOString(),
        };
        if (!touched.includes(name)) touched.push(name);
        continue;
      }
      // Every other action changes an existing personal skill.
      const entry = skills.get(name);
      const dir = created.get(name) ?? (entry?.source === 'personal' ? entry.dir : undefined);
      if (entry?.source === 'public')
        throw new SkillError(
          'SKILL_READ_ONLY',
          `${name} is a public skill and read-only; create a personal skill instead`,
          {
            name,
          },
        );
      if (dir === undefined)
        throw new SkillError('SKILL_NOT_FOUND', `no skill named ${name}; see skills_list`, { name });
      if (background && !created.has(name) && !backgroundMayWrite(ownership[name]))
        throw new SkillError(
          'SKILL_READ_ONLY',
          `${name} is owned by the user or pinned; a background review may not change it (suggest /skills adopt ${name})`,
          { name },
        );
      const filePath = 'file_path' in op ? checkSkillFilePath(name, op.file_path) : SKILL_FILE;
      const target = await file(name, dir, filePath);
      // Read-before-write: a file that existed before this batch must be the one this review read.
      if (background && target.original !== undefined && !created.has(name)) {
        const read = context.reads?.digest(name, filePath);
        if (read !== sha256(target.original))
          throw new SkillError(
            'SKILL_READ_REQUIRED',
            read === undefined
              ? `read ${name}/${filePath} with skill_view before changing it`
              : `${name}/${filePath} changed since it was read; view it again, then retry once`,
            { name, filePath },
          );
      }
      const before = current(target);
      let next: string | null;
      switch (op.action) {
        case 'patch': {
          if (before === null)
            throw new SkillError('SKILL_NOT_FOUND', `${name}/${filePath} does not exist`, { name, filePath });
          const out = applyFuzzyPatch({
            content: before,
            oldString: op.old_string,
            newString: op.new_string,
            replaceAll: op.replace_all ?? false,
          });
          if (!out.ok) throw new SkillError(out.code, out.message, { name, filePath });
          next = out.content;
          break;
        }
        case 'rewrite':
        case 'edit':
          next = op.content;
          break;
        case 'write_file':
          if (filePath === SKILL_FILE)
            throw new SkillError('SKILL_PATH_INVALID', 'write_file writes support files; use rewrite for SKILL.md', {
              name,
            });
          next = op.file_content;
          break;
        case 'remove_file':
          if (filePath === SKILL_FILE)
            throw new SkillError('SKILL_PATH_INVALID', 'remove_file removes support files, never SKILL.md', { name });
          if (before === null)
            throw new SkillError('SKILL_NOT_FOUND', `${name}/${filePath} does not exist`, { name, filePath });
          next = null;
          break;
      }
      if (op.action !== 'patch') {
        if (overwritten.has(target.path))
          throw new SkillError(
            'SKILL_BATCH_INVALID',
            `${name}/${filePath} is overwritten twice in one call; the earlier change would be lost (use patch)`,
            { name, filePath },
          );
        overwritten.add(target.path);
      }
      if (next !== null) {
        tooLong(next, name, filePath);
        if (filePath === SKILL_FILE) parseSkillDocument(next, name, false);
        scan(next, name, filePath);
      }
      target.next = next;
      const record = ownership[name];
      if (record) ownership[name] = { ...record, last_source: context.origin ?? null, updated_at: now.toISOString() };
      if (!touched.includes(name)) touched.push(name);
    } catch (error) {
      if (error instanceof SkillError)
        throw new SkillError(
          error.code as never,
          `operation ${index + 1} (${op.action} ${String(op.name)}): ${error.message}`,
          {
            ...error.details,
            operation: index,
          },
        );
      throw error;
    }
  }
  return { files: [...files.values()], ownership, skills: touched };
}

/**
 * Writes a planned batch: each changed file atomically, then the ownership sidecar, checking
 * cancellation before every file and after the last. On any failure the originals are restored in
 * reverse order and the folders this batch created are removed. This is a rollback for ordinary I/O
 * errors and cancellation, not a crash-safe transaction across files.
 */
export async function commitBatch(
  root: string,
  plan: BatchPlan,
  ownershipPath: string,
  originalOwnership: Buffer | undefined,
  cancelled: (() => boolean) | undefined,
): Promise<void> {
  const done: Array<{ path: string; original: Buffer | undefined }> = [];
  const createdDirs: string[] = [];
  const writes = [
    ...plan.files.filter((f) => f.next !== (f.original === undefined ? null : f.original.toString('utf8'))),
    { path: ownershipPath, original: originalOwnership, next: `${JSON.stringify(plan.ownership, null, 2)}\n` },
  ];
  try {
    for (const f of writes) {
      if (cancelled?.()) throw cancelledError();
      createdDirs.push(...(await makeParents(root, f.path)));
      done.push({ path: f.path, original: f.original });
      if (f.next === null) await unlink(f.path);
      else await writeAtomic(f.path, f.next);
    }
    if (cancelled?.()) throw cancelledError();
  } catch (error) {
    for (const f of done.reverse()) {
      if (f.original === undefined) await unlink(f.path).catch(() => undefined);
      else await writeAtomic(f.path, f.original).catch(() => undefined);
    }
    for (const dir of createdDirs.reverse()) await removeTree(dir).catch(() => undefined);
    throw error;
  }
}
