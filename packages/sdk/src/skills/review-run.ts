// One background learning review: the conversation copied, the review prompt appended, at most 16
// model calls under an input-token budget, and only the whitelisted tools executed.
import type { JsonValue } from '../core/records';
import { isMediaAgentError, MediaAgentError } from '../core/errors';
import { costOf, priceFor } from '../models/cost';
import type {
  AssistantMessage,
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelUsage,
  StopReason,
  ToolCallPart,
} from '../models/types';
import { appendThinkingDelta } from '../models/thinking-parts';
import { isTruncatedReply, truncatedCallFailures, truncatedTurnsExhausted } from '../models/truncated-reply';
import { SkillError } from './skill-error';
import type { SkillOperation, SkillStore, SkillWriteOrigin } from '../ports/skill-store';
import { reviewPrompt } from './review-prompts';
import { reviewInputBudget } from './review-triggers';
import { reviewDispatch } from './review-whitelist';
import { createSkillReadLog } from './skill-read-log';

/**
 * Where a review's `memory` calls go (the host's memory store); without one a memory call is refused.
 * @public
 */
export interface MemoryReviewHook {
  /**
   * Runs one `memory` call of a background review for `userId` (stage replace/remove, write adds…).
   * `cancelled()` turns true when new input arrived: check it before writing.
   */
  call(userId: string, input: unknown, context: { cancelled: () => boolean }): Promise<JsonValue>;
}

/**
 * Compacts a review's conversation before a model call (every call but the first, which goes out
 * unchanged so the provider's prompt cache is reused), or returns undefined when it fits.
 * @public
 */
export type ReviewCompactor = (
  messages: readonly ModelMessage[],
  signal?: AbortSignal,
) => Promise<{ messages: ModelMessage[]; usage: ReviewUsage } | undefined>;

/** Usage of a review (or of its compaction): model calls, tokens and cost in USD. @public */
export interface ReviewUsage {
  /** Model calls. */
  readonly modelCalls: number;
  /** Input tokens (reported, or estimated when the provider reported none). */
  readonly inputTokens: number;
  /** Output tokens. */
  readonly outputTokens: number;
  /** Cost in USD from the model's price (0 when unknown). */
  readonly costUsd: number;
}

/** What {@link runLearningReview} needs. @public */
export interface LearningReviewOptions {
  /** The conversation's model provider (the review uses the same instance). */
  readonly provider: ModelProvider;
  /**
   * The conversation's final request exactly as it was sent: the model id and settings (`maxTokens`,
   * `thinking`, `temperature`), the system prompt first, the messages and the tool schemas. The review
   * copies it (never changes it) and sends the same settings, system prompt and tools, so the first
   * review call reuses the prompt-cache prefix; only execution is filtered.
   */
  readonly request: Readonly<ModelRequest>;
  /** The reply to that request (the delivered final answer), appended after its messages. */
  readonly reply?: AssistantMessage;
  /** Which reviews are due. */
  readonly due: { readonly memory: boolean; readonly skills: boolean };
  /** The review prompt: a non-empty string. @defaultValue `reviewPrompt(due)` */
  readonly prompt?: string;
  /** The personal skill library the review may read and write (absent: the skill tools are refused). */
  readonly store?: SkillStore;
  /** The person whose skills and memory the review maintains. */
  readonly userId: string;
  /** The conversation, stamped on what the review writes. */
  readonly origin?: SkillWriteOrigin;
  /** Memory writes for a memory review (absent: `memory` answers "memory unavailable"). */
  readonly memory?: MemoryReviewHook;
  /**
   * The model's context window in tokens: the input budget (input tokens over all the review's calls)
   * is 75 % of it, at most 600 000; 120 000 when unknown.
   */
  readonly contextWindowTokens?: number;
  /** Most model calls. @defaultValue 16 */
  readonly maxModelCalls?: number;
  /** Aborted when new foreground input cancels the review: no further call, and writes are refused. */
  readonly signal?: AbortSignal;
  /** Told of every call the whitelist refused (the host's audit); awaited before the model is answered. */
  readonly onDenied?: (tool: string, input: unknown) => void | Promise<void>;
  /** The review's own compaction, before every model call but the first (default: none). */
  readonly compact?: ReviewCompactor;
  /**
   * Counts the input tokens of a request whose provider reported no usage (a conservative estimate
   * stands in for the reported figure).
   * @defaultValue UTF-8 JSON length ÷ 3
   */
  readonly countTokens?: (request: Readonly<ModelRequest>) => number;
}

/** One tool call of a review, as the transcript records it. @public */
export interface ReviewCallRecord {
  /** The tool the review model called. */
  readonly tool: string;
  /** `ok`, `error` (the tool refused it) or `denied` (not on the review's whitelist). */
  readonly outcome: 'ok' | 'error' | 'denied';
  /** The error or denial code, when not `ok`. */
  readonly code?: string;
}

/** What a review did. @public */
export interface LearningReviewResult {
  /** Why it ended: the model stopped calling tools, the call limit, the input budget, cancellation, a provider failure or replies cut by the output limit (`model_error`). */
  readonly ended: 'done' | 'call_limit' | 'budget' | 'cancelled' | 'model_error';
  /** Model calls the review made (at most 16). */
  readonly modelCalls: number;
  /** Input tokens of every model call, compaction included (added to the conversation's usage). */
  readonly inputTokens: number;
  /** Output tokens of those calls. */
  readonly outputTokens: number;
  /** Cost in USD of those calls (0 when the model's price is unknown). */
  readonly costUsd: number;
  /** Model calls of its compactions (not counted in `modelCalls`). */
  readonly compactions: number;
  /** Tool calls in order. */
  readonly calls: readonly ReviewCallRecord[];
  /** Successful writes (skill_manage and memory calls that succeeded). */
  readonly writes: number;
  /**
   * The review's own messages: its prompt, then each model reply and tool result in order (never shown
   * to the user, never archived; for the host's logs and tests).
   */
  readonly transcript: readonly ModelMessage[];
}

function parseArgs(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return {};
  }
}

/** A conservative token estimate: UTF-8 bytes of the request's JSON ÷ 3. */
const estimateTokens = (request: Readonly<ModelRequest>) =>
  Math.ceil(Buffer.byteLength(JSON.stringify([request.messages, request.tools ?? []])) / 3);

/**
 * Runs one background learning review.
 *
 * @remarks
 * The model sees the conversation's final request and reply unchanged (same model settings, system
 * prompt and tool schemas), plus the review prompt. Only `skills_list`, `skill_view`, `skill_manage`
 * run (as background writes: read-before-write, ownership guards), `memory` only when a memory review
 * is due (through `memory`), `read_skill` and `read_file` inside a skill are mapped to `skill_view`;
 * anything else is refused with one message naming the substitutes (and reported to `onDenied`).
 * Review text never reaches the user. Before every call the input tokens used so far (as reported —
 * uncached input, so a cached prefix costs little — or estimated when a call reported none) are checked
 * against the budget; calls after the first pass through `compact`, which keeps each request within the
 * window. Stops when the model calls no tool, after `maxModelCalls`, at the budget, on `signal`, or when the
 * provider fails (never throws for it: `model_error`, with the usage spent so far). A reply cut by the output
 * limit (`max_tokens`) runs none of its calls: each is answered `TOOL_CALL_TRUNCATED`; three such replies in a
 * row end the review `model_error`.
 * @throws `OPTIONS_INVALID` when `prompt` is given but is not a non-empty string (no model call is made)
 * @example
 * ```ts
 * const result = await runLearningReview({ provider, request, reply, due: { memory: false, skills: true }, store, userId: 'alice' });
 * ```
 * @public
 */
export async function runLearningReview(options: LearningReviewOptions): Promise<LearningReviewResult> {
  const { provider, store, userId, due, signal } = options;
  const custom: unknown = options.prompt;
  if (custom !== undefined && (typeof custom !== 'string' || !custom.trim()))
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      `the review prompt (learning.prompt) must be a non-empty string; got ${typeof custom === 'string' ? JSON.stringify(custom) : typeof custom}`,
      { option: 'learning.prompt' },
    );
  const base = options.request;
  const prompt: ModelMessage = { role: 'user', content: options.prompt ?? reviewPrompt(due) };
  let messages: ModelMessage[] = [
    ...structuredClone(base.messages as ModelMessage[]),
    ...(options.reply ? [structuredClone(options.reply)] : []),
    prompt,
  ];
  const transcript: ModelMessage[] = [prompt];
  const budget = reviewInputBudget(options.contextWindowTokens);
  const maxCalls = options.maxModelCalls ?? 16;
  const count = options.countTokens ?? estimateTokens;
  const price = priceFor(base.model);
  const reads = createSkillReadLog();
  const cancelled = () => signal?.aborted === true;
  const calls: ReviewCallRecord[] = [];
  let inputTokens = 0;
  let outputTokens = 0;
  let costUsd = 0;
  let modelCalls = 0;
  let compactions = 0;
  let writes = 0;
  let truncatedInARow = 0;
  const result = (ended: LearningReviewResult['ended']): LearningReviewResult => ({
    ended,
    modelCalls,
    inputTokens,
    outputTokens,
    costUsd,
    compactions,
    calls,
    writes,
    transcript,
  });
  const record = (m: ModelMessage) => {
    messages.push(m);
    transcript.push(m);
  };

  for (;;) {
    if (cancelled()) return result('cancelled');
    if (modelCalls >= maxCalls) return result('call_limit');
    if (modelCalls > 0 && options.compact) {
      const compacted = await options.compact(messages, signal).catch(() => undefined);
      if (compacted) {
        messages = compacted.messages;
        // The review prompt is never summarized away: it goes back right after the summary.
        if (!messages.includes(prompt))
          messages.splice(
            Math.max(
              0,
              messages.findIndex((m) => m.role !== 'system'),
            ) + 1,
            0,
            prompt,
          );
        compactions += compacted.usage.modelCalls;
        inputTokens += compacted.usage.inputTokens;
        outputTokens += compacted.usage.outputTokens;
        costUsd += compacted.usage.costUsd;
      }
      if (cancelled()) return result('cancelled');
    }
    // The request copies every setting of the conversation's (model, maxTokens, thinking, temperature, tools).
    const request: ModelRequest = { ...base, messages: [...messages], tools: [...(base.tools ?? [])] };
    if (inputTokens >= budget) return result('budget');
    modelCalls++;
    // The reply in stream order: thinking blocks (with their signatures), text and tool calls go back to the
    // provider on the review's next call exactly as they came, as the provider's own tool loop requires.
    const content: AssistantMessage['content'] = [];
    const usage: ModelUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    let reported = false;
    let failed = false;
    let stopReason: StopReason | undefined;
    const failures = new Map<string, string>();
    try {
      for await (const event of provider.stream(request, signal)) {
        if (event.type === 'text_delta') {
          const last = content[content.length - 1];
          if (last?.type === 'text') last.text += event.text;
          else content.push({ type: 'text', text: event.text });
        } else if (event.type === 'thinking_delta') appendThinkingDelta(content, event);
        else if (event.type === 'tool_call_end') {
          // A tool the conversation did not offer still goes to the whitelist (which names the substitutes);
          // arguments that fail their schema are answered with the failure.
          const input = event.ok
            ? event.input
            : event.failure.code === 'TOOL_UNKNOWN'
              ? parseArgs(event.rawArguments)
              : undefined;
          content.push({
            type: 'tool_call',
            id: event.id,
            name: event.name,
            input,
            ...(event.signature !== undefined ? { signature: event.signature } : {}),
          });
          if (!event.ok && event.failure.code !== 'TOOL_UNKNOWN') failures.set(event.id, event.failure.message);
        } else if (event.type === 'usage') {
          reported = true;
          usage.inputTokens += event.usage.inputTokens;
          usage.outputTokens += event.usage.outputTokens;
          usage.cacheReadTokens += event.usage.cacheReadTokens;
          usage.cacheWriteTokens += event.usage.cacheWriteTokens;
        } else if (event.type === 'done') stopReason = event.stopReason;
        else if (event.type === 'error') failed = true;
      }
    } catch {
      // A provider that throws instead of reporting an error event: the call failed.
      failed = true;
    }
    if (!reported) usage.inputTokens = count(request);
    inputTokens += usage.inputTokens;
    outputTokens += usage.outputTokens;
    if (price) costUsd += costOf(usage, price);
    if (cancelled()) return result('cancelled');
    if (failed) return result('model_error');
    const toolCalls = content.filter((p): p is ToolCallPart => p.type === 'tool_call');
    record({ role: 'assistant', content });
    if (toolCalls.length === 0) return result('done');
    // A reply cut by the output limit runs none of its calls (their arguments may be cut short): each is
    // answered TOOL_CALL_TRUNCATED, and too many such replies in a row end the review.
    const truncated = isTruncatedReply(stopReason) ? truncatedCallFailures(toolCalls) : undefined;
    truncatedInARow = truncated ? truncatedInARow + 1 : 0;
    const names = new Set(store ? (await store.list(userId).catch(() => [])).map((s) => s.name) : []);
    for (const call of toolCalls) {
      const cut = truncated?.get(call.id);
      if (cut !== undefined) {
        calls.push({ tool: call.name, outcome: 'error', code: cut.code });
        const output = { success: false, code: cut.code, error: cut.message };
        record({
          role: 'tool',
          toolCallId: call.id,
          name: call.name,
          status: 'error',
          content: JSON.stringify(output),
        });
        continue;
      }
      const failure = failures.get(call.id);
      if (failure !== undefined) {
        calls.push({ tool: call.name, outcome: 'error', code: 'TOOL_ARGS_INVALID' });
        record({ role: 'tool', toolCallId: call.id, name: call.name, status: 'error', content: failure });
        continue;
      }
      const decision = reviewDispatch(call.name, call.input, due.memory, names);
      let output: JsonValue;
      let status: 'ok' | 'error' = 'ok';
      if (decision.kind === 'deny') {
        await options.onDenied?.(call.name, call.input);
        calls.push({ tool: call.name, outcome: 'denied' });
        output = { success: false, code: 'SKILL_REVIEW_TOOL_DENIED', error: decision.message };
        status = 'error';
      } else {
        try {
          output =
            decision.kind === 'memory'
              ? await memoryCall(options, decision.input, cancelled)
              : await skillCall(store, userId, decision.tool, decision.input, {
                  reads,
                  cancelled,
                  ...(options.origin ? { origin: options.origin } : {}),
                });
          if (decision.kind === 'memory' || decision.tool === 'skill_manage') writes++;
          calls.push({ tool: call.name, outcome: 'ok' });
        } catch (error) {
          const code = isMediaAgentError(error) ? error.code : 'SKILL_REVIEW_TOOL_FAILED';
          calls.push({ tool: call.name, outcome: 'error', code });
          output = { success: false, code, error: error instanceof Error ? error.message : String(error) };
          status = 'error';
        }
      }
      record({ role: 'tool', toolCallId: call.id, name: call.name, status, content: JSON.stringify(output) });
    }
    if (truncatedTurnsExhausted(truncatedInARow)) return result('model_error');
  }
}

async function memoryCall(
  options: LearningReviewOptions,
  input: unknown,
  cancelled: () => boolean,
): Promise<JsonValue> {
  if (!options.memory) throw new Error('memory is not available to this review');
  return options.memory.call(options.userId, input, { cancelled });
}

async function skillCall(
  store: SkillStore | undefined,
  userId: string,
  tool: 'skills_list' | 'skill_view' | 'skill_manage',
  input: unknown,
  context: { reads: ReturnType<typeof createSkillReadLog>; cancelled: () => boolean; origin?: SkillWriteOrigin },
): Promise<JsonValue> {
  if (!store) throw new SkillError('SKILL_UNAVAILABLE', 'personal skills are not configured on this host');
  const args = (input ?? {}) as Record<string, unknown>;
  if (tool === 'skills_list') return { success: true, skills: (await store.list(userId)) as unknown as JsonValue };
  if (tool === 'skill_view') {
    const v = await store.view(userId, String(args.name), args.file_path as string | undefined, context.reads);
    return {
      success: true,
      name: v.name,
      file_path: v.filePath,
      content: v.content,
      editable: v.editable,
      source: v.source,
      files: [...v.files],
    };
  }
  const r = await store.manage(userId, args.operations as SkillOperation[], { mode: 'background', ...context });
  return {
    success: true,
    applied: r.applied,
    skills: [...r.skills],
    ...(r.archivedTo ? { archived_to: r.archivedTo } : {}),
  };
}
