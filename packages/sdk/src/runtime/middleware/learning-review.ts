// Background learning reviews as one of the runtime's middleware: counts a conversation's user turns
// and tool-calling model responses, and after a delivered reply launches the review that is due.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import { summarizeInput } from '../../capabilities/input-summary';
import { actingForRun } from '../../core/acting-for';
import { parseActor } from '../../core/actor';
import type { JsonValue } from '../../core/records';
import type { RunRecord, RunUsage } from '../../core/run-records';
import type { MemoryService } from '../../memory/memory-service';
import type { TokenCounter } from '../../models/token-counter';
import type { AssistantMessage, ModelMessage, ModelProvider, ModelRequest } from '../../models/types';
import { isSummaryMessage } from '../context/compaction';
import { humanInputId } from '../loop/human-input';
import type { Clock } from '../../ports/clock';
import type { IdGenerator } from '../../ports/id-generator';
import type { Logger } from '../../ports/logger';
import type { SkillStore } from '../../ports/skill-store';
import type { StorageAdapter } from '../../ports/storage-adapter';
import { type MemoryReviewHook, type ReviewUsage, runLearningReview } from '../../skills/review-run';
import {
  countModelResponse,
  countUserTurn,
  initialCounters,
  type LearningCounters,
  reviewAfterTurn,
  unconstrainedTools,
} from '../../skills/review-triggers';
import { SkillError } from '../../skills/skill-error';
import type { ResolvedLearningOptions } from '../learning/learning-options';
import { addReviewUsage, type LearningReviews } from '../learning/learning-reviews';
import { reviewCompactor } from '../learning/review-compaction';
import type { RunMiddleware } from './run-middleware';
import { originRules } from '../unattended-origin';

/** What the learning-review middleware works with. */
export interface LearningReviewDeps {
  /** The `learning` option with defaults applied. */
  readonly settings: ResolvedLearningOptions;
  /** The reviews running in this process. */
  readonly reviews: LearningReviews;
  /** The conversation's model provider (reviews use the same instance). */
  readonly provider: ModelProvider;
  /** Counts a review's requests (budget and compaction). */
  readonly counter: TokenCounter;
  /** Runs (usage) and the audit trail (refused calls). */
  readonly storage: StorageAdapter;
  /** The capabilities (redaction of a refused call's input in its audit row). */
  readonly capabilities: CapabilityRegistry;
  /** Time. */
  readonly clock: Clock;
  /** Ids of audit rows. */
  readonly ids: IdGenerator;
  /** Where review outcomes are logged (counts only, never review text). */
  readonly logger: Logger;
  /** Personal skills, when configured (skill reviews). */
  readonly skills?: SkillStore | undefined;
  /** Stable memory, when configured (memory reviews). */
  readonly memory?: MemoryService | undefined;
}

/** The code of a call a review's whitelist refused (the audit row's reason starts with it). */
const DENIED_CODE = 'SKILL_REVIEW_TOOL_DENIED';
const DENIED_REASON = `${DENIED_CODE}: a background learning review may only run skill tools (and memory when a memory review is due)`;

/** The middleware's name, which is also its key in a run's runtime state (where its counters live). */
const LEARNING_STATE_KEY = 'learning_review';

const isCounters = (v: unknown): v is LearningCounters =>
  v !== null && typeof v === 'object' && typeof (v as LearningCounters).userTurns === 'number';

const sameUsage = (a: Readonly<RunUsage>, b: Readonly<RunUsage>) =>
  a.modelCalls === b.modelCalls &&
  a.inputTokens === b.inputTokens &&
  a.outputTokens === b.outputTokens &&
  a.costUsd === b.costUsd &&
  a.toolCalls === b.toolCalls;

/**
 * The middleware that launches background learning reviews (see `runLearningReview`).
 *
 * @remarks
 * Per conversation (a run and the messages that wake it): each message of a person (the goal, every
 * steering message, whether it woke the run or arrived while it ran) is a user turn, continuation prompts
 * and summaries never are (a memory review is due on every 10th, when memory is configured); every model response
 * that called tools counts once (a skill review is due at 10, when skills are configured; one calling
 * `skill_manage` resets the count). A review starts only after a reply was delivered and stored
 * (the model's last turn answered with text and called no tool — a turn a middleware such as the loop guard
 * cut short is not delivered; whatever the goal report then says of the run's effects, in every mode; not
 * after a cancel or a budget stop), for runs a person started (not background, not
 * subagents), and never for a request that carried provider-native tools; a due review carries over
 * failed or cancelled turns. New input to the conversation cancels a running review and waits at most
 * `cancelWaitMs`; a review that outlives that has its later writes refused. The review's usage is added
 * to the conversation's run when it ends — written at once unless a drive is in progress, which then charges
 * it with its next step or stores it at its end; calls its whitelist refused are audited as `capability.denied`.
 */
export function learningReviewMiddleware(deps: LearningReviewDeps): RunMiddleware {
  const { settings, reviews, storage, logger } = deps;
  /** The final request and reply of each run in flight (what a review copies). */
  const last = new Map<string, { request: Readonly<ModelRequest>; reply: AssistantMessage }>();
  /** The counters of each run as last saved (what `onRunEnd`, which has no state, decides from). */
  const latest = new Map<string, LearningCounters>();
  /**
   * The lease owner of each run whose drive in this process has ended (its last step stored) and that no
   * drive has taken up since: a review's usage may be written while that lease is still held.
   */
  const ended = new Map<string, string | null>();
  const counters = (state: { get(): JsonValue | undefined }) => {
    const v = state.get();
    return isCounters(v) ? v : initialCounters();
  };
  /** The counters with only the reviews this host can run marked due. */
  const keep = (c: LearningCounters): LearningCounters => ({
    ...c,
    memoryDue: deps.memory !== undefined && c.memoryDue,
    skillDue: !!deps.skills && c.skillDue,
  });
  const save = (runId: string, state: { set(value: JsonValue): void }, c: LearningCounters) => {
    const kept = keep(c);
    latest.set(runId, kept);
    state.set(kept as unknown as JsonValue);
  };

  /**
   * Stores the counters a launch cleared in the run's state, while the ending drive still holds the run
   * (its last step is stored, nothing of the drive writes after `onRunEnd`): whichever process drives the
   * next turn starts from them, so a restart or another host does not launch the same review again.
   */
  const store = async (run: RunRecord, c: LearningCounters) => {
    const state = run.runtimeState;
    const base = state !== null && typeof state === 'object' && !Array.isArray(state) ? state : {};
    const written =
      run.leaseOwner !== null &&
      (await storage.runs.patch(
        run.id,
        { runtimeState: { ...base, [LEARNING_STATE_KEY]: keep(c) as unknown as JsonValue } },
        run.leaseOwner,
      ));
    if (!written) logger.warn('the learning counters could not be stored; a review may repeat', { runId: run.id });
  };

  const restoredCounters = async (runId: string) => {
    const stored = await storage.messages.list(runId);
    const genuine = stored.filter((r) => {
      const m = r.message as { role?: unknown } | null;
      return m?.role === 'user' && !isSummaryMessage(m as ModelMessage);
    });
    return initialCounters(genuine.length);
  };

  /**
   * Adds a finished review's usage to its run: now when no drive is in progress (no lease, an expired one,
   * or the lease of a drive of this process that already stored its end), else through the drive in
   * progress (its next step, or its end).
   */
  const attribute = async (runId: string, usage: ReviewUsage) => {
    if (usage.modelCalls === 0 && usage.inputTokens === 0 && usage.outputTokens === 0) return;
    const run = await storage.runs.get(runId);
    if (!run) return;
    const driving =
      run.leaseOwner !== null &&
      (run.leaseExpiresAt ?? 0) > deps.clock.now() &&
      !(ended.has(runId) && ended.get(runId) === run.leaseOwner);
    if (driving) return reviews.owe(runId, usage);
    const next = { ...run.usage, ...addReviewUsage(run.usage, usage) };
    if (await storage.runs.patch(runId, { usage: next })) reviews.saved(runId, { before: run.usage, delta: usage });
    else reviews.owe(runId, usage);
  };

  const audit = async (runId: string, tool: string, input: unknown) => {
    const redact = deps.capabilities.has(tool) ? deps.capabilities.get(tool).redact : undefined;
    await storage.audit.append({
      id: deps.ids.next('aud'),
      seq: 0,
      at: deps.clock.now(),
      action: 'capability.denied',
      actor: `agent:${runId}`,
      capabilityId: tool,
      invocationId: deps.ids.next('inv'),
      runId,
      taskId: null,
      outcome: 'denied',
      approvalId: null,
      grantId: null,
      idempotencyKey: null,
      inputSummary: summarizeInput(input, redact ?? []),
      reason: DENIED_REASON,
    });
  };

  return {
    name: LEARNING_STATE_KEY,
    async onDriveStart(ctx) {
      ended.delete(ctx.run.id);
      if (await reviews.cancel(ctx.run.id, settings.cancelWaitMs))
        logger.warn('a cancelled background learning review did not stop in time; its writes are refused', {
          runId: ctx.run.id,
          waitedMs: settings.cancelWaitMs,
        });
      const { owed, saved } = reviews.take(ctx.run.id);
      // A review that saved its usage after this drive loaded the run: the drive's own writes would drop it.
      if (saved && sameUsage(ctx.usage, saved.before)) ctx.chargeUsage(saved.delta);
      if (owed) ctx.chargeUsage(owed);
      const fresh = ctx.state.get() === undefined;
      // A conversation that already has turns but no counters (stored before reviews were on): start from
      // its genuine user messages so far.
      const c = fresh && ctx.woken ? await restoredCounters(ctx.run.id) : counters(ctx.state);
      save(ctx.run.id, ctx.state, c);
    },
    beforeModelRequest(ctx) {
      // A person's input (the goal, each steering message) reaches the model once: each is one user turn.
      // Only messages appended during this drive carry the mark; continuation prompts and summaries never do.
      const seen = ctx.state.local(() => new Set<string>());
      let c = counters(ctx.state);
      const before = c;
      for (const m of ctx.history) {
        const id = humanInputId(m);
        if (id === undefined || seen.has(id)) continue;
        seen.add(id);
        c = countUserTurn(c);
      }
      if (c !== before) save(ctx.run.id, ctx.state, c);
    },
    afterModelTurn(ctx) {
      // A cancelled review that ended during this drive: its usage goes with this step.
      const owed = reviews.takeOwed(ctx.run.id);
      if (owed) ctx.chargeUsage(owed);
      const c = countModelResponse(counters(ctx.state), {
        toolCalls: ctx.calls.length,
        calledSkillManage: ctx.calls.some((call) => call.name === 'skill_manage'),
      });
      save(ctx.run.id, ctx.state, c);
      last.set(ctx.run.id, { request: ctx.request, reply: ctx.message as AssistantMessage });
    },
    async onRunEnd(ctx) {
      const run = ctx.run;
      const final = last.get(run.id);
      const c = latest.get(run.id);
      last.delete(run.id);
      latest.delete(run.id);
      const stored = await storage.runs.get(run.id);
      // This drive's last step is stored: usage a review owes the run is written now, not at a later drive.
      ended.set(run.id, stored?.leaseOwner ?? null);
      const owed = reviews.takeOwed(run.id);
      if (owed) await attribute(run.id, owed);
      // `ended` is kept only while a review of the run runs (it is what may still write the usage).
      const settle = () => {
        if (!reviews.has(run.id)) ended.delete(run.id);
      };
      const person = stored ? actingForRun(stored) : undefined;
      const interactive = originRules(run.origin).learningReview && run.depth === 0 && person !== undefined;
      if (!final || !c || !interactive) return settle();
      // A reply is delivered when the model's last turn answered the person: a turn that called tools and
      // was cut short (a middleware such as the loop guard paused the run) is not, and has no results to copy.
      // The goal report judges effects, not the reply: a run whose download failed still answered its person.
      const delivered =
        (ctx.status === 'succeeded' || ctx.status === 'waiting' || ctx.status === 'failed') &&
        final.reply.content.length > 0 &&
        !final.reply.content.some((part) => part.type === 'tool_call');
      const decision = reviewAfterTurn(c, {
        outcome: delivered ? 'delivered' : 'failed',
        interactive,
        reviewRunning: reviews.has(run.id),
        nativeTools: unconstrainedTools(final.request).length > 0,
      });
      if (decision.counters !== c && stored) await store(stored, decision.counters);
      if (!decision.launch) return settle();
      const due = { memory: decision.launch.memory, skills: decision.launch.skills };
      const userId = parseActor(person!).id;
      const memory = deps.memory;
      reviews.launch(run.id, async (signal) => {
        try {
          const result = await runLearningReview({
            provider: deps.provider,
            request: final.request,
            reply: final.reply,
            due,
            userId,
            origin: { sessionId: run.id, messageIds: [] },
            signal,
            maxModelCalls: settings.maxModelCalls,
            ...(settings.prompt ? { prompt: settings.prompt(due) } : {}),
            ...(deps.skills ? { store: deps.skills } : {}),
            ...(memory && due.memory ? { memory: memoryReviewHook(memory) } : {}),
            ...(settings.contextWindowTokens ? { contextWindowTokens: settings.contextWindowTokens } : {}),
            onDenied: (tool, input) => audit(run.id, tool, input),
            countTokens: (request) => deps.counter.countRequest(request.messages, request.tools, request.model),
            compact: reviewCompactor({
              provider: deps.provider,
              model: final.request.model,
              counter: deps.counter,
              tools: final.request.tools ?? [],
              contextWindowTokens: settings.contextWindowTokens,
            }),
          });
          // A review that outlived host.stop() cannot store its usage; it is still reported.
          await attribute(run.id, {
            modelCalls: result.modelCalls + result.compactions,
            inputTokens: result.inputTokens,
            outputTokens: result.outputTokens,
            costUsd: result.costUsd,
          }).catch((error: Error) =>
            logger.warn("a background learning review's usage could not be added to its run", {
              runId: run.id,
              modelCalls: result.modelCalls + result.compactions,
              message: error.message,
            }),
          );
          logger.info('background learning review ended', {
            runId: run.id,
            memory: due.memory,
            skills: due.skills,
            ended: result.ended,
            modelCalls: result.modelCalls,
            writes: result.writes,
            denied: result.calls.filter((call) => call.outcome === 'denied').length,
          });
          try {
            await settings.onReview?.({ runId: run.id, userId, due, result });
          } catch (error) {
            logger.warn('learning.onReview threw', { runId: run.id, message: (error as Error).message });
          }
        } catch (error) {
          logger.warn('a background learning review failed', {
            runId: run.id,
            code: (error as { code?: unknown }).code,
            message: (error as Error).message,
          });
        } finally {
          ended.delete(run.id);
        }
      });
      settle();
    },
  };
}

/**
 * A {@link MemoryReviewHook} over the host's stable memory: a review's `memory` call is a background
 * write of the user's own memory (adds are written, any replace or remove is staged as a proposal for
 * the person to approve); refused once the review was cancelled.
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
