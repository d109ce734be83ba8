// Answers one tool call the middleware let through: the run rule, a call that must not run, the
// runtime's own tools (the table), capabilities, unknown names.
import { recordEffect } from './effect-record';
import type { InvocationResult } from '../../capabilities/invocation';
import type { JsonValue } from '../../core/records';
import type { RunUsage } from '../../core/run-records';
import type { ToolCallPart, ToolResultMessage } from '../../models/types';
import { toolResultMessage } from '../tool-result';
import { extractImages } from '../images/image-parts';
import { callCapability } from './capability-call';
import type { CapabilityDescriptor } from '../../core/capability-descriptor';
import { fencedResult } from './fenced-result';
import { commitStep } from './commit';
import type { GoalTargetQuestion } from './goal-targets';
import type { Loop } from './loop';
import { runRefusal } from './run-rule';
import type { RunSession } from './run-session';
import { context as otelContext, type Context } from '@opentelemetry/api';
import type { ToolSpanOutcome } from '../tracing/run-tracer';

/** A call that was answered. */
export interface DispatchedCall {
  /** The result message for the model (before `afterToolCall`). */
  message: ToolResultMessage;
  /** The outcome. */
  status: InvocationResult['status'];
  /** Usage of a subagent the call drove. */
  childUsage?: RunUsage;
  /** The goal is ambiguous for this call: the question for a person. */
  ask?: GoalTargetQuestion;
}

/**
 * Answers `call` and writes its settled `tool_call` event (its `started` event was written when it
 * was opened), followed by the `approval_requested` event of an approval a denied call asked for.
 * @param failure - why the call must not run (arguments invalid or too large), if so
 */
export async function dispatchToolCall(
  loop: Loop,
  session: RunSession,
  call: ToolCallPart,
  failure: { code: string; message: string } | undefined,
): Promise<DispatchedCall> {
  const { capabilities } = loop.deps;
  const span = loop.tracer.startTool(
    session.trace,
    call,
    capabilities.has(call.name) ? capabilities.get(call.name) : undefined,
  );
  try {
    const answered = await answer(loop, session, call, failure, span.context);
    loop.tracer.endTool(span, answered.traced);
    return answered.call;
  } catch (error) {
    loop.tracer.endWithError(span, error);
    throw error;
  }
}

async function answer(
  loop: Loop,
  session: RunSession,
  call: ToolCallPart,
  failure: { code: string; message: string } | undefined,
  trace: Context,
): Promise<{ call: DispatchedCall; traced: ToolSpanOutcome }> {
  let traced: ToolSpanOutcome = { status: 'failed' };
  const done = (
    answered: Pick<InvocationResult, 'status' | 'output' | 'error'> & {
      invocationId?: string;
      idempotencyKey?: string;
    },
    extra: Record<string, unknown> = {},
    descriptor?: CapabilityDescriptor,
  ): DispatchedCall => {
    // Image parts never reach events or stored messages: the output keeps a description of each,
    // the images ride along after the text until the tool_images middleware holds them in memory.
    const media = answered.output !== undefined ? extractImages(answered.output) : undefined;
    const result = media && media.output !== answered.output ? { ...answered, output: media.output } : answered;
    session.emit('tool_call', {
      callId: call.id,
      capabilityId: call.name,
      phase: result.status,
      ...(result.invocationId ? { invocationId: result.invocationId } : {}),
      ...(result.idempotencyKey ? { idempotencyKey: result.idempotencyKey } : {}),
      ...(result.error ? { error: result.error } : {}),
      ...(result.output !== undefined ? { output: result.output as JsonValue } : {}),
    });
    traced = result;
    // A capability's untrusted text reaches the model fenced (events keep it as it was): before `afterToolCall`, so
    // a large result is fenced before the result spill stores it.
    const shown = descriptor ? fencedResult(descriptor, result) : { result };
    const message = toolResultMessage(
      call.id,
      call.name,
      shown.result,
      shown.dataNote ? { ...extra, dataNote: shown.dataNote } : extra,
    );
    if (media?.images.length) message.content = [{ type: 'text', text: message.content as string }, ...media.images];
    return { message, status: result.status };
  };
  // A registered capability this run may not use is denied whatever the model sent (also enforced by the authorizer).
  const refusal = runRefusal(loop.deps.capabilities, session.run, call.name);
  // A side effect refused before it ran (not allowed to this run, arguments invalid) is still an effect the run
  // attempted: the goal report judges it (docs/architecture.md#the-goal-report).
  if ((refusal || failure) && loop.deps.capabilities.has(call.name))
    await recordEffect(loop, session, loop.deps.capabilities.get(call.name), call.input, {
      status: refusal ? 'denied' : 'failed',
      error: (refusal ?? failure)!,
    });
  if (refusal) return { call: done({ status: 'denied', error: refusal }), traced };
  if (failure) return { call: done({ status: 'failed', error: failure }), traced };
  const tool = loop.tools.get(call.name);
  if (tool) {
    const outcome = await otelContext.with(trace, () =>
      tool.run({ session, call, checkpoint: () => commitStep(loop.deps, session), trace }),
    );
    const answered = done(outcome.result);
    return { call: { ...answered, ...(outcome.childUsage ? { childUsage: outcome.childUsage } : {}) }, traced };
  }
  if (!loop.deps.capabilities.has(call.name))
    return {
      call: done({
        status: 'failed',
        error: { code: 'CAPABILITY_NOT_FOUND', message: `there is no tool named ${call.name}` },
      }),
      traced,
    };
  // The handler runs inside the tool span's context (its own spans nest under it when the host propagates context).
  const outcome = await otelContext.with(trace, () => callCapability(loop, session, call));
  const answered = done(outcome.result, outcome.extra, loop.deps.capabilities.get(call.name));
  // The denial first, then the approval it asked for: events read in the order things happened.
  if (outcome.approvalRequested) session.emit('approval_requested', outcome.approvalRequested);
  const approvalRequested = (outcome.extra.approvalRequested as { approvalId?: string } | undefined)?.approvalId;
  if (approvalRequested) traced = { ...traced, approvalRequested };
  return { call: { ...answered, ...(outcome.ask ? { ask: outcome.ask } : {}) }, traced };
}
