// What one background review read (for read-before-write).
import type { SkillReadLog } from '../ports/skill-store';

/**
 * A read log kept in memory for one review: the SHA-256 of the last read of each file.
 * @public
 */
export function createSkillReadLog(): SkillReadLog {
  const digests = new Map<string, string>();
  const key = (name: string, filePath: string) => `${name}\u0000${filePath}`;
  return {
    record: (name, filePath, sha) => void digests.set(key(name, filePath), sha),
    digest: (name, filePath) => digests.get(key(name, filePath)),
  };
}
