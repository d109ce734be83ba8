// How an investigation's ended run concludes its decision: the conclusion kept, a verified recovery resolving it,
// anything else handing it to a person.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import type { JsonValue } from '../../core/records';
import type { DecisionRecord, RunRecord } from '../../core/run-records';
import { AUTO_INVESTIGATE_ACTOR, AUTO_RECOVER_ACTOR, asObject } from './decision-rules';
import { recoverSuggestion, withRecheckOption } from './recovery-suggestions';

/**
 * The outcome of a recovery run: `over_budget` for a run over its budget, else the outcome the run recorded
 * (`runtimeState.recover.outcome`), else `run_cancelled` / `run_failed`, else `no_action`.
 * @param runStatus - the run's status
 * @param recover - the run's `runtimeState.recover`
 * @internal
 */
export function recoveryOutcome(runStatus: RunRecord['status'], recover: Record<string, JsonValue>): string {
  if (runStatus === 'budget_exceeded') return 'over_budget';
  if (typeof recover.outcome === 'string') return recover.outcome;
  if (runStatus === 'cancelled' || runStatus === 'failed') return `run_${runStatus}`;
  return 'no_action';
}

/**
 * The investigation's conclusion kept in `evidence.agentInvestigation`: the run, its status, its report's
 * summary, and its final text (at most 4000 characters, not verified).
 * @param run - the ended run
 * @internal
 */
export function investigationConclusion(
  run: Pick<RunRecord, 'id' | 'status' | 'report' | 'finalText'>,
): Record<string, JsonValue> {
  const report = asObject(run.report as JsonValue);
  return {
    runId: run.id,
    runStatus: run.status,
    summary: typeof report.summary === 'string' ? report.summary : null,
    conclusion: run.finalText === null ? null : { text: run.finalText.slice(0, 4000), verified: false },
  };
}

/**
 * The decision after its investigation run ended. A decision a person closed meanwhile keeps their resolution and
 * gains the conclusion (`investigated`). An open one: a recovery the system verified resolves it as
 * `system:auto-recover` with an `agent_recover` execution; anything else hands it to a person (`awaiting_user`),
 * a recovery's outcome, actions, denials and a suggestion in `evidence.autoRecover` (a denied recovery that took no
 * action offers the recheck option).
 * @param d - the decision as read, its investigation this run's
 * @param run - the ended run
 * @param mode - the investigation mode the run was started with
 * @param context - the registry (for the recheck option) and the time
 * @returns the next record, the change its event names, and the actor
 * @internal
 */
export function concludedDecision(
  d: DecisionRecord,
  run: RunRecord,
  mode: 'investigate' | 'recover',
  context: { capabilities: Pick<CapabilityRegistry, 'has'>; now: () => number },
): { next: DecisionRecord; change: string; actor: string } {
  const evidence = asObject(d.evidence);
  const next: DecisionRecord = { ...d, evidence: { ...evidence, agentInvestigation: investigationConclusion(run) } };
  if (d.status !== 'open') return { next, change: 'investigated', actor: AUTO_INVESTIGATE_ACTOR };
  let change = 'awaiting_user';
  if (mode === 'recover') {
    const state = asObject(asObject(run.runtimeState).recover);
    const outcome = recoveryOutcome(run.status, state);
    const denied = Array.isArray(state.denied) ? state.denied : [];
    const autoRecover: Record<string, JsonValue> = {
      ...asObject(evidence.autoRecover),
      outcome,
      actions: state.actions ?? [],
      denied,
    };
    if (outcome === 'verified') {
      next.status = 'resolved';
      next.resolvedBy = AUTO_RECOVER_ACTOR;
      next.resolvedAt = context.now();
      next.resolution = {
        optionId: null,
        note: 'recovered (verified by the system)',
        execution: { kind: 'agent_recover', verified: true, runId: run.id, facts: state.facts ?? null },
      };
      change = 'resolved';
    } else {
      autoRecover.suggestion = recoverSuggestion(outcome, denied.length > 0);
      if (denied.length > 0 && outcome === 'no_action') {
        autoRecover.degraded = { reason: 'the recovery action was denied', denied };
        next.options = withRecheckOption(d, context.capabilities);
      }
    }
    next.evidence = { ...(next.evidence as Record<string, JsonValue>), autoRecover };
  }
  if (next.status === 'open') next.status = 'awaiting_user';
  return { next, change, actor: mode === 'recover' ? AUTO_RECOVER_ACTOR : AUTO_INVESTIGATE_ACTOR };
}
