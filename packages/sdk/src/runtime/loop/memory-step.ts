// Stable memory in the run loop: the snapshot frozen at a run's first drive, and the `/memory`
// chat commands answered without a model call.
import type { JsonValue } from '../../core/records';
import { actingFor, commandActor } from './acting-for';
import { parseMemoryCommand } from '../../memory/memory-commands';
import type { Loop } from './loop';
import type { DriveEnd } from './outcomes';
import type { RunSession } from './run-session';

/** Where a run keeps its frozen memory snapshot (run state, so it survives resumes and wakes). */
const SNAPSHOT_KEY = 'memorySnapshot';

/**
 * Freezes the memory block of a top-level run at its first drive (written by the caller's commit).
 * Later drives of the run reuse the same text, so the system prompt stays byte-identical and
 * memory writes made meanwhile reach only the next run.
 */
export async function freezeMemorySnapshot(loop: Loop, session: RunSession): Promise<void> {
  const memory = loop.deps.memory;
  if (!memory || session.run.depth !== 0 || session.getState(SNAPSHOT_KEY) !== undefined) return;
  session.setState(SNAPSHOT_KEY, (await memory.snapshot(session.run.startedBy)) as JsonValue);
}

/**
 * Whose memory a run's `memory` and `search_memory` calls and `/memory` commands use: the person the
 * run acts for — its owner, whoever steered it since (an administrator's message in a user's run is
 * input to that run, and the run works on its owner's memory).
 */
export function memoryActorOf(session: RunSession): string {
  return actingFor(session) ?? session.run.startedBy;
}

/** The run's frozen memory block, if any. */
export function memorySnapshotOf(session: RunSession): string | undefined {
  const text = session.getState(SNAPSHOT_KEY);
  return typeof text === 'string' ? text : undefined;
}

/**
 * Answers a `/memory` chat command when it is the latest person's input of a top-level run (its
 * goal, or a steering message just applied): the answer is the run's reply and the drive ends
 * `answered` — no model is called. A command acts on the proposals of the person who typed it
 * (see {@link commandActor}), never of another person.
 * @returns the drive's end, or undefined when the latest input is not a memory command
 */
export async function answerMemoryCommand(loop: Loop, session: RunSession): Promise<DriveEnd | undefined> {
  const memory = loop.deps.memory;
  const last = session.messages[session.messages.length - 1];
  if (session.run.depth !== 0 || last?.role !== 'user') return undefined;
  const text =
    typeof last.content === 'string'
      ? last.content
      : last.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  const answer = memory
    ? await memory.answerCommand(commandActor(session) ?? session.run.startedBy, text)
    : parseMemoryCommand(text) !== undefined
      ? 'Memory is not configured on this host, so /memory commands do nothing here.'
      : undefined;
  if (answer === undefined) return undefined;
  session.append({ role: 'assistant', content: [{ type: 'text', text: answer }] });
  session.emit('text_delta', { text: answer });
  session.patch({ finalText: answer });
  return { kind: 'answered', text: answer };
}
