// The rules of a personal skill's SKILL.md: YAML front matter with a name and a description, a body,
// and no field that would grant tools or permissions.
import { parse } from 'yaml';
import { SkillError } from './skill-error';

/** Largest SKILL.md or support file written through the tools, in characters. @public */
export const SKILL_MAX_CHARS = 100_000;
/** Longest description of a skill, in characters. */
export const SKILL_DESCRIPTION_MAX = 1024;
/** Longest description of a NEW skill, so the catalogue the model routes by stays small. */
export const NEW_SKILL_DESCRIPTION_MAX = 60;
/** Front-matter fields a personal skill may not declare: skills never grant permissions. */
export const FORBIDDEN_SKILL_FIELDS = [
  'allowed-tools',
  'allowed-api-operations',
  'allowed_tools',
  'tools',
  'permissions',
];

/** What a valid SKILL.md says about itself. @public */
export interface SkillDocument {
  /** `name` from the front matter (equals the skill's folder). */
  readonly name: string;
  /** `description` from the front matter. */
  readonly description: string;
  /** The Markdown after the front matter. */
  readonly body: string;
}

const invalid = (message: string, details: Record<string, unknown> = {}) =>
  new SkillError('SKILL_DOCUMENT_INVALID', message, details);

/**
 * Parses and checks a SKILL.md: front matter between `---` lines (a leading BOM tolerated) holding
 * string `name` (equal to `expectedName`) and `description` (≤ 1024 characters, ≤ 60 for a new
 * skill), no tool or permission field, a non-empty body, ≤ 100 000 characters in all.
 * @throws `SKILL_DOCUMENT_INVALID` naming the broken rule
 */
export function parseSkillDocument(text: string, expectedName: string, isNew = false): SkillDocument {
  if (text.length > SKILL_MAX_CHARS) throw invalid(`SKILL.md is longer than ${SKILL_MAX_CHARS} characters`);
  const m = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!m) throw invalid('SKILL.md must start with YAML front matter between --- lines (name, description)');
  let meta: unknown;
  try {
    meta = parse(m[1]!);
  } catch (error) {
    throw invalid(`SKILL.md front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta))
    throw invalid('SKILL.md front matter must be a mapping');
  const fields = meta as Record<string, unknown>;
  const forbidden = Object.keys(fields).filter((k) => FORBIDDEN_SKILL_FIELDS.includes(k.toLowerCase()));
  if (forbidden.length > 0)
    throw invalid(`a personal skill cannot declare ${forbidden.join(', ')}: skills never grant tools or permissions`, {
      fields: forbidden,
    });
  if (typeof fields.name !== 'string' || fields.name !== expectedName)
    throw invalid(`front matter name must be the string ${JSON.stringify(expectedName)} (the folder's name)`);
  const description = fields.description;
  if (typeof description !== 'string' || description.trim() === '')
    throw invalid('front matter description must be a non-empty string');
  const limit = isNew ? NEW_SKILL_DESCRIPTION_MAX : SKILL_DESCRIPTION_MAX;
  if (description.length > limit)
    throw invalid(`description is longer than ${limit} characters${isNew ? ' (a new skill keeps it short)' : ''}`);
  const body = m[2]!;
  if (body.trim() === '') throw invalid('SKILL.md has no body after the front matter');
  return { name: fields.name, description: description.trim(), body };
}
