// The model-turn step: the checks before a model call, the request through the middleware, the
// turn itself, and what follows from the reply (the end of the drive, another turn, or its calls).
import { checkRunBudgets, type RunBudgets } from '../run-budgets';
import type { ModelTool, ToolCallPart } from '../../models/types';
import { commitStep } from './commit';
import { commitBeforeCall } from './deferred-commit';
import { applyInbox } from './inbox-step';
import { answerSkillCommand } from './skill-command-step';
import { answerMemoryCommand, memorySnapshotOf } from './memory-step';
import type { Loop } from './loop';
import { runModelTurn, type ModelTurnSink } from './model-turn';
import { interruptedBy, STOPPED, type DriveEnd } from './outcomes';
import { pauseDue, pauseStep } from './pause-step';
import type { RunSession } from './run-session';
import { openNextCall, stopDrive, TurnCalls } from './turn-calls';
import { context as otelContext } from '@opentelemetry/api';
import { hasImages } from '../images/image-delivery';

/** A turn that failed on an HTTP 400 before any output: what a provider answers to images it does not take. */
function imagesRefused(turn: {
  error?: Error & { code?: string };
  message: { content: unknown[] };
  aborted: boolean;
}): boolean {
  const error = turn.error as (Error & { code?: string; details?: { status?: unknown } }) | undefined;
  return (
    !turn.aborted &&
    turn.message.content.length === 0 &&
    error?.code === 'PROVIDER_HTTP' &&
    error.details?.status === 400
  );
}

/** What a model-turn step led to: another turn (`repeat`), calls to run, or the end of the drive. */
export type TurnOutcome = DriveEnd | { kind: 'repeat' } | { kind: 'calls'; turn: TurnCalls };

/**
 * Where the model's text goes: pieces streamed mid-turn are written and published at once in their
 * own small transaction (people watch the text as it comes; this is a log of the stream, not run
 * state), the rest of the text with the step; provider warnings at once, in stream order.
 */
function streamSink(loop: Loop, session: RunSession): ModelTurnSink {
  const { bus } = loop.deps;
  return {
    text: async (text, final) => {
      if (final) session.emit('text_delta', { text });
      else await bus.emit(session.id, 'text_delta', { text });
    },
    warning: async (w) => {
      await bus.emit(session.id, 'warning', {
        source: 'provider',
        code: w.code,
        message: w.message,
        ...(w.details ? { details: w.details as never } : {}),
      });
    },
  };
}

/**
 * One model-turn step.
 *
 * @remarks
 * Before the call: the abort and the lease (as of the last commit, and the signal), the steering
 * inbox (committed on its own when it had messages, so they are applied exactly once), the per-run
 * budgets, and the pause after refused turns (its own step). Then `beforeModelRequest`, the model
 * turn, `afterModelTurn`. A reply without calls ends the drive (or, on a middleware's request,
 * continues with its prompt); with calls, the first one the middleware let through is opened. The
 * step commits usage, the assistant message, the rest of the text, middleware state and the opened
 * call's `started` event in one transaction — before anything runs, unless the call only reads: then
 * with the call's step (see `deferred-commit.ts`). When the drive ends instead, its
 * writes go with the run's end.
 * @param baseTools - the drive's base tool offer
 */
export async function turnStep(loop: Loop, session: RunSession, baseTools: readonly ModelTool[]): Promise<TurnOutcome> {
  const { deps } = loop;
  const lease = session.lease;
  if (lease.signal.aborted) return interruptedBy(lease);
  if (session.run.leaseOwner !== lease.owner) return STOPPED;
  if (session.run.abortRequested) return { kind: 'aborted' };
  if ((await applyInbox(loop, session)) && !(await commitStep(deps, session))) return STOPPED;
  const commanded = await answerSkillCommand(loop, session);
  if (commanded) return commanded;
  const answered = await answerMemoryCommand(loop, session);
  if (answered) return answered;
  const breach = checkRunBudgets(
    session.usage,
    session.run.budgets as unknown as RunBudgets,
    deps.clock.now() - (session.run.startedAt ?? session.run.createdAt),
  );
  if (breach) return { kind: 'budget', breach };
  if (pauseDue(session)) return (await pauseStep(loop, session)) ? { kind: 'repeat' } : STOPPED;
  if (session.stop) return stopDrive(session, session.stop);

  const request = await loop.pipeline.beforeModelRequest(session, baseTools);
  if (session.stop) return stopDrive(session, session.stop);
  const chat = loop.tracer.startChat(session.trace, {
    providerId: deps.provider.id,
    model: deps.settings.model,
    maxTokens: deps.settings.maxTokens,
    messages: request.messages,
  });
  let turn: Awaited<ReturnType<typeof runModelTurn>>;
  // Calls of this turn are named after the index its message will have in storage: unique in the run, stable on resume.
  // The provider streams inside the chat span's context (its HTTP spans nest under it when the host propagates context).
  const callModel = (messages: typeof request.messages) =>
    otelContext.with(chat.context, () =>
      runModelTurn(
        {
          provider: deps.provider,
          model: deps.settings.model,
          maxTokens: deps.settings.maxTokens,
          thinking: deps.settings.thinking,
          temperature: deps.settings.temperature,
          systemPrompt:
            [deps.settings.systemPrompt, memorySnapshotOf(session)].filter(Boolean).join('\n\n') || undefined,
          maxInputBytes: deps.settings.maxInputBytes,
        },
        {
          messages,
          tools: request.tools,
          callPrefix: `call_${session.storedCount}`,
          signal: lease.signal,
        },
        streamSink(loop, session),
      ),
    );
  try {
    turn = await callModel(request.messages);
    const images = deps.images;
    if (images && imagesRefused(turn) && hasImages(request.messages)) {
      // The provider refused the images: this call once more without them, and the rest of the drive text-only.
      images.refuse(session.id);
      session.emit('warning', {
        source: 'runtime',
        code: 'PROVIDER_HTTP',
        message: 'the provider refused the images of a tool result (HTTP 400); the call was sent again text-only',
      });
      const first = turn;
      turn = await callModel(images.textOnly(request.messages));
      session.addUsage({
        modelCalls: 1,
        inputTokens: first.usage.inputTokens,
        outputTokens: first.usage.outputTokens,
        costUsd: first.costUsd,
      });
    }
  } catch (error) {
    loop.tracer.endWithError(chat, error);
    throw error;
  }
  loop.tracer.endChat(chat, turn);
  session.addUsage({
    modelCalls: 1,
    inputTokens: turn.usage.inputTokens,
    outputTokens: turn.usage.outputTokens,
    costUsd: turn.costUsd,
  });
  if (turn.aborted) return interruptedBy(lease);
  if (turn.message.content.length > 0) session.append(turn.message);
  if (turn.error) return { kind: 'failed', code: turn.error.code ?? 'MODEL_FAILED', message: turn.error.message };

  const calls = turn.message.content.filter((p): p is ToolCallPart => p.type === 'tool_call');
  const text = turn.message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  const prompts = await loop.pipeline.afterModelTurn(session, turn.message, calls, text, turn.request);
  if (calls.length === 0) {
    if (session.stop) return stopDrive(session, session.stop);
    if (prompts.length > 0) {
      for (const prompt of prompts) session.append({ role: 'user', content: prompt });
      return (await commitStep(deps, session)) ? { kind: 'repeat' } : STOPPED;
    }
    session.patch({ finalText: text || null, step: session.run.mode === 'execute' ? 'goal_settled' : 'finalize' });
    return (await commitStep(deps, session)) ? { kind: 'ended' } : STOPPED;
  }
  const calling = new TurnCalls(calls, turn.failures);
  const opened = await openNextCall(loop, session, calling);
  if (opened.kind === 'run')
    return (await commitBeforeCall(loop, session, calling)) ? { kind: 'calls', turn: calling } : STOPPED;
  if (opened.kind === 'turn_done') return (await commitStep(deps, session)) ? { kind: 'repeat' } : STOPPED;
  return opened;
}
