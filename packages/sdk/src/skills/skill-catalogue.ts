// Finding skills: `<root>/<name>/SKILL.md` or `<root>/<category>/<name>/SKILL.md`, public roots first.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SkillSource } from '../ports/skill-store';
import { SKILL_FILE, SKILL_NAME_PATTERN } from './skill-paths';
import { pathExists } from './skill-files';

/** A skill found on disk. */
export interface CatalogueEntry {
  readonly name: string;
  /** Its folder (absolute). */
  readonly dir: string;
  /** Its folder relative to its root. */
  readonly relDir: string;
  readonly source: SkillSource;
  /** The root it was found in. */
  readonly root: string;
}

/** Most skills read from one root. */
export const CATALOGUE_LIMIT = 1000;

async function folders(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** The skills of one root (hidden folders and symlinks skipped), at most {@link CATALOGUE_LIMIT}. */
export async function scanRoot(root: string, source: SkillSource): Promise<CatalogueEntry[]> {
  const out: CatalogueEntry[] = [];
  for (const top of await folders(root)) {
    if (out.length >= CATALOGUE_LIMIT) break;
    if (await pathExists(join(root, top, SKILL_FILE))) {
      out.push({ name: top, dir: join(root, top), relDir: top, source, root });
      continue;
    }
    if (!SKILL_NAME_PATTERN.test(top)) continue;
    for (const inner of await folders(join(root, top))) {
      if (out.length >= CATALOGUE_LIMIT) break;
      if (await pathExists(join(root, top, inner, SKILL_FILE)))
        out.push({ name: inner, dir: join(root, top, inner), relDir: `${top}/${inner}`, source, root });
    }
  }
  return out;
}

/** Every skill by name: public roots in order, then the personal root; the first name wins. */
export async function catalogue(
  publicRoots: readonly string[],
  personalRoot: string,
): Promise<Map<string, CatalogueEntry>> {
  const byName = new Map<string, CatalogueEntry>();
  const roots: Array<[string, SkillSource]> = [
    ...publicRoots.map((r): [string, SkillSource] => [r, 'public']),
    [personalRoot, 'personal'],
  ];
  for (const [root, source] of roots)
    for (const entry of await scanRoot(root, source)) if (!byName.has(entry.name)) byName.set(entry.name, entry);
  return byName;
}
