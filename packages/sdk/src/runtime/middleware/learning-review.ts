// Background learning reviews as a run middleware: counts a conversation's user turns and
// tool-calling model responses, and after a delivered reply launches the review that is due.
import { isHumanActor, parseActor } from '../../core/actor';
import type { JsonValue } from '../../core/records';
import type { ModelMessage, ModelProvider, ModelTool } from '../../models/types';
import type { MemoryService } from '../../memory/memory-service';
import type { SkillStore } from '../../ports/skill-store';
import { SkillError } from '../../skills/skill-error';
import { type LearningReviewResult, type MemoryReviewHook, runLearningReview } from '../../skills/review-run';
import {
  countModelResponse,
  countUserTurn,
  initialCounters,
  type LearningCounters,
  reviewAfterTurn,
} from '../../skills/review-triggers';
import type { RunMiddleware } from './run-middleware';

/** Options of {@link learningReviewMiddleware}. @public */
export interface LearningReviewMiddlewareOptions {
  /** The user's skills (the same store as the host's `skills` option). */
  readonly store: SkillStore;
  /** The conversation's model provider and model id (reviews use the same). */
  readonly provider: ModelProvider;
  /** The model id the review uses (the conversation's). */
  readonly model: string;
  /** The system prompt the conversation's runs use (the host's `runs.systemPrompt` layers), so the review keeps the cache prefix. */
  readonly systemPrompt?: string;
  /** Told of every call a review's whitelist refused, for the host's audit (`runId` is the conversation). */
  readonly onDenied?: (runId: string, tool: string, input: unknown) => void;
  /** Where memory review calls go; without it only skill reviews run. */
  readonly memory?: MemoryReviewHook;
  /** The model's context window in tokens (the review's input budget derives from it). */
  readonly contextWindowTokens?: number;
  /** Longest wait for a running review to stop when new input arrives, in ms. @defaultValue 2000 */
  readonly cancelWaitMs?: number;
  /** Told when a review ends (its usage belongs to the conversation `runId`). */
  readonly onReview?: (runId: string, kind: { memory: boolean; skills: boolean }, result: LearningReviewResult) => void;
  /** Told when a review fails unexpectedly. */
  readonly onError?: (runId: string, error: unknown) => void;
}

/** A running review of one conversation. */
interface RunningReview {
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/** The host's handle on reviews: wait for the running ones (tests, shutdown). @public */
export interface LearningReviewMiddleware extends RunMiddleware {
  /** Resolves when no review is running. */
  idle(): Promise<void>;
}

const isCounters = (v: unknown): v is LearningCounters =>
  v !== null && typeof v === 'object' && typeof (v as LearningCounters).userTurns === 'number';

/**
 * A run middleware that launches background learning reviews (see {@link runLearningReview}).
 *
 * @remarks
 * Per conversation (a run and the messages that wake it): every drive a person starts or steers is a
 * user turn (a memory review is due on every 10th, when `memory` is given); every model response that
 * called tools counts once (a skill review is due at 10; one calling `skill_manage` resets the count).
 * A review starts only after a reply was delivered and stored (`succeeded` or `waiting` for the
 * person), for interactive runs started by a person, never for scheduled, internal or subagent runs;
 * a due review carries over failed or cancelled turns. New input to the conversation cancels a running
 * review and waits at most `cancelWaitMs`; a review that outlives that has its later writes refused.
 * @example
 * ```ts
 * const reviews = learningReviewMiddleware({ store, provider, model: 'claude-sonnet-4-5' });
 * const host = createAgentHost({ model: { provider, model: 'claude-sonnet-4-5' }, skills: { store }, runs: { middleware: [reviews] } });
 * ```
 * @public
 */
export function learningReviewMiddleware(options: LearningReviewMiddlewareOptions): LearningReviewMiddleware {
  const running = new Map<string, RunningReview>();
  /** The last request and reply of each run in flight (what a review copies). */
  const last = new Map<string, { messages: ModelMessage[]; tools: ModelTool[] }>();
  /** Counters cleared by a launch, written back at the run's next drive. */
  const cleared = new Map<string, LearningCounters>();
  const memoryEnabled = options.memory !== undefined;

  const counters = (state: { get(): JsonValue | undefined }) => {
    const v = state.get();
    return isCounters(v) ? v : initialCounters();
  };
  /** The counters of each run as last saved (what `onRunEnd`, which has no state, decides from). */
  const latest = new Map<string, LearningCounters>();
  const save = (runId: string, state: { set(value: JsonValue): void }, c: LearningCounters) => {
    const kept = { ...c, memoryDue: memoryEnabled && c.memoryDue };
    latest.set(runId, kept);
    state.set(kept as unknown as JsonValue);
  };

  return {
    name: 'learning-review',
    async onDriveStart(ctx) {
      const review = running.get(ctx.run.id);
      if (review) {
        review.controller.abort();
        await Promise.race([review.done, new Promise((r) => setTimeout(r, options.cancelWaitMs ?? 2000))]);
      }
      let c = cleared.get(ctx.run.id) ?? counters(ctx.state);
      cleared.delete(ctx.run.id);
      const firstDrive = ctx.state.get() === undefined;
      if (firstDrive || ctx.woken) c = countUserTurn(c);
      save(ctx.run.id, ctx.state, c);
    },
    beforeModelRequest(ctx) {
      last.set(ctx.run.id, { messages: ctx.messages, tools: ctx.tools });
    },
    afterModelTurn(ctx) {
      const c = countModelResponse(counters(ctx.state), {
        toolCalls: ctx.calls.length,
        calledSkillManage: ctx.calls.some((call) => call.name === 'skill_manage'),
      });
      save(ctx.run.id, ctx.state, c);
      const request = last.get(ctx.run.id);
      if (request) last.set(ctx.run.id, { ...request, messages: [...request.messages, ctx.message as ModelMessage] });
    },
    async onRunEnd(ctx) {
      const run = ctx.run;
      const request = last.get(run.id);
      const c = latest.get(run.id);
      last.delete(run.id);
      latest.delete(run.id);
      const interactive = run.origin !== 'background' && run.depth === 0 && isHumanActor(run.startedBy);
      const delivered = ctx.status === 'succeeded' || ctx.status === 'waiting';
      if (!request || !c || !interactive) return;
      const stored = request.messages.at(-1)?.role === 'assistant';
      const decision = reviewAfterTurn(c, {
        outcome: delivered && stored ? 'delivered' : 'failed',
        interactive,
        reviewRunning: running.has(run.id),
        nativeTools: false,
      });
      if (!decision.launch) return;
      cleared.set(run.id, decision.counters);
      const kind = { memory: decision.launch.memory && memoryEnabled, skills: decision.launch.skills };
      if (!kind.memory && !kind.skills) return;
      const controller = new AbortController();
      const userId = parseActor(run.startedBy).id;
      const done = runLearningReview({
        provider: options.provider,
        model: options.model,
        messages: request.messages,
        tools: request.tools,
        due: kind,
        store: options.store,
        userId,
        origin: { sessionId: run.id, messageIds: [] },
        signal: controller.signal,
        ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
        ...(options.onDenied
          ? { onDenied: (tool: string, input: unknown) => options.onDenied?.(run.id, tool, input) }
          : {}),
        ...(options.memory ? { memory: options.memory } : {}),
        ...(options.contextWindowTokens ? { contextWindowTokens: options.contextWindowTokens } : {}),
      })
        .then((result) => options.onReview?.(run.id, kind, result))
        .catch((error) => options.onError?.(run.id, error))
        .finally(() => {
          if (running.get(run.id)?.controller === controller) running.delete(run.id);
        });
      running.set(run.id, { controller, done });
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running.values()].map((r) => r.done));
    },
  };
}

/**
 * A {@link MemoryReviewHook} over the host's stable memory: a review's `memory` call is a background
 * write of the user's own memory (adds are written, any replace or remove is staged as a proposal for
 * the person to approve); refused once the review was cancelled.
 * @example
 * ```ts
 * learningReviewMiddleware({ store, provider, model, memory: memoryReviewHook(memoryService) });
 * ```
 * @public
 */
export function memoryReviewHook(memory: MemoryService): MemoryReviewHook {
  return {
    async call(userId, input, { cancelled }) {
      if (cancelled())
        throw new SkillError('SKILL_REVIEW_CANCELLED', 'the review was cancelled; memory was not written');
      return (await memory.write(`user:${userId}`, input, { background: true })) as unknown as JsonValue;
    },
  };
}
