import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The bytes of every file under `dir` (a SQLite database and its write-ahead log), as latin1 text. */
export function filesUnder(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name)).toString('latin1'))
    .join('\n');
}
