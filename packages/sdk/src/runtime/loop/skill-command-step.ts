// `/skills restore|adopt|pin|unpin <name>` typed by a person (as the goal or a steering message):
// answered by the runtime from the skill store, with no model call.
import { parseActor } from '../../core/actor';
import { isMediaAgentError } from '../../core/errors';
import type { ModelMessage } from '../../models/types';
import { parseSkillCommand } from '../../skills/skill-command';
import { commandActor } from './acting-for';
import { commitStep } from './commit';
import type { Loop } from './loop';
import { STOPPED, type DriveEnd } from './outcomes';
import type { RunSession } from './run-session';

function textOf(message: ModelMessage | undefined): string | undefined {
  if (message?.role !== 'user') return undefined;
  if (typeof message.content === 'string') return message.content;
  const parts = message.content;
  return parts.every((p) => p.type === 'text') ? parts.map((p) => p.text).join('') : undefined;
}

/**
 * When the newest message is a person's `/skills` command, runs it and ends the drive with the store's
 * reply as the final text (its writes committed as one step); on a host without personal skills the reply
 * says so (never a model call either way).
 * @returns how the drive ended, or undefined when there is no command to answer
 */
export async function answerSkillCommand(loop: Loop, session: RunSession): Promise<DriveEnd | undefined> {
  const store = loop.deps.skills;
  const text = textOf(session.messages.at(-1));
  const parsed = text === undefined ? undefined : parseSkillCommand(text);
  if (!parsed) return undefined;
  const actor = commandActor(session);
  let reply: string;
  if (!store) reply = 'Personal skills are not configured on this host, so /skills commands do nothing here.';
  else if (!parsed.ok) reply = parsed.reply;
  else if (!actor) reply = 'Personal skills need a signed-in person; this run acts for nobody.';
  else {
    try {
      reply = await store.command(parseActor(actor).id, parsed.command);
    } catch (error) {
      if (!isMediaAgentError(error)) throw error;
      reply = `/skills ${parsed.command.verb} ${parsed.command.name} refused (${error.code}): ${error.message}`;
    }
  }
  session.append({ role: 'assistant', content: [{ type: 'text', text: reply }] });
  session.emit('text_delta', { text: reply });
  session.patch({ finalText: reply, step: session.run.mode === 'execute' ? 'goal_settled' : 'finalize' });
  return (await commitStep(loop.deps, session)) ? { kind: 'ended' } : STOPPED;
}
