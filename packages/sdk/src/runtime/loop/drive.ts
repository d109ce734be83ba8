// The drive: a sequence of steps, each committed on its own, until one ends it.
import { commitStep } from './commit';
import { callStep } from './call-step';
import type { Loop } from './loop';
import { STOPPED, type DriveEnd } from './outcomes';
import type { RunSession } from './run-session';
import { offeredNow, startDrive } from './start-step';
import { turnStep } from './turn-step';
import { StartChargeRefused } from './spend-step';

/**
 * Drives a run: the start step, then model-turn steps, each followed by one tool-call step per call
 * it opened, until a step ends the drive. Every step commits its writes in one transaction before
 * the next begins, so a crash between steps loses nothing committed and repeats nothing.
 * @returns how the drive ended (its last writes are still pending unless it `ended`)
 */
export async function drive(loop: Loop, session: RunSession): Promise<DriveEnd> {
  const baseTools = await startDrive(loop, session);
  try {
    if (!(await commitStep(loop.deps, session))) return STOPPED;
  } catch (error) {
    // The run's start was refused at a runs cap inside the start's transaction: nothing of the start is stored.
    if (!(error instanceof StartChargeRefused)) throw error;
    session.discard((await loop.deps.storage.runs.get(session.id)) ?? session.run);
    return { kind: 'budget_reached', breach: error.breach };
  }
  for (;;) {
    // Re-read each turn: a capability the registry stopped offering mid-run is not offered to the next call.
    const turn = await turnStep(loop, session, offeredNow(loop, baseTools));
    if (turn.kind === 'repeat') continue;
    if (turn.kind !== 'calls') return turn;
    for (;;) {
      const next = await callStep(loop, session, turn.turn);
      if (next.kind === 'next') continue;
      if (next.kind === 'turn_done') break;
      return next;
    }
  }
}
