// The person a run acts for, during a drive: its owner (see actingForRun), whoever steered it. A slash
// command (`/memory …`, `/skills …`) is not the run acting: the runtime answers it without a model, for
// the person who typed it, exactly as that person's own call to the host would be.
import { actingForRun } from '../../core/acting-for';
import { type Actor, isHumanActor } from '../../core/actor';
import type { RunSession } from './run-session';

/** Runtime-state key of the person who wrote the newest steering message applied to the run. */
export const MESSAGE_WRITER_STATE_KEY = 'messageWriter';

/**
 * The `user:*` actor whose request the run serves (see {@link actingForRun}): the person who started it,
 * whoever steered it since; undefined for runs started by API keys, jobs or parent runs.
 */
export function actingFor(session: RunSession): Actor | undefined {
  return actingForRun(session.run);
}

/**
 * Who typed the newest message, for a slash command the runtime answers itself: the writer of the
 * steering message applied last (when a person), else the run's owner. Never used to authorize the
 * run's tools: those keep the owner's role ({@link actingFor}).
 */
export function commandActor(session: RunSession): Actor | undefined {
  const writer = session.getState(MESSAGE_WRITER_STATE_KEY);
  return typeof writer === 'string' && isHumanActor(writer) ? (writer as Actor) : actingFor(session);
}
