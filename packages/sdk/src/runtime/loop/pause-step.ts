// The pause before a model call that follows model turns whose every call was refused.
import { abortableSleep } from '../../models/retry';
import { commitStep } from './commit';
import type { Loop } from './loop';
import type { RunSession } from './run-session';

/**
 * The wait before a model call that follows `turns` model turns in a row whose every call was
 * refused: `baseMs`, doubling per turn, at most 30 s.
 */
export function refusedTurnPause(baseMs: number, turns: number): number {
  return Math.min(30_000, baseMs * 2 ** Math.min(turns - 1, 15));
}

/** True when the next model call must wait first (a new refused turn since the last pause). */
export function pauseDue(session: RunSession): boolean {
  return session.refusedTurns > session.pausedFor;
}

/**
 * The pause step: a `LOOP_PAUSED` warning is committed, then the loop waits (ended early by the
 * lease's signal) and re-reads the run, so the next step sees an abort requested meanwhile.
 * @returns false when the lease was lost
 */
export async function pauseStep(loop: Loop, session: RunSession): Promise<boolean> {
  const { settings, storage } = loop.deps;
  const refusedTurns = session.refusedTurns;
  session.pausedFor = refusedTurns;
  const pauseMs = refusedTurnPause(settings.refusedTurnPauseMs, refusedTurns);
  session.emit('warning', {
    source: 'loop_guard',
    code: 'LOOP_PAUSED',
    message: `every call of the last ${refusedTurns === 1 ? 'model turn was' : `${refusedTurns} model turns were`} refused; waiting ${pauseMs} ms before the next model call`,
    details: { pauseMs, refusedTurns },
  });
  if (!(await commitStep(loop.deps, session))) return false;
  // A host that stops ends the wait at once (the drain): the next step sees it and leaves the run.
  const { signal, drain } = session.lease;
  await abortableSleep(pauseMs, drain ? AbortSignal.any([signal, drain]) : signal);
  const fresh = await storage.runs.get(session.id);
  if (!fresh) return false;
  session.committed(fresh);
  return true;
}
