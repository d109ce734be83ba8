// Names of skills and categories, and the paths a tool may name inside a skill package.
import { SkillError } from './skill-error';

/** What a skill or category name must match: lower-case letters, digits, `_` and `-`, 1–64 long. @public */
export const SKILL_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The folders a skill's support files live in. @public */
export const SUPPORT_FOLDERS = ['references', 'templates', 'scripts', 'assets'] as const;

/** The skill's main document. */
export const SKILL_FILE = 'SKILL.md';

/**
 * Checks a skill or category name.
 * @throws `SKILL_NAME_INVALID` when it does not match {@link SKILL_NAME_PATTERN}
 */
export function checkSkillName(name: unknown, what = 'skill name'): string {
  if (typeof name !== 'string' || !SKILL_NAME_PATTERN.test(name))
    throw new SkillError(
      'SKILL_NAME_INVALID',
      `${what} ${JSON.stringify(String(name)).slice(0, 80)} must match ${SKILL_NAME_PATTERN.source} (lower case, digits, _ and -; no dots)`,
      { name: String(name).slice(0, 80) },
    );
  return name;
}

/** The longest segment of a skill file path, in UTF-8 bytes (the usual file-system name limit). */
const MAX_SEGMENT_BYTES = 255;

/**
 * Normalises a file path named by a tool to a path inside the package: `SKILL.md` (also given as
 * `<name>/SKILL.md`) or `<support folder>/<file>` with no `..`, no absolute path, no backslash, no
 * empty or dot-file segment, no segment over 255 UTF-8 bytes, at most 512 characters.
 * @returns the relative path with `/` separators
 * @throws `SKILL_PATH_INVALID` otherwise
 */
export function checkSkillFilePath(name: string, filePath: unknown): string {
  const refuse = (why: string) =>
    new SkillError('SKILL_PATH_INVALID', `file_path ${JSON.stringify(String(filePath)).slice(0, 120)} ${why}`, {
      name,
      filePath: String(filePath).slice(0, 200),
    });
  if (filePath === undefined || filePath === null || filePath === '') return SKILL_FILE;
  if (typeof filePath !== 'string' || filePath.length > 512) throw refuse('must be a string of at most 512 characters');
  if (filePath.includes('\\') || filePath.includes('\0')) throw refuse('must not contain backslashes');
  if (filePath.startsWith('/') || /^[A-Za-z]:/.test(filePath)) throw refuse('must be relative to the skill folder');
  const path = filePath === `${name}/${SKILL_FILE}` ? SKILL_FILE : filePath;
  if (path === SKILL_FILE) return SKILL_FILE;
  const parts = path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.startsWith('.')))
    throw refuse('must not contain empty, `.`, `..` or hidden segments');
  if (parts.length < 2 || !(SUPPORT_FOLDERS as readonly string[]).includes(parts[0]!))
    throw refuse(`must be SKILL.md or a file under ${SUPPORT_FOLDERS.join('/, ')}/`);
  // What file systems take as one name (NAME_MAX): a longer one would fail later as a bare ENAMETOOLONG.
  if (parts.some((p) => Buffer.byteLength(p) > MAX_SEGMENT_BYTES))
    throw refuse(`must not have a segment longer than ${MAX_SEGMENT_BYTES} bytes`);
  return path;
}
