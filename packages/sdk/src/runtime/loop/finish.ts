// The end of a run's processing: its status stored with the step's last writes.
import type { JsonValue } from '../../core/records';
import type { RunStatus } from '../../core/run-records';
import type { BudgetBreach } from '../run-budgets';
import { commitStep } from './commit';
import type { Loop } from './loop';
import type { RunSession } from './run-session';

/**
 * Ends the processing of a run with `status` (`waiting` or terminal), in one transaction with what
 * the last step left pending: the status, step `finalize`, end time, error and report, the
 * `run_status` event, and — for a terminal status — a wake when a message arrived meanwhile. Then
 * `onRunEnd` of the middleware (a throw there is logged and reported as a `warning` event).
 */
export async function finish(
  loop: Loop,
  session: RunSession,
  status: RunStatus,
  reason: string,
  error: { code: string; message: string } | null = null,
  report?: JsonValue,
): Promise<void> {
  const { clock, logger, bus } = loop.deps;
  const terminal = status !== 'waiting';
  session.patch({
    status,
    step: 'finalize',
    ...(terminal ? { endedAt: clock.now() } : {}),
    notBefore: null,
    ...(error ? { error } : {}),
    ...(report !== undefined ? { report } : {}),
    abortRequested: false,
  });
  session.emit('run_status', { status, step: 'finalize', reason });
  // A message that arrived while the run was finishing wakes it once more.
  if (terminal) session.writes.wakeIfQueued = true;
  if (!(await commitStep(loop.deps, session))) return;
  if (loop.deps.onRunEnd)
    await loop.deps
      .onRunEnd(session.run)
      .catch((error: Error) =>
        logger.warn('the end of a run could not be handed on', { runId: session.id, message: error.message }),
      );
  for (const failure of await loop.pipeline.runEnd(session, status, reason)) {
    logger.warn('run middleware failed at the end of a run', {
      runId: session.id,
      middleware: failure.details.middleware,
    });
    await bus.emit(session.id, 'warning', {
      source: 'runtime',
      code: failure.code,
      message: failure.message,
      details: failure.details as unknown as JsonValue,
    });
  }
}

/** Ends a run `budget_exceeded`: the breach event and a pending decision for a person, with the end. */
export async function budgetExceeded(loop: Loop, session: RunSession, breach: BudgetBreach): Promise<void> {
  const { ids, clock } = loop.deps;
  session.emit('budget_exceeded', { budget: breach.budget, limit: breach.limit, used: breach.used });
  session.writes.decisions.push({
    id: ids.next('dec'),
    kind: 'agent_budget',
    dedupeKey: `agent_budget:${session.id}`,
    subjectId: session.id,
    status: 'open',
    reason: `run ${session.id} exceeded ${breach.budget} (limit ${breach.limit}, used ${breach.used})`,
    evidence: { ...breach },
    subjectType: 'run',
    rootCause: `agent_budget:${session.id}`,
    options: [],
    raisedBy: `agent:${session.id}`,
    resolvedBy: null,
    resolution: null,
    revision: 1,
    createdAt: clock.now(),
    updatedAt: clock.now(),
    resolvedAt: null,
  });
  await finish(
    loop,
    session,
    'budget_exceeded',
    `${breach.budget} exceeded (limit ${breach.limit}, used ${breach.used})`,
  );
}
