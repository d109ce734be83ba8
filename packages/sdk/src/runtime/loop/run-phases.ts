// A run's phases: start or resume → drive → goal-settled → finalize.
import { MediaAgentError } from '../../core/errors';
import type { JsonValue } from '../../core/records';
import type { RunRecord, RunStatus } from '../../core/run-records';
import type { RunPatch } from '../../ports/storage-adapter';
import type { GoalFactsSnapshot } from '../goal-facts';
import { buildGoalReport } from '../goal-report';
import { runSettled } from '../completion-rule';
import { withLedgerStates } from '../run-effects';
import { runEffects } from './effect-record';
import { RunMiddlewareError } from '../middleware/run-middleware';
import { approvalsDecidedSince, decisionNote, runApprovals, stillOpen } from './approvals';
import { commitDeferredStep, commitStep, salvageRiding } from './commit';
import { deferCommit, type DeferredCommit } from './deferred-commit';
import { drive } from './drive';
import type { RunLease } from './driver-types';
import { budgetExceeded, budgetReached, finish } from './finish';
import { chargeRunStart, markBudgetResume } from './spend-step';
import { holdEnded, SPEND_HOLD_STATE_KEY } from '../budgets/held-time';
import { goalState, namedTargets } from './goal-targets';
import type { Loop } from './loop';
import { RunSession } from './run-session';
import { isRecoverRun, recoverReport, recoverSettled } from './recover-verify';
import type { Context } from '@opentelemetry/api';
import { RUN_TRACE_STATE_KEY } from '../tracing/run-trace-root';

const EMPTY_FACTS: GoalFactsSnapshot = { plans: [], downloads: [], organizes: [], library: [] };

/**
 * Processes a leased run until it ends, waits, or the lease is lost. A step that throws writes nothing; the run then ends `failed` with the error's
 * code (`RUN_MIDDLEWARE_FAILED` for a middleware, `DRIVER_FAILED` for anything without a code) —
 * unless the lease's signal aborted: on a user abort it ends `cancelled`, on a host stop or a lost
 * lease it is left as stored for the next worker.
 */
export async function processRun(loop: Loop, run: RunRecord, lease: RunLease, parent?: Context): Promise<void> {
  const session = new RunSession(run, lease);
  const { provider, settings } = loop.deps;
  const scope = loop.tracer.startRun(
    run,
    { model: settings.model, providerId: provider.id, baseUrl: provider.baseUrl },
    parent ?? loop.tracer.root(),
  );
  session.trace = scope.context;
  // The run's first traced processing: later ones start in its trace (docs/architecture.md#traces).
  if (scope.rootToStore) session.setState(RUN_TRACE_STATE_KEY, scope.rootToStore);
  try {
    await processSession(loop, session, lease);
  } finally {
    loop.tracer.endRun(scope, session.run);
  }
}

/** The processing itself, inside the run span. */
async function processSession(loop: Loop, session: RunSession, lease: RunLease): Promise<void> {
  const run = session.run;
  try {
    await phases(loop, session);
  } catch (error) {
    // The step before the failing one set its writes aside for it (it opened a read-only call, or it is the
    // final reply): that step was complete, so it is kept — also when a person cancelled the run — unless the
    // run is being left for another worker.
    const leaving = lease.signal.aborted && lease.reason() !== 'abort';
    if (session.hasDeferred && !leaving) await commitDeferredStep(loop.deps, session).catch(() => undefined);
    // What rode on the writes now dropped (a model call's spending settlement) is written on its own.
    await salvageRiding(loop.deps, session);
    const current = (await loop.deps.storage.runs.get(run.id)) ?? run;
    session.discard(current);
    // The host is stopping or the lease was lost: leave the run as stored, for the next worker to resume.
    if (lease.signal.aborted && lease.reason() !== 'abort') return;
    // Aborted by the user while host code (GoalFacts, a provider) threw on the signal: cancelled, not failed.
    if (lease.signal.aborted) return void (await finish(loop, session, 'cancelled', current.abortReason ?? 'aborted'));
    // An unexpected failure (storage, a bug, a middleware): the run ends failed with the reason, visible to subscribers.
    const code = error instanceof MediaAgentError ? error.code : 'DRIVER_FAILED';
    const message = error instanceof Error ? error.message : String(error);
    loop.deps.logger.error('run driver failed', {
      runId: run.id,
      code,
      ...(error instanceof RunMiddlewareError ? { middleware: error.details.middleware } : {}),
    });
    if (error instanceof RunMiddlewareError)
      session.emit('warning', { source: 'runtime', code, message, details: error.details as unknown as JsonValue });
    await finish(loop, session, 'failed', message, { code, message });
  }
}

/** A run held at a spending cap resumes: its decision is resolved once it spends again, the time held is recorded. */
function resumeFromHold(session: RunSession, now: number): void {
  markBudgetResume(session);
  session.setState(
    SPEND_HOLD_STATE_KEY,
    holdEnded(session.getState(SPEND_HOLD_STATE_KEY), now) as unknown as JsonValue,
  );
}

async function phases(loop: Loop, session: RunSession): Promise<void> {
  const { storage, clock, goalFacts } = loop.deps;
  const run = session.run;
  if (run.abortRequested) return finish(loop, session, 'cancelled', run.abortReason ?? 'aborted');
  // A run that never started (queued, or held at a runs cap before its start) starts now: its start is counted
  // against its owner's and the household's runs caps (docs/budgets.md) — a run that never started counts nowhere.
  if (run.status === 'queued' || (run.status === 'waiting' && run.startedAt === null)) {
    if (run.status === 'waiting') resumeFromHold(session, clock.now());
    const breach = await chargeRunStart(loop, session);
    if (breach) return budgetReached(loop, session, breach);
    session.patch({ status: 'running', step: 'drive', startedAt: clock.now(), wakeRequested: false, notBefore: null });
    session.emit('run_status', { status: 'running', step: 'drive' });
  } else if (run.wakeRequested || run.status === 'running') {
    const wasTerminal = run.endedAt !== null;
    const patch: RunPatch = {
      status: 'running',
      wakeRequested: false,
      step: run.wakeRequested ? 'drive' : run.step,
      endedAt: null,
    };
    if (wasTerminal) Object.assign(patch, { checklist: null, report: null, startedAt: clock.now() });
    session.patch(patch);
    if (wasTerminal) session.emit('checklist_updated', { checklist: null });
    // A wake is a message in the inbox, or else a decision on an approval the run asked for.
    const reason = !session.woken
      ? 'resumed'
      : (await storage.inbox.listQueued(run.id)).length > 0
        ? 'woken by a new message'
        : 'woken by an approval decision';
    session.emit('run_status', { status: 'running', step: session.run.step, reason });
  } else if (run.status === 'waiting' && run.step === 'drive') {
    // Held at a spending cap and due again (the period ended, or the caps changed): resumes at the same step.
    resumeFromHold(session, clock.now());
    session.patch({ status: 'running', notBefore: null });
    session.emit('run_status', {
      status: 'running',
      step: 'drive',
      reason: 'resumed: the spending budget may have room again',
    });
  }
  // The start is written with the drive's first step; any other phase writes it first.
  if (session.run.step !== 'drive' && !(await commitStep(loop.deps, session))) return;

  if (session.run.step === 'drive') {
    const outcome = await drive(loop, session);
    switch (outcome.kind) {
      case 'stopped':
        // The host is stopping: what the last step did is kept for the worker that resumes the run.
        await commitStep(loop.deps, session);
        return;
      case 'aborted': {
        const fresh = await storage.runs.get(session.id);
        return finish(loop, session, 'cancelled', fresh?.abortReason ?? session.run.abortReason ?? 'aborted');
      }
      case 'budget':
        return budgetExceeded(loop, session, outcome.breach);
      case 'budget_reached':
        return budgetReached(loop, session, outcome.breach);
      case 'failed':
        return finish(loop, session, 'failed', outcome.message, { code: outcome.code, message: outcome.message });
      case 'paused':
        // Waits for the user: a message wakes it for a new drive (nothing is scheduled).
        return finish(loop, session, 'waiting', outcome.reason);
      case 'answered':
        return finish(loop, session, 'succeeded', 'answered a memory command');
      case 'ended':
        break; // the final reply's step moved the run to goal_settled or finalize
    }
  }

  // What the goal-settled phase read when it found the goal settled: the report is built from the same reads.
  let settledReads: SettledReads | undefined;
  if (session.run.step === 'goal_settled') {
    // A recovery run reads its own calls back from its stored events: the writes still waiting are committed first.
    const settled = isRecoverRun(session)
      ? (await flushWaiting(deferCommit(loop, session))) && (await recoverSettled(loop, session))
      : await goalSettled(loop, session, deferCommit(loop, session));
    if (!settled) return;
    if (settled !== true) settledReads = settled;
  }

  if (session.run.step === 'finalize') {
    const current = session.run;
    // The final reply's step waits for the run's end while the facts are read, or commits once that takes a while.
    const waiting = deferCommit(loop, session);
    const facts = settledReads
      ? settledReads.facts
      : current.mode === 'execute'
        ? await goalFacts.forRun(current.id, session.lease.signal).finally(() => waiting?.settle())
        : await goalFacts
            .forRun(current.id, session.lease.signal)
            .catch(() => EMPTY_FACTS)
            .finally(() => waiting?.settle());
    if (!(await settleWaiting(waiting))) return;
    const built = buildGoalReport({
      runId: current.id,
      mode: current.mode,
      facts,
      finalText: current.finalText,
      at: clock.now(),
      targets: goalState(session).targets,
      named: namedTargets(session),
      effects: settledReads?.effects ?? (await currentEffects(loop, session)),
    });
    const report = isRecoverRun(session) ? recoverReport(session, built) : built;
    session.emit('report', { report });
    const status: RunStatus = report.status === 'waiting' ? 'waiting' : report.status;
    await finish(loop, session, status, report.summary, null, report as unknown as JsonValue);
  }
}

/** Waits for the deferred commit `waiting` started, if any: false when it found the lease lost. */
async function settleWaiting(waiting: DeferredCommit | undefined): Promise<boolean> {
  return waiting ? waiting.settle() : true;
}

/** Commits the writes still waiting now; false when that commit found the lease lost. */
async function flushWaiting(waiting: DeferredCommit | undefined): Promise<boolean> {
  return waiting ? waiting.flush() : true;
}

/** The run's effects, each brought up to date with its ledger entry (a verifier or a finished job may have settled it). */
async function currentEffects(loop: Loop, session: RunSession) {
  const effects = runEffects(session);
  if (effects.length === 0) return effects;
  return withLedgerStates(effects, await loop.deps.storage.ledger.listByRun(session.id, { limit: 1000 }));
}

/** What the goal-settled phase read that the finalize phase right after it reports on. */
interface SettledReads {
  facts: GoalFactsSnapshot;
  effects: Awaited<ReturnType<typeof currentEffects>>;
}

/**
 * The goal-settled phase: approvals decided meanwhile send the run back to the model; facts that
 * have not settled (or an approval still open) keep it `waiting` until the next poll or the
 * deadline; otherwise it goes on to finalize.
 * @returns what it read (the facts and effects the run's report is built from) when the run goes on to finalize
 *   now; false otherwise
 */
async function goalSettled(
  loop: Loop,
  session: RunSession,
  waiting: DeferredCommit | undefined,
): Promise<SettledReads | false> {
  const { clock, settings, goalFacts } = loop.deps;
  const current = session.run;
  let facts: Awaited<ReturnType<typeof goalFacts.forRun>>;
  try {
    facts = await goalFacts.forRun(current.id, session.lease.signal);
  } finally {
    await waiting?.settle().catch(() => undefined);
  }
  if (!(await settleWaiting(waiting))) return false;
  const approvals = await runApprovals(loop.deps, current.id);
  const decided = await approvalsDecidedSince(loop.deps, current.id, approvals);
  if (decided.length > 0) {
    // A person decided on an approval this run asked for: tell the model and drive again.
    for (const a of decided) {
      session.emit('approval_decided', {
        approvalId: a.id,
        status: a.status,
        ...(a.approvedSteps ? { approvedSteps: a.approvedSteps } : {}),
        ...(a.approvedPayload !== null ? { edited: true } : {}),
      });
      loop.tracer.approvalWait(session.trace, a);
    }
    session.append({ role: 'user', content: decided.map(decisionNote).join('\n') });
    session.patch({ step: 'drive', wakeRequested: true, notBefore: null });
    await commitStep(loop.deps, session);
    return false;
  }
  const open = stillOpen(approvals, clock.now());
  const waitingForApproval = open.length > 0;
  const deadline = (current.startedAt ?? current.createdAt) + settings.goalWaitHours * 3_600_000;
  const effects = await currentEffects(loop, session);
  if ((!runSettled(facts, effects) || waitingForApproval) && clock.now() < deadline) {
    const built = buildGoalReport({
      runId: current.id,
      mode: current.mode,
      facts,
      finalText: current.finalText,
      at: clock.now(),
      targets: goalState(session).targets,
      named: namedTargets(session),
      effects,
    });
    // The report of a waiting run says it waits (a call denied until a person approves it is not a failure
    // yet); the verdict so far is in the summary, the final one comes with finalize.
    const summary = waitingForApproval
      ? `waiting for an approval; so far: ${built.summary}`
      : built.status === 'waiting'
        ? built.summary
        : `still moving; so far: ${built.summary}`;
    const report = { ...built, status: 'waiting' as const, summary };
    session.patch({
      status: 'waiting',
      notBefore: clock.now() + settings.goalPollSec * 1000,
      report: report as unknown as JsonValue,
    });
    if (current.status !== 'waiting')
      session.emit('run_status', {
        status: 'waiting',
        step: session.run.step,
        reason: waitingForApproval ? 'waiting for an approval' : report.summary,
      });
    // A person's message that arrived while this step ran (the run was `running`, so it was only queued) wakes it.
    session.writes.wakeIfQueued = true;
    session.writes.wakeIfDecided.push(...open.map((a) => a.id));
    await commitStep(loop.deps, session);
    return false;
  }
  session.patch({ step: 'finalize' });
  return { facts, effects };
}
