// The end of a run's processing: its status stored with the step's last writes.
import type { JsonValue } from '../../core/records';
import type { DecisionRecord, RunStatus } from '../../core/run-records';
import type { BudgetBreach } from '../run-budgets';
import type { SpendBreach } from '../budgets/cap-check';
import { BUDGET_REACHED_KIND } from '../budgets/budget-reached';
import { spender } from './spend-step';
import { holdStarted, SPEND_HOLD_STATE_KEY } from '../budgets/held-time';
import { commitStep } from './commit';
import { releaseRunIntents } from '../intent-release';
import { unattendedFailureDecision } from '../unattended-origin';
import type { Loop } from './loop';
import type { RunSession } from './run-session';

/**
 * Ends the processing of a run with `status` (`waiting` or terminal), in one transaction with what
 * the last step left pending: the status, step `finalize` (unless `hold` keeps the step and makes the run due
 * at `hold.notBefore`), end time, error and report, the
 * `run_status` event, and — for a terminal status or a pause, not a spending hold — a wake when a message arrived
 * meanwhile. Then
 * `onRunEnd` of the middleware (a throw there is logged and reported as a `warning` event).
 */
export async function finish(
  loop: Loop,
  session: RunSession,
  status: RunStatus,
  reason: string,
  error: { code: string; message: string } | null = null,
  report?: JsonValue,
  hold?: { notBefore: number },
): Promise<void> {
  const { clock, logger, bus } = loop.deps;
  const terminal = status !== 'waiting';
  // A run that ends without a report of its own (cancelled, failed by an error, out of budget) drops the
  // report it had while waiting: a report never contradicts the run's status.
  const interim = (session.run.report as { status?: string } | null)?.status === 'waiting';
  if (report === undefined && terminal && interim) report = null;
  session.patch({
    status,
    // A run held at a spending cap waits at the step it is in, due again when the period ends.
    ...(hold ? {} : { step: 'finalize' as const }),
    ...(terminal ? { endedAt: clock.now() } : {}),
    notBefore: hold ? hold.notBefore : null,
    ...(error ? { error } : {}),
    ...(report !== undefined ? { report } : {}),
    abortRequested: false,
  });
  session.emit('run_status', { status, step: session.run.step, reason });
  // A scheduled run nobody watched never fails silently: a decision for its owner, with the end.
  const unattended = unattendedFailureDecision(session.run, status, error, {
    id: loop.deps.ids.next('dec'),
    now: clock.now(),
    reason,
  });
  if (unattended) session.writes.decisions.push(unattended);
  // A message that arrived while the run was finishing (or pausing for its person) wakes it once more; not a run held
  // at a spending cap, which waits for the period's end whatever comes.
  if (terminal || !hold) session.writes.wakeIfQueued = true;
  // Its intents are released with its end (docs/intents.md).
  if (terminal) session.writes.riding.push((s) => releaseRunIntents(s, session.id));
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

/** A new open decision about the run, raised by the run itself (the fields every run-raised decision shares). */
function runDecision(
  session: RunSession,
  now: number,
  fields: Pick<DecisionRecord, 'id' | 'kind' | 'dedupeKey' | 'reason' | 'evidence' | 'rootCause'>,
): DecisionRecord {
  return {
    ...fields,
    subjectId: session.id,
    status: 'open',
    subjectType: 'run',
    options: [],
    raisedBy: `agent:${session.id}`,
    resolvedBy: null,
    resolution: null,
    revision: 1,
    createdAt: now,
    updatedAt: now,
    resolvedAt: null,
  };
}

/** Ends a run `budget_exceeded`: the breach event and a pending decision for a person, with the end. */
export async function budgetExceeded(loop: Loop, session: RunSession, breach: BudgetBreach): Promise<void> {
  const { ids, clock } = loop.deps;
  session.emit('budget_exceeded', { budget: breach.budget, limit: breach.limit, used: breach.used });
  session.writes.decisions.push(
    runDecision(session, clock.now(), {
      id: ids.next('dec'),
      kind: 'agent_budget',
      dedupeKey: `agent_budget:${session.id}`,
      reason: `run ${session.id} exceeded ${breach.budget} (limit ${breach.limit}, used ${breach.used})`,
      evidence: { ...breach },
      rootCause: `agent_budget:${session.id}`,
    }),
  );
  await finish(
    loop,
    session,
    'budget_exceeded',
    `${breach.budget} exceeded (limit ${breach.limit}, used ${breach.used})`,
  );
}

/** How a spending budget is named for people: `alice's daily cost` / `the household's monthly runs`. */
function budgetName(breach: SpendBreach): string {
  const whose = breach.scope === 'household' ? "the household's" : `${breach.subject}'s`;
  const what = { runs: 'runs', modelCalls: 'model calls', tokens: 'tokens', costUsd: 'cost (USD)' }[breach.budget];
  return `${whose} ${breach.period === 'day' ? 'daily' : 'monthly'} ${what}`;
}

/**
 * Holds a run at a spending cap (docs/budgets.md): it does not fail. A top-level run waits at the step it is in
 * (`waiting`, due again when the period ends), with a `budget_reached` run event saying which budget, limit, use
 * and period, and a `budget_reached` decision about the run (visible to its owner and to administrators);
 * raising the cap (`host.budgets.update`) or the next period resumes it. A subagent ends `failed` with
 * `BUDGET_REACHED`: it is part of its parent's run, which then waits at its own next model call.
 */
export async function budgetReached(loop: Loop, session: RunSession, breach: SpendBreach): Promise<void> {
  const { ids, clock } = loop.deps;
  const name = budgetName(breach);
  const used = Math.round(breach.used * 1e6) / 1e6;
  const reason = `${name} budget is reached (limit ${breach.limit}, used ${used}, this call needs ${Math.round(breach.requested * 1e6) / 1e6}); the run resumes when the cap is raised or at ${new Date(breach.resetsAt).toISOString()}`;
  if (session.run.parentRunId !== null)
    return finish(loop, session, 'failed', reason, { code: 'BUDGET_REACHED', message: reason });
  const decisionId = ids.next('dec');
  const owner = await spender(loop, session);
  session.emit('budget_reached', { ...breach, decisionId });
  // The time held does not count against the run's own duration budget.
  session.setState(
    SPEND_HOLD_STATE_KEY,
    holdStarted(session.getState(SPEND_HOLD_STATE_KEY), clock.now()) as unknown as JsonValue,
  );
  session.writes.decisions.push(
    runDecision(session, clock.now(), {
      id: decisionId,
      kind: BUDGET_REACHED_KIND,
      // One per run, cap and period: the same cap met again after a wake raises nothing new.
      dedupeKey: `${BUDGET_REACHED_KIND}:${session.id}:${breach.scope}:${breach.period}:${breach.budget}:${breach.limit}:${breach.resetsAt}`,
      reason: `run ${session.id} waits: ${reason}`,
      evidence: { ...breach, owner },
      rootCause: `${BUDGET_REACHED_KIND}:${breach.subject}:${breach.period}:${breach.resetsAt}`,
    }),
  );
  await finish(loop, session, 'waiting', reason, null, undefined, { notBefore: breach.resetsAt });
}
