// The `/memory` chat commands a person types (never the model).

/**
 * A `/memory` command parsed from a person's latest input: list the pending proposals, show one,
 * approve or discard one; `help` for any other `/memory…` text.
 * @public
 */
export type MemoryCommand = { kind: 'list' } | { kind: 'show' | 'approve' | 'discard'; id: string } | { kind: 'help' };

const COMMAND = /^\/memory\s+(pending|approve|discard)(?:\s+([0-9a-f]{32}))?$/;

/** The one-line help for a `/memory…` text that is not a command. @public */
export const MEMORY_COMMAND_HELP =
  'Memory commands: /memory pending, /memory pending <id>, /memory approve <id>, /memory discard <id>';

/**
 * Parses a person's input as a `/memory` command.
 * @param text - the whole input (surrounding blanks ignored)
 * @returns the command, `help` for other `/memory…` text, undefined when the input is not a memory command
 * @public
 */
export function parseMemoryCommand(text: string): MemoryCommand | undefined {
  const input = text.trim();
  if (!/^\/memory(?:\s|$)/.test(input)) return undefined;
  const m = COMMAND.exec(input);
  if (!m) return { kind: 'help' };
  const [, verb, id] = m;
  if (verb === 'pending') return id ? { kind: 'show', id } : { kind: 'list' };
  return id ? { kind: verb as 'approve' | 'discard', id } : { kind: 'help' };
}
