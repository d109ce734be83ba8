// The verification of an automatic recovery run: instead of goal-settled, facts are polled until the
// recovery actions are seen to work, fail, or the verification time is up (docs/decisions.md#verification).
import type { JsonValue } from '../../core/records';
import type { RunEventRecord } from '../../core/run-records';
import { asObject, recoveryVerdict, recoverPollSec, type RecoveryAction } from '../decisions/decision-rules';
import type { AgentGoalReport } from '../goal-report';
import { commitStep } from './commit';
import type { Loop } from './loop';
import type { RunSession } from './run-session';

const RECOVER_STATE_KEY = 'recover';
const RECOVERY_CAPABILITIES = ['download.recheck', 'task.retry', 'identity.resolve'];

/** Whether the run is an automatic recovery run (started for a decision in `recover` mode). */
export function isRecoverRun(session: RunSession): boolean {
  return asObject(session.getState('decision')).mode === 'recover';
}

/** The recovery actions (succeeded or pending) and denied calls in a run's `tool_call` events. */
export function recoveryActionsOf(events: readonly RunEventRecord[]): {
  actions: RecoveryAction[];
  denied: Array<{ capabilityId: string; code: string }>;
} {
  const actions: RecoveryAction[] = [];
  const denied: Array<{ capabilityId: string; code: string }> = [];
  for (const e of events) {
    if (e.type !== 'tool_call') continue;
    const data = asObject(e.data);
    const capabilityId = typeof data.capabilityId === 'string' ? data.capabilityId : '';
    if (!RECOVERY_CAPABILITIES.includes(capabilityId)) continue;
    if (data.phase === 'denied') {
      denied.push({ capabilityId, code: String(asObject(data.error).code ?? 'AUTH_NO_AUTHORIZATION') });
      continue;
    }
    if (data.phase !== 'succeeded' && data.phase !== 'pending') continue;
    const output = asObject(data.output);
    const subjectId =
      capabilityId === 'download.recheck'
        ? asObject(output.download).id
        : capabilityId === 'task.retry'
          ? asObject(output.task).id
          : output.subjectId;
    actions.push({ capabilityId, subjectId: typeof subjectId === 'string' ? subjectId : null });
  }
  return { actions, denied };
}

/**
 * The verify phase of a recovery run, in place of goal-settled: reads the run's recovery actions once, then the
 * business facts every `min(goalPollSec, 30)` s (the run is `waiting` meanwhile) until they are verified, failed,
 * or `recoverVerifySec` has passed; the outcome is kept in the run's state for finalize and the decision.
 * @returns true when the run goes on to finalize now
 */
export async function recoverSettled(loop: Loop, session: RunSession): Promise<boolean> {
  const { storage, clock, goalFacts, settings } = loop.deps;
  const state = asObject(session.getState(RECOVER_STATE_KEY));
  let found = state.actions
    ? { actions: state.actions as unknown as RecoveryAction[], denied: state.denied as JsonValue }
    : undefined;
  const startedAt = typeof state.startedAt === 'number' ? state.startedAt : clock.now();
  if (!found) found = recoveryActionsOf(await storage.events.listByRun(session.id, { afterSeq: 0, limit: 10_000 }));
  const base = { actions: found.actions, denied: found.denied, startedAt } as unknown as Record<string, JsonValue>;
  if (found.actions.length === 0) {
    session.setState(RECOVER_STATE_KEY, { ...base, outcome: 'no_action' });
    session.patch({ step: 'finalize' });
    return true;
  }
  const facts = await goalFacts.forRun(session.id, session.lease.signal);
  const verdict = recoveryVerdict(found.actions, facts);
  const deadline = startedAt + (settings.recoverVerifySec ?? 600) * 1000;
  if (verdict === 'pending' && clock.now() < deadline) {
    session.setState(RECOVER_STATE_KEY, base);
    session.patch({ status: 'waiting', notBefore: clock.now() + recoverPollSec(settings.goalPollSec) * 1000 });
    if (session.run.status !== 'waiting')
      session.emit('run_status', { status: 'waiting', step: session.run.step, reason: 'verifying the recovery' });
    await commitStep(loop.deps, session);
    return false;
  }
  session.setState(RECOVER_STATE_KEY, {
    ...base,
    outcome: verdict === 'pending' ? 'timed_out' : verdict,
    facts: facts as unknown as JsonValue,
  });
  session.patch({ step: 'finalize' });
  return true;
}

/**
 * The report of a recovery run: `succeeded` with a summary that starts "recovered (verified by the system)" when
 * the facts verified it, else `failed` starting "not recovered"; the model's words stay attached as unverified.
 */
export function recoverReport(session: RunSession, report: AgentGoalReport): AgentGoalReport {
  const state = asObject(session.getState(RECOVER_STATE_KEY));
  const outcome = typeof state.outcome === 'string' ? state.outcome : 'no_action';
  const actions = (state.actions ?? []) as unknown as RecoveryAction[];
  const did = actions.map((a) => `${a.capabilityId} ${a.subjectId ?? ''}`.trim()).join(', ') || 'no recovery action';
  const now = actions
    .map((a) => {
      const d = report.facts.downloads.find((x) => x.id === a.subjectId);
      const o = report.facts.organizes.find((x) => x.id === a.subjectId);
      return d ? `download ${d.id} (${d.title}) ${d.status}` : o ? `organize ${o.id} ${o.status}` : undefined;
    })
    .filter((x) => x !== undefined)
    .join(', ');
  const facts = now ? `; now: ${now}` : '';
  return outcome === 'verified'
    ? { ...report, status: 'succeeded', summary: `recovered (verified by the system): ${did}${facts}` }
    : { ...report, status: 'failed', summary: `not recovered (${outcome.replace('_', ' ')}): ${did}${facts}` };
}
