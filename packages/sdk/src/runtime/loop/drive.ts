// The drive: a sequence of steps, each committed in one transaction, until one ends it.
import { commitStep } from './commit';
import { commitWindowMs } from './deferred-commit';
import { callStep } from './call-step';
import type { Loop } from './loop';
import { STOPPED, type DriveEnd } from './outcomes';
import type { RunSession } from './run-session';
import { offeredNow, startDrive } from './start-step';
import { turnStep } from './turn-step';
import { StartChargeRefused, startChargeRefusable } from './spend-step';
import type { ModelTool } from '../../models/types';

/**
 * Drives a run: the start step, then model-turn steps, each followed by one tool-call step per call
 * it opened, until a step ends the drive. Every step's writes commit in one transaction: before the next step
 * begins, or — when what runs next changes nothing outside the run (a model call, a read, a `replay: 'safe'` call)
 * — together with the next step's, at most the commit window (`runs.commitWindowMs`) later (`deferred-commit.ts`). A crash loses nothing
 * committed and repeats only work that may be repeated: the claim of every other side effect is committed before
 * its handler runs.
 * @returns how the drive ended (its last writes are still pending unless it `ended`)
 */
export async function drive(loop: Loop, session: RunSession): Promise<DriveEnd> {
  const baseTools = await startDrive(loop, session);
  // The start changes nothing outside the run: it commits with the first model turn's step, or on its own once it
  // waited the commit window (`runs.commitWindowMs`) (deferred-commit.ts) — a crash before that leaves the run as stored, to start again.
  // A start charge a runs cap may refuse commits first: no model call is made for a run the cap refuses.
  if (!startChargeRefusable(session) && commitWindowMs(loop) > 0) {
    session.defer();
    return driveSteps(loop, session, baseTools);
  }
  try {
    if (!(await commitStep(loop.deps, session))) return STOPPED;
  } catch (error) {
    // The run's start was refused at a runs cap inside the start's transaction: nothing of the start is stored.
    if (!(error instanceof StartChargeRefused)) throw error;
    session.discard((await loop.deps.storage.runs.get(session.id)) ?? session.run);
    return { kind: 'budget_reached', breach: error.breach };
  }
  return driveSteps(loop, session, baseTools);
}

/** The model-turn steps and their tool-call steps, until one ends the drive. */
async function driveSteps(loop: Loop, session: RunSession, baseTools: ModelTool[]): Promise<DriveEnd> {
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
