// The `/skills` chat commands a person types: handled by the runtime, never by the model.
import type { SkillCommand } from '../ports/skill-store';
import { SKILL_NAME_PATTERN } from './skill-paths';

/** What a message that starts with `/skills` asks for. @public */
export type ParsedSkillCommand =
  | { readonly ok: true; readonly command: SkillCommand }
  | { readonly ok: false; readonly reply: string };

/** The usage line sent back for a malformed command. */
export const SKILL_COMMAND_USAGE =
  'Usage: /skills restore|adopt|pin|unpin <name> (names: lower case, digits, _ and -).';

/**
 * Reads a message as a `/skills` command: `/skills restore|adopt|pin|unpin <name>`, matched exactly
 * (surrounding whitespace ignored).
 * @returns undefined when the message is not a `/skills` command at all; a usage reply when it is one
 *   but malformed
 * @example
 * ```ts
 * parseSkillCommand('/skills pin media-download'); // { ok: true, command: { verb: 'pin', name: 'media-download' } }
 * ```
 * @public
 */
export function parseSkillCommand(text: string): ParsedSkillCommand | undefined {
  const trimmed = text.trim();
  if (!/^\/skills(?:\s|$)/.test(trimmed)) return undefined;
  const m = /^\/skills\s+(restore|adopt|pin|unpin)\s+(\S+)$/.exec(trimmed);
  if (!m || !SKILL_NAME_PATTERN.test(m[2]!)) return { ok: false, reply: SKILL_COMMAND_USAGE };
  return { ok: true, command: { verb: m[1] as SkillCommand['verb'], name: m[2]! } };
}
