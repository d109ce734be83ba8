// The model-turn step: the checks before a model call, the request through the middleware, the
// turn itself, and what follows from the reply (the end of the drive, another turn, or its calls).
import { MODEL_OVERRIDE_STATE_KEY, modelOverrideOf } from '../fork/fork-state';
import { checkRunBudgets, type RunBudgets } from '../run-budgets';
import type { ModelProvider, ModelTool, ToolCallPart } from '../../models/types';
import { commitStep } from './commit';
import {
  commitBeforeCall,
  deferCommit,
  flushWaitingWrites,
  whileWaiting,
  WAITING_LOST,
  type DeferredCommit,
} from './deferred-commit';
import { applyInbox } from './inbox-step';
import { answerSkillCommand } from './skill-command-step';
import { answerMemoryCommand, memorySnapshotOf } from './memory-step';
import type { Loop } from './loop';
import { runModelTurn, systemPromptOf, type ModelTurn, type ModelTurnSink } from './model-turn';
import { contextOverflowed, MAX_OVERFLOW_RETRIES, overflowRetryDue } from './overflow-retry';
import { isTruncatedReply, truncatedCallFailures, truncatedTurnsExhausted } from '../../models/truncated-reply';
import { estimateRequestTokens } from '../context/compaction';
import { correctionScale, observeOverflow, observeUsage } from '../context/token-correction';
import { interruptedBy, STOPPED, type DriveEnd } from './outcomes';
import { pauseDue, pauseStep } from './pause-step';
import type { RunSession, StopRequest } from './run-session';
import { openNextCall, stopDrive, TurnCalls } from './turn-calls';
import { context as otelContext } from '@opentelemetry/api';
import { hasImages } from '../images/image-delivery';
import { reservedCall, SpendCapReached } from './spend-step';
import { heldMs, SPEND_HOLD_STATE_KEY } from '../budgets/held-time';
import { modelCallUsage } from '../budgets/usage-by-model';
import { entryKey, type RouteEntry } from '../../models/routing/model-route';
import { isFallbackWorthy, turnFallsBack } from '../../models/routing/fallback-worthy';
import type { RunRoute } from '../../models/routing/route-state';

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

/** The lease was lost while writes waited through a model call. */
const LOST = Symbol('lost');

/**
 * Runs a model call while the writes of the steps before it wait (`deferred-commit.ts`): they commit with this
 * step, or on their own once they waited the commit window (`runs.commitWindowMs`), or before the call writes an
 * event on its own ({@link flushWaitingWrites}). `waiting` is the timer the step started before its prologue.
 * @returns the call's result, or {@link LOST} when their commit found the lease lost
 */
async function duringModelCall<T>(
  loop: Loop,
  session: RunSession,
  call: () => Promise<T>,
  started?: DeferredCommit,
): Promise<T | typeof LOST> {
  const waiting = started ?? deferCommit(loop, session);
  if (!waiting) return call();
  if (session.hasDeferred) session.deferredPastModelCall = true;
  let result: T;
  try {
    result = await call();
  } catch (error) {
    // Writes the timer did not take stay set aside: the failed drive commits them (run-phases.ts).
    await waiting.settle().catch(() => undefined);
    throw error;
  }
  return (await waiting.settle()) ? result : LOST;
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
      else {
        await flushWaitingWrites(session);
        await bus.emit(session.id, 'text_delta', { text });
      }
    },
    warning: async (w) => {
      await flushWaitingWrites(session);
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
  // The host is stopping: the step before was the last (committed); the run is left for the next worker.
  if (lease.drain?.aborted) return STOPPED;
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
    // Time held at a spending cap is not the run's own time.
    deps.clock.now() -
      (session.run.startedAt ?? session.run.createdAt) -
      heldMs(session.getState(SPEND_HOLD_STATE_KEY)),
  );
  if (breach) return { kind: 'budget', breach };
  if (pauseDue(session)) return (await pauseStep(loop, session)) ? { kind: 'repeat' } : STOPPED;
  if (session.stop) return stopDrive(session, session.stop);

  // The writes of the steps before (a closed turn's results, the start) wait through the request's preparation
  // (middleware, a compaction's summary call) and the model call, within the commit window (deferred-commit.ts).
  const waiting = deferCommit(loop, session);
  let request: PreparedTurnRequest;
  try {
    request = await loop.pipeline.beforeModelRequest(session, baseTools);
  } catch (error) {
    await waiting?.settle().catch(() => undefined);
    throw error;
  }
  if (session.stop) {
    if (waiting && !(await waiting.settle())) return STOPPED;
    return stopDrive(session, session.stop);
  }
  // Each call is reserved against the owner's and the household's spending budgets first; at a cap the run waits.
  const reserved = await duringModelCall(
    loop,
    session,
    () => budgeted(() => callTurn(loop, session, request)),
    waiting,
  );
  if (reserved === LOST) return STOPPED;
  if (reserved instanceof SpendCapReached) return { kind: 'budget_reached', breach: reserved.breach };
  let turn = reserved;
  // Refused as too large before any output: correct the estimate, compact to a smaller budget, send again.
  for (let retries = 0; contextOverflowed(turn); retries++) {
    const overflow = recordOverflow(loop, turn);
    if (!overflowRetryDue(retries, deps.settings.compactionThreshold > 0)) {
      const why = retries > 0 ? ` after ${retries} compaction${retries > 1 ? 's' : ''}` : '';
      return { kind: 'failed', code: 'PROVIDER_CONTEXT_OVERFLOW', message: `${turn.error!.message}${why}` };
    }
    session.emit('warning', {
      source: 'runtime',
      code: 'PROVIDER_CONTEXT_OVERFLOW',
      message: `the provider refused the request as too large for its context window; the conversation is compacted to a smaller budget and the call sent again (retry ${retries + 1} of ${MAX_OVERFLOW_RETRIES})`,
      details: overflow,
    });
    request = await loop.pipeline.beforeModelRequest(session, baseTools);
    const stop = session.stop as StopRequest | undefined;
    // Compaction cannot shrink the conversation to the corrected budget: the provider's refusal is the failure.
    if (stop?.code === 'CONTEXT_TURN_TOO_LARGE')
      return { kind: 'failed', code: 'PROVIDER_CONTEXT_OVERFLOW', message: `${turn.error!.message}; ${stop.message}` };
    if (stop) return stopDrive(session, stop);
    const resent = await duringModelCall(loop, session, () => budgeted(() => callTurn(loop, session, request)));
    if (resent === LOST) return STOPPED;
    if (resent instanceof SpendCapReached) return { kind: 'budget_reached', breach: resent.breach };
    turn = resent;
  }
  if (turn.aborted) return interruptedBy(lease);
  if (turn.message.content.length > 0) session.append(turn.message);
  if (turn.error) return { kind: 'failed', code: turn.error.code ?? 'MODEL_FAILED', message: turn.error.message };
  recordUsage(loop, turn);

  const calls = turn.message.content.filter((p): p is ToolCallPart => p.type === 'tool_call');
  const text = turn.message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  // A reply cut by the output limit runs none of its calls (each is answered TOOL_CALL_TRUNCATED).
  const truncated = isTruncatedReply(turn.stopReason) && calls.length > 0;
  session.truncatedTurns = truncated ? session.truncatedTurns + 1 : 0;
  // The middleware's view of the turn, and opening its first call, run while earlier writes still wait.
  const prompts = await whileWaiting(loop, session, () =>
    loop.pipeline.afterModelTurn(session, turn.message, calls, text, turn.request),
  );
  if (prompts === WAITING_LOST) return STOPPED;
  if (calls.length === 0) {
    if (session.stop) return stopDrive(session, session.stop);
    if (prompts.length > 0) {
      for (const prompt of prompts) session.append({ role: 'user', content: prompt });
      return (await commitStep(deps, session)) ? { kind: 'repeat' } : STOPPED;
    }
    session.patch({ finalText: text || null, step: session.run.mode === 'execute' ? 'goal_settled' : 'finalize' });
    // The final reply commits with the run's end, or on its own once reading the goal's facts takes
    // the commit window (`runs.commitWindowMs`, see run-phases.ts): a crash before then asks for the reply again; nothing ran since.
    session.defer();
    return { kind: 'ended' };
  }
  // Too many cut replies in a row end the run (their calls are answered blocked).
  if (truncated && truncatedTurnsExhausted(session.truncatedTurns)) {
    const message = `the model's last ${session.truncatedTurns} replies hit the output token limit (maxTokens ${deps.settings.maxTokens ?? 'provider default'}) before their tool calls were complete; none of their calls ran`;
    session.emit('warning', {
      source: 'runtime',
      code: 'MODEL_OUTPUT_TRUNCATED',
      message,
      details: { truncatedTurns: session.truncatedTurns, maxTokens: deps.settings.maxTokens ?? null },
    });
    session.stop ??= { code: 'MODEL_OUTPUT_TRUNCATED', message, kind: 'fail', by: 'the runtime', source: 'runtime' };
  }
  const calling = new TurnCalls(calls, truncated ? truncatedCallFailures(calls) : turn.failures);
  const opened = await whileWaiting(loop, session, () => openNextCall(loop, session, calling));
  if (opened === WAITING_LOST) return STOPPED;
  if (opened.kind === 'run')
    return (await commitBeforeCall(loop, session, calling)) ? { kind: 'calls', turn: calling } : STOPPED;
  if (opened.kind === 'turn_done') return (await commitStep(deps, session)) ? { kind: 'repeat' } : STOPPED;
  return opened;
}

/** The turn, or the spending cap that had no room for one of its calls. */
async function budgeted(call: () => Promise<ModelTurn>): Promise<ModelTurn | SpendCapReached> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof SpendCapReached) return error;
    throw error;
  }
}

/** The model request a turn step sends. */
type PreparedTurnRequest = Awaited<ReturnType<Loop['pipeline']['beforeModelRequest']>>;

/** The provider each turn of this process was sent to. */
const answeredBy = new WeakMap<ModelTurn, ModelProvider>();

/** The runtime-state key of the run's route: the fallback entry it moved to, and when (see `route-state.ts`). */
export const MODEL_ROUTE_STATE_KEY = 'model_route';

/** The entries a turn may use: the host's fallback chain, or the one provider of the run settings. */
function entriesOf(loop: Loop): readonly RouteEntry[] {
  const { deps } = loop;
  return (
    deps.route?.entries ?? [
      {
        provider: deps.provider,
        model: deps.settings.model,
        maxTokens: deps.settings.maxTokens,
        thinking: deps.settings.thinking,
      },
    ]
  );
}

/**
 * One model call of a turn step on the host's fallback chain (docs/providers.md#fallback-chains): the call on the
 * run's entry; when it fails with a fallback-worthy error (`fallback-worthy.ts`) after its provider's own retries,
 * a `model_fallback` event and the same request on the next entry, until one answers or the chain is used up
 * (the turn then fails with the last error). An attempt that already emitted text, reasoning or a tool call
 * never falls back: the turn fails with its typed error. Each attempt is charged once to its own provider.
 */
async function callTurn(loop: Loop, session: RunSession, request: PreparedTurnRequest): Promise<ModelTurn> {
  const { deps } = loop;
  const route = deps.route;
  // A fork made with another model (docs/forks.md#model-comparisons): that model on the primary entry, no fallback.
  const override = modelOverrideOf(session.getState(MODEL_OVERRIDE_STATE_KEY));
  if (override !== undefined) return callEntry(loop, session, request, { ...entriesOf(loop)[0]!, model: override });
  if (!route) return callEntry(loop, session, request, entriesOf(loop)[0]!);
  const stored = session.getState(MODEL_ROUTE_STATE_KEY) as RunRoute | undefined;
  let index = route.first(stored);
  for (;;) {
    const entry = route.entries[index]!;
    const turn = await callEntry(loop, session, request, entry);
    if (!turnFallsBack(turn)) {
      // Cut after output (text the person saw): the turn fails with its error; the entry still cools down.
      if (!turn.aborted && isFallbackWorthy(turn.error)) route.failed(index);
      else if (!turn.error && !turn.aborted) {
        route.answered(index);
        // The run stays on the entry that answered (sticky) until the cool-down has passed since it moved.
        if (index !== (stored?.entry ?? 0)) session.setState(MODEL_ROUTE_STATE_KEY, { entry: index, at: route.now() });
      }
      return turn;
    }
    const next = route.failed(index);
    if (next === undefined) return turn;
    const to = route.entries[next]!;
    await flushWaitingWrites(session);
    await deps.bus.emit(session.id, 'model_fallback', {
      from: { provider: entry.provider.id, model: entry.model },
      to: { provider: to.provider.id, model: to.model },
      code: turn.error!.code!,
      reason: turn.error!.message,
    });
    index = next;
  }
}

/**
 * One model call on one entry, inside its chat span (named after that entry's provider and model): the call, and
 * once more text-only when the provider refused the images of a tool result; usage is added to the run and to the
 * entry's `byModel` figures (the refused call's too).
 */
async function callEntry(
  loop: Loop,
  session: RunSession,
  request: PreparedTurnRequest,
  entry: RouteEntry,
): Promise<ModelTurn> {
  const { deps } = loop;
  const key = entryKey(entry);
  const systemPrompt =
    [deps.settings.systemPrompt, memorySnapshotOf(session)].filter(Boolean).join('\n\n') || undefined;
  const chat = loop.tracer.startChat(session.trace, {
    providerId: entry.provider.id,
    baseUrl: entry.provider.baseUrl,
    model: entry.model,
    maxTokens: entry.maxTokens,
    messages: [{ role: 'system', content: systemPromptOf(systemPrompt) }, ...request.messages],
  });
  let turn: ModelTurn;
  // Calls of this turn are named after the index its message will have in storage: unique in the run, stable on resume.
  // The provider streams inside the chat span's context (its HTTP spans nest under it when the host propagates context).
  const callModel = (messages: typeof request.messages) =>
    reservedCall(
      loop,
      session,
      // The worst case is estimated on what is sent: the system prompt too.
      { messages: [{ role: 'system', content: systemPromptOf(systemPrompt) }, ...messages], tools: request.tools },
      () =>
        otelContext.with(chat.context, () =>
          runModelTurn(
            {
              provider: entry.provider,
              model: entry.model,
              maxTokens: entry.maxTokens,
              thinking: entry.thinking,
              temperature: deps.settings.temperature,
              systemPrompt,
              maxInputBytes: deps.settings.maxInputBytes,
            },
            {
              messages,
              tools: request.tools,
              callPrefix: `call_${session.storedCount}`,
              signal: session.lease.signal,
            },
            streamSink(loop, session),
          ),
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
      session.addUsage(
        modelCallUsage(key, {
          inputTokens: first.usage.inputTokens,
          outputTokens: first.usage.outputTokens,
          costUsd: first.costUsd,
        }),
      );
    }
  } catch (error) {
    loop.tracer.endWithError(chat, error);
    throw error;
  }
  loop.tracer.endChat(chat, turn);
  answeredBy.set(turn, entry.provider);
  session.addUsage(
    modelCallUsage(key, {
      inputTokens: turn.usage.inputTokens,
      outputTokens: turn.usage.outputTokens,
      costUsd: turn.costUsd,
    }),
  );
  return turn;
}

/** The runtime's estimate of the request a turn sent (system prompt, messages, tools). */
function estimateOf(loop: Loop, turn: ModelTurn): number {
  return estimateRequestTokens(loop.deps.counter, turn.request.messages, turn.request.tools ?? [], turn.request.model);
}

/** The provider a turn was sent to (a fallback entry's, when one answered), for its token-estimate correction. */
function providerOf(loop: Loop, turn: ModelTurn): ModelProvider {
  return answeredBy.get(turn) ?? loop.deps.provider;
}

/**
 * Corrects the provider's token estimate from an overflow error (its stated counts, see
 * `token-correction.ts`), so the compaction before the resend aims at a smaller budget.
 * @returns the figures, for the warning event
 */
function recordOverflow(loop: Loop, turn: ModelTurn) {
  const details = (turn.error as { details?: { promptTokens?: unknown; limitTokens?: unknown } }).details ?? {};
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);
  const estimatedTokens = estimateOf(loop, turn);
  const promptTokens = count(details.promptTokens);
  const limitTokens = count(details.limitTokens);
  const correction = observeOverflow(providerOf(loop, turn), {
    estimatedTokens,
    windowTokens: loop.deps.settings.contextWindowTokens,
    promptTokens,
    limitTokens,
  });
  return {
    estimatedTokens,
    ...(promptTokens !== undefined ? { promptTokens } : {}),
    ...(limitTokens !== undefined ? { limitTokens } : {}),
    tokenScale: Math.round(correctionScale(correction) * 1000) / 1000,
  };
}

/** Corrects the provider's token estimate from a successful call's reported prompt tokens. */
function recordUsage(loop: Loop, turn: ModelTurn): void {
  const { inputTokens, cacheReadTokens, cacheWriteTokens } = turn.usage;
  const reported = inputTokens + cacheReadTokens + cacheWriteTokens;
  if (reported > 0) observeUsage(providerOf(loop, turn), estimateOf(loop, turn), reported);
}
