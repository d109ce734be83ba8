// The host-written ownership sidecar of a user's skill library (`.ownership.json`).
import type { SkillWriteOrigin } from '../ports/skill-store';
import { SkillError } from './skill-error';

/** Who owns one personal skill, as the host recorded it. @public */
export interface SkillOwnership {
  /** `agent` when a background review created (or the user adopted) it, `user` otherwise. */
  readonly created_by: 'agent' | 'user';
  /** A pinned skill is never changed by a background review, and never deleted until unpinned. */
  readonly pinned: boolean;
  /** The conversation that created it. */
  readonly source?: SkillWriteOrigin | null;
  /** The conversation that last changed it. */
  readonly last_source?: SkillWriteOrigin | null;
  /** ISO time of the last change. */
  readonly updated_at?: string;
}

/** The sidecar: ownership by skill name. */
export type OwnershipMap = Record<string, SkillOwnership>;

function isRecord(v: unknown): v is SkillOwnership {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  return (r.created_by === 'agent' || r.created_by === 'user') && typeof r.pinned === 'boolean';
}

/**
 * Reads the sidecar's text (undefined when the file is absent: an empty map).
 * @throws `SKILL_OWNERSHIP_CORRUPT` when it is not a map of ownership records: a corrupt sidecar
 *   never means "empty, so allowed"
 */
export function parseOwnership(text: string | undefined): OwnershipMap {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.values(value).every(isRecord))
    throw new SkillError(
      'SKILL_OWNERSHIP_CORRUPT',
      'the skill ownership record is unreadable; nothing was changed (the host must repair .ownership.json)',
    );
  return value as OwnershipMap;
}

/** True when a background review may change or archive the skill: created by the agent and not pinned. */
export function backgroundMayWrite(record: SkillOwnership | undefined): boolean {
  return record !== undefined && record.created_by === 'agent' && record.pinned === false;
}
