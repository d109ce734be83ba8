// The steering inbox: messages a person queued reach the model before its next call.
import { isHumanActor } from '../../core/actor';
import { MESSAGE_WRITER_STATE_KEY } from './acting-for';
import { markHumanInput } from './human-input';
import { recordTypedMessage } from './run-provenance-state';
import type { Loop } from './loop';
import type { RunSession } from './run-session';

/**
 * Applies the queued steering messages (at most `inboxCapacity`, oldest first) as user messages:
 * appended, marked applied, announced by `inbox_applied` — written by the caller's commit.
 * @returns true when there was something to apply
 */
export async function applyInbox(loop: Loop, session: RunSession): Promise<boolean> {
  const queued = (await loop.deps.storage.inbox.listQueued(session.id)).slice(0, loop.deps.settings.inboxCapacity);
  if (queued.length === 0) return false;
  for (const m of queued) {
    session.append(markHumanInput({ role: 'user', content: m.text }, `inbox:${m.id}`));
    // A person's message is text they typed: ids in it may be acted on (its position is kept, not its text).
    recordTypedMessage(session, m.actor);
  }
  // Who wrote a message never changes who the run acts for (another person's message is input, not
  // authority); it is kept only so a slash command in it is answered for the person who typed it.
  const writer = queued.at(-1)?.actor;
  session.setState(MESSAGE_WRITER_STATE_KEY, writer !== undefined && isHumanActor(writer) ? writer : null);
  session.writes.applied.push(...queued.map((m) => m.id));
  session.emit('inbox_applied', { inboxIds: queued.map((m) => m.id) });
  return true;
}
