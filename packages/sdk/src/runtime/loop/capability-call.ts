// A tool call that is a capability: through the one invocation path, as `agent:<runId>`.
import type { InvocationContext, InvocationResult } from '../../capabilities/invocation';
import { rideOnClaim } from './claim-commit';
import { carrySettlement } from './settle-commit';
import { MediaAgentError } from '../../core/errors';
import type { RunEventPayloads } from '../events/run-event';
import type { ToolCallPart } from '../../models/types';
import { approvalCanLift } from '../../authorization/approval-can-lift';
import { approvalFor, requestApproval } from './approvals';
import { recordEffect } from './effect-record';
import { CATALOG_LOOKUP, checkGoalTarget, recordLookup, type GoalTargetQuestion } from './goal-targets';
import { isSideEffecting, needsReadBack } from '../../core/capability-descriptor';
import { invocationProvenance, recordShown, typedInRun } from './run-provenance-state';
import type { Loop } from './loop';
import type { RunSession } from './run-session';
import { FORK_STATE_KEY, forkStateOf, lineageRunsOf } from '../fork/fork-state';

/**
 * `{ priorEffects, lineageRunIds }` of a fork (its lineage's effects as of its making, and the lineage's runs, whose
 * later effects the invocation path reads), or nothing for any other run.
 */
function priorEffectsOf(session: RunSession): Pick<InvocationContext, 'priorEffects' | 'lineageRunIds'> {
  const fork = forkStateOf(session.getState(FORK_STATE_KEY));
  return fork ? { priorEffects: fork.lineage, lineageRunIds: lineageRunsOf(fork) } : {};
}

/** What a capability call produced. */
export interface CapabilityCallOutcome {
  /** The invocation result (or why it did not run). */
  result: Pick<InvocationResult, 'status' | 'output' | 'error'> & { invocationId?: string; idempotencyKey?: string };
  /** More fields for the model (an approval that was requested). */
  extra: Record<string, unknown>;
  /** The goal is ambiguous for this side effect: the question for a person (the call did not run). */
  ask?: GoalTargetQuestion;
  /** An approval this call asked for: its event, written after the call's settled `tool_call` event. */
  approvalRequested?: RunEventPayloads['approval_requested'];
}

/**
 * Runs a registered capability the run may use: checks the goal target of a side effect (an
 * ambiguous one is asked, not run), passes an approval the run obtained for the call's plan,
 * invokes it through the one invocation path (`agent:<runId>`, the call id, the lease's signal, what the run
 * was shown and what people typed in it), records catalog lookups and what the output showed the run, and after a denial of a plan execution that an approval can lift
 * ({@link approvalCanLift}) asks a person for an approval.
 */
export async function callCapability(
  loop: Loop,
  session: RunSession,
  call: ToolCallPart,
): Promise<CapabilityCallOutcome> {
  const { capabilities, storage, approvals, logger } = loop.deps;
  const run = session.run;
  const descriptor = capabilities.get(call.name);
  const question = await checkGoalTarget(storage, session, descriptor, call.input);
  if (question) {
    const message = `${question.question} The goal does not say; a person was asked. Do not choose: wait for the answer.`;
    await recordEffect(loop, session, descriptor, call.input, {
      status: 'failed',
      error: { code: 'GOAL_TARGET_AMBIGUOUS', message },
    });
    return {
      result: { status: 'failed', error: { code: 'GOAL_TARGET_AMBIGUOUS', message } },
      extra: {},
      ask: question,
    };
  }
  const approvalId = await approvalFor(approvals, run, descriptor, call.input);
  let result: InvocationResult;
  try {
    // What people typed is read only for a side effect the invocation path checks (docs/untrusted-text.md).
    const typed =
      isSideEffecting(descriptor.kind) && descriptor.provenance === 'declared'
        ? await typedInRun(storage, session)
        : [];
    const ctx: InvocationContext = {
      actor: `agent:${run.id}`,
      runId: run.id,
      callId: call.id,
      signal: session.lease.signal,
      ...(approvalId ? { approvalId } : {}),
      provenance: invocationProvenance(session, typed),
      // A fork's lineage effects, for the duplicate rule (docs/forks.md); nothing for a run that is not a fork.
      ...priorEffectsOf(session),
    };
    // The step that opened the call commits with its claim (claim-commit.ts).
    rideOnClaim(session, ctx);
    // Its settlement commits with the step that appends its result (settle-commit.ts) — not when the effect is read
    // back right after (the verifier reads the settled entry).
    if (!(descriptor.kind === 'execute' && needsReadBack(descriptor.effect ?? 'other')))
      carrySettlement(session, ctx, descriptor.replay);
    result = await capabilities.invoke(call.name, call.input, ctx);
  } catch (error) {
    const code = error instanceof MediaAgentError ? error.code : 'INVOCATION_FAILED';
    result = {
      status: 'failed',
      error: { code, message: error instanceof Error ? error.message : String(error) },
      invocationId: '',
    };
  }
  if (result.status === 'succeeded' && call.name === CATALOG_LOOKUP) recordLookup(session, result.output);
  // What the output showed the run: the ids it may act on, the untrusted text it must not act with.
  if (result.status === 'succeeded' || result.status === 'pending') recordShown(session, descriptor, result.output);
  await recordEffect(loop, session, descriptor, call.input, result);
  const extra: Record<string, unknown> = {};
  if (result.status === 'denied' && result.error?.code === 'APPROVAL_STEP_NOT_APPROVED') {
    // Approved in part: the denial names the steps that may run; no new approval is asked for.
    extra.approvedSteps = approvalId ? ((await approvals.get(approvalId)).approvedSteps ?? undefined) : undefined;
  } else if (result.status === 'denied' && approvalCanLift(result.error?.code ?? '')) {
    // Only a denial an approval can lift asks a person: a superuser-only host operation, an admin-only
    // capability or a run's limits are decided before any approval, so asking would waste their decision.
    const asked = await requestApproval(
      {
        approvals,
        logger,
        capabilities,
        storage,
        clock: loop.deps.clock,
        impactTimeoutMs: loop.deps.settings.impactTimeoutMs,
      },
      session,
      descriptor,
      call.input,
    );
    if (asked) {
      extra.approvalRequested = {
        approvalId: asked.approvalId,
        note: 'a person was asked to approve this plan; wait for the decision before retrying',
        ...(asked.approval?.impact ? { impact: asked.approval.impact.summary } : {}),
        ...(asked.approval && asked.approval.steps.length > 0
          ? { steps: asked.approval.steps.map((s) => `${s.id}: ${s.label}`) }
          : {}),
      };
      if (asked.requested) return { result, extra, approvalRequested: asked.requested };
    }
  }
  return { result, extra };
}
