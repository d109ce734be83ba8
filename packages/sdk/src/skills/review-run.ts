// One background learning review: the conversation copied, the review prompt appended, at most 16
// model calls under an input-token budget, and only the whitelisted tools executed.
import type { JsonValue } from '../core/records';
import { isMediaAgentError } from '../core/errors';
import type { ModelMessage, ModelProvider, ModelTool, ToolCallPart } from '../models/types';
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

/** What {@link runLearningReview} needs. @public */
export interface LearningReviewOptions {
  /** The conversation's model provider and model id (the same as the conversation's). */
  readonly provider: ModelProvider;
  /** The model id the conversation used (the review uses the same). */
  readonly model: string;
  /** Output token limit per model call (default: the provider's). */
  readonly maxTokens?: number;
  /** The conversation's system prompt, sent first as a system message so the prompt-cache prefix is kept. */
  readonly systemPrompt?: string;
  /** The conversation's final request messages plus the final reply (copied, never changed). */
  readonly messages: readonly ModelMessage[];
  /** The conversation's tool schemas, offered unchanged (only execution is filtered). */
  readonly tools: readonly ModelTool[];
  /** Which reviews are due. */
  readonly due: { readonly memory: boolean; readonly skills: boolean };
  /** The review prompt. @defaultValue `reviewPrompt(due)` */
  readonly prompt?: string;
  /** The personal skill library the review may read and write. */
  readonly store: SkillStore;
  /** The person whose skills and memory the review maintains. */
  readonly userId: string;
  /** The conversation, stamped on what the review writes. */
  readonly origin?: SkillWriteOrigin;
  /** Memory writes for a memory review (absent: `memory` answers "memory unavailable"). */
  readonly memory?: MemoryReviewHook;
  /** The model's context window in tokens (the budget is 75 % of it, at most 600 000; 120 000 when unknown). */
  readonly contextWindowTokens?: number;
  /** Most model calls. @defaultValue 16 */
  readonly maxModelCalls?: number;
  /** Aborted when new foreground input cancels the review: no further call, and writes are refused. */
  readonly signal?: AbortSignal;
  /** Told of every call the whitelist refused (for the host's audit). */
  readonly onDenied?: (tool: string, input: unknown) => void;
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
  /** Why it ended: the model stopped calling tools, the call limit, the input budget, cancellation. */
  readonly ended: 'done' | 'call_limit' | 'budget' | 'cancelled' | 'model_error';
  /** Model calls the review made (at most 16). */
  readonly modelCalls: number;
  /** Usage, to add to the conversation's. */
  readonly inputTokens: number;
  /** Output tokens of those calls. */
  readonly outputTokens: number;
  /** Tool calls in order. */
  readonly calls: readonly ReviewCallRecord[];
  /** Successful writes (skill_manage and memory calls that succeeded). */
  readonly writes: number;
}

function parseArgs(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return {};
  }
}

const estimateTokens = (messages: readonly ModelMessage[]) => Math.ceil(JSON.stringify(messages).length / 4);

/**
 * Runs one background learning review.
 *
 * @remarks
 * The model sees the conversation and its tool schemas unchanged, plus the review prompt. Only
 * `skills_list`, `skill_view`, `skill_manage` run (as background writes: read-before-write, ownership
 * guards), `memory` only when a memory review is due (through `memory`), `read_skill` and `read_file`
 * inside a skill are mapped to `skill_view`; anything else is refused with one message naming the
 * substitutes. Review text never reaches the user. Stops when the model calls no tool, after
 * `maxModelCalls`, when the reported (or estimated) input tokens reach the budget, or on `signal`.
 * @example
 * ```ts
 * const result = await runLearningReview({ provider, model, messages, tools, due: { memory: false, skills: true }, store, userId: 'alice' });
 * ```
 * @public
 */
export async function runLearningReview(options: LearningReviewOptions): Promise<LearningReviewResult> {
  const { provider, store, userId, due, signal } = options;
  const messages: ModelMessage[] = [
    ...(options.systemPrompt ? [{ role: 'system' as const, content: options.systemPrompt }] : []),
    ...structuredClone(options.messages as ModelMessage[]),
    { role: 'user', content: options.prompt ?? reviewPrompt(due) },
  ];
  const budget = reviewInputBudget(options.contextWindowTokens);
  const maxCalls = options.maxModelCalls ?? 16;
  const reads = createSkillReadLog();
  const cancelled = () => signal?.aborted === true;
  const calls: ReviewCallRecord[] = [];
  let inputTokens = 0;
  let outputTokens = 0;
  let modelCalls = 0;
  let writes = 0;
  const result = (ended: LearningReviewResult['ended']): LearningReviewResult => ({
    ended,
    modelCalls,
    inputTokens,
    outputTokens,
    calls,
    writes,
  });

  for (;;) {
    if (cancelled()) return result('cancelled');
    if (modelCalls >= maxCalls) return result('call_limit');
    if (inputTokens + (modelCalls === 0 ? estimateTokens(messages) : 0) >= budget) return result('budget');
    modelCalls++;
    const parts: Array<{ type: 'text'; text: string } | ToolCallPart> = [];
    let text = '';
    let reported = false;
    const failures = new Map<string, string>();
    for await (const event of provider.stream(
      {
        model: options.model,
        messages,
        tools: [...options.tools],
        ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}),
      },
      signal,
    )) {
      if (event.type === 'text_delta') text += event.text;
      else if (event.type === 'tool_call_end') {
        // A tool the conversation did not offer still goes to the whitelist (which names the substitutes);
        // arguments that fail their schema are answered with the failure.
        const input = event.ok
          ? event.input
          : event.failure.code === 'TOOL_UNKNOWN'
            ? parseArgs(event.rawArguments)
            : undefined;
        parts.push({ type: 'tool_call', id: event.id, name: event.name, input });
        if (!event.ok && event.failure.code !== 'TOOL_UNKNOWN') failures.set(event.id, event.failure.message);
      } else if (event.type === 'usage') {
        reported = true;
        inputTokens += event.usage.inputTokens;
        outputTokens += event.usage.outputTokens;
      } else if (event.type === 'error') return result(cancelled() ? 'cancelled' : 'model_error');
    }
    if (!reported) inputTokens += estimateTokens(messages);
    if (cancelled()) return result('cancelled');
    const toolCalls = parts.filter((p): p is ToolCallPart => p.type === 'tool_call');
    messages.push({ role: 'assistant', content: [...(text ? [{ type: 'text' as const, text }] : []), ...toolCalls] });
    if (toolCalls.length === 0) return result('done');
    const names = new Set((await store.list(userId).catch(() => [])).map((s) => s.name));
    for (const call of toolCalls) {
      const failure = failures.get(call.id);
      if (failure !== undefined) {
        calls.push({ tool: call.name, outcome: 'error', code: 'TOOL_ARGS_INVALID' });
        messages.push({ role: 'tool', toolCallId: call.id, name: call.name, status: 'error', content: failure });
        continue;
      }
      const decision = reviewDispatch(call.name, call.input, due.memory, names);
      let output: JsonValue;
      let status: 'ok' | 'error' = 'ok';
      if (decision.kind === 'deny') {
        options.onDenied?.(call.name, call.input);
        calls.push({ tool: call.name, outcome: 'denied' });
        output = { success: false, error: decision.message };
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
          const code = isMediaAgentError(error) ? error.code : 'SKILL_INPUT_INVALID';
          calls.push({ tool: call.name, outcome: 'error', code });
          output = { success: false, code, error: error instanceof Error ? error.message : String(error) };
          status = 'error';
        }
      }
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, status, content: JSON.stringify(output) });
    }
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
  store: SkillStore,
  userId: string,
  tool: 'skills_list' | 'skill_view' | 'skill_manage',
  input: unknown,
  context: { reads: ReturnType<typeof createSkillReadLog>; cancelled: () => boolean; origin?: SkillWriteOrigin },
): Promise<JsonValue> {
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
