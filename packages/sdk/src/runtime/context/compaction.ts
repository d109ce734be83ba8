// Context accounting and compaction:
// older turns are summarized above a threshold, a tool call never leaves its result, pinned facts
// survive verbatim, a turn too large for the window is a typed error, repeated long results are
// replaced by a reference to the first.
import { MediaAgentError } from '../../core/errors';
import { MESSAGE_OVERHEAD_TOKENS, type TokenCounter } from '../../models/token-counter';
import type { ModelMessage, ModelTool, ToolResultMessage, UserMessage } from '../../models/types';
import { DEFAULT_CONTEXT_WINDOW_TOKENS } from './tool-discovery';

/**
 * Defaults of compaction. Every one is configurable through {@link CompactionOptions}.
 * @public
 */
export const COMPACTION_DEFAULTS = Object.freeze({
  /**
   * Share of the window above which older turns are summarized (docs/architecture.md#compaction).
   * @defaultValue 0.8
   */
  thresholdShare: 0.8,
  /** Share of the window the request should fall to after compaction (keeps compaction from running on every call). */
  targetShare: 0.5,
  /** Ceiling of the summary text, in tokens (also capped at 10% of the window). */
  summaryMaxTokens: 4096,
  /** Characters of one text part or tool result passed to the summarizer (longer ones are truncated for it). */
  summarizerPartChars: 4000,
  /**
   * Shortest tool-result text, in characters, that {@link dedupeRepeatedResults} replaces when repeated.
   * @defaultValue 512
   */
  dedupeMinChars: 512,
});

/**
 * First line of the summary message: marks a user message as a compaction summary, not user input.
 * @public
 */
export const SUMMARY_MARKER = '[context summary]';

/** Heading before the summary body inside the summary message. @internal */
const SUMMARY_HEADING = '## Summary of the compacted turns';

/**
 * Facts the driver supplies that must survive every compaction verbatim: the run's checklist,
 * unresolved `unknown` writes and pending approvals (docs/architecture.md#compaction). Rendered as JSON in the summary
 * message, never passed through the summarizer and never truncated.
 * @public
 */
export interface PinnedFacts {
  /** The user's request (the run goal). */
  goal?: string;
  /** The run's current checklist (`update_plan` input), when there is one. */
  checklist?: unknown;
  /** Side-effecting calls whose outcome is still `unknown` (e.g. ledger entries: capability, call id, input summary). */
  unknownWrites?: readonly unknown[];
  /** Approvals the run asked for that no one has decided yet. */
  pendingApprovals?: readonly unknown[];
  /** Other facts the host wants kept, as short texts. */
  notes?: readonly string[];
}

/**
 * Summarizes older messages, usually by calling the model (see {@link summaryRequestMessages}).
 * Throwing, or returning an empty text, selects the deterministic fallback ({@link fallbackDigest}).
 * @public
 */
export type Summarizer = (messages: readonly ModelMessage[], signal?: AbortSignal) => Promise<string>;

/**
 * Options of {@link assessCompaction} and {@link compact}. Token figures are in tokens; shares are
 * fractions of the window.
 * @public
 */
export interface CompactionOptions {
  /** Counts messages and tools. */
  counter: TokenCounter;
  /** Model id, selects the encoding. */
  model?: string;
  /**
   * The model's context window, in tokens.
   * @defaultValue {@link DEFAULT_CONTEXT_WINDOW_TOKENS}
   */
  contextWindowTokens?: number;
  /**
   * Compact when the request exceeds this share of the window.
   * @defaultValue 0.8
   */
  thresholdShare?: number;
  /**
   * After compaction the request should be at most this share; the latest turn is always kept.
   * @defaultValue 0.5
   */
  targetShare?: number;
  /** Ceiling of the summary text in tokens (default min(4096, 10% of the window)). */
  summaryMaxTokens?: number;
  /** The fixed part of every request: system layers (not compacted). */
  system?: readonly ModelMessage[];
  /** Tools sent with the request (their schemas count against the window). */
  tools?: readonly ModelTool[];
  /** Facts rendered verbatim into the summary message. */
  pinned?: PinnedFacts;
}

/**
 * What {@link assessCompaction} decided.
 * @public
 */
export interface CompactionAssessment {
  /** True when older turns should be summarized now. */
  needed: boolean;
  /** `below_threshold`; `over_threshold` (compact); `no_boundary` (over the threshold but one turn only — it still fits the window). */
  reason: 'below_threshold' | 'over_threshold' | 'no_boundary';
  /** The window, in tokens. */
  windowTokens: number;
  /** The threshold, in tokens. */
  thresholdTokens: number;
  /** The target after compaction, in tokens. */
  targetTokens: number;
  /** Tokens of the whole request now (system, tools, messages). */
  totalTokens: number;
  /** Tokens of the fixed part (system layers and tools). */
  fixedTokens: number;
  /** Messages `[0, cut)` are summarized, `[cut, n)` kept verbatim; 0 when nothing is. Always a turn boundary. */
  cut: number;
  /** The messages to summarize. */
  summarize: ModelMessage[];
  /** The messages kept verbatim. */
  keep: ModelMessage[];
  /** Tokens the summary text may use in this compaction. */
  summaryBudgetTokens: number;
  /** Estimated request tokens after compaction (fixed + summary message at its budget + kept). */
  expectedTokens: number;
}

/**
 * A single turn (the latest tool transaction, or one user message) plus the fixed part and pinned
 * facts does not fit the model window: nothing can be dropped silently, so the call fails
 * explicitly.
 * Code `CONTEXT_TURN_TOO_LARGE`; details `turnTokens`, `fixedTokens`, `pinnedTokens`, `windowTokens`,
 * `from`, `to` (message indices of the turn).
 * @public
 */
export class ContextTurnTooLargeError extends MediaAgentError {
  /** @param details - token figures and the turn's message range */
  constructor(details: {
    turnTokens: number;
    fixedTokens: number;
    pinnedTokens: number;
    windowTokens: number;
    from: number;
    to: number;
  }) {
    super(
      'CONTEXT_TURN_TOO_LARGE',
      `the latest turn (messages ${details.from}–${details.to - 1}, ${details.turnTokens} tokens) with the fixed prompt (${details.fixedTokens} tokens) and pinned facts (${details.pinnedTokens} tokens) exceeds the model window of ${details.windowTokens} tokens`,
      details,
    );
  }
}

/** Per counter and model: tokens of message objects already counted (messages are never mutated once appended). */
const counted = new WeakMap<TokenCounter, Map<string, WeakMap<ModelMessage, number>>>();

/**
 * Token count of one message inside a request (its content plus the per-message overhead), memoized
 * per message object: the run driver never mutates a message once it is in the history, so re-counting
 * a 500-message history before each call is a lookup per message.
 * @internal
 */
function messageTokens(counter: TokenCounter, m: ModelMessage, model: string | undefined): number {
  let byModel = counted.get(counter);
  if (!byModel) counted.set(counter, (byModel = new Map()));
  let memo = byModel.get(model ?? '');
  if (!memo) byModel.set(model ?? '', (memo = new WeakMap()));
  let n = memo.get(m);
  if (n === undefined) {
    n = m.role === 'system' ? systemTokens(counter, m.content, model) : countOne(counter, m, model);
    memo.set(m, n);
  }
  return n;
}

/** Tokens of one message inside a request (its content plus the per-message overhead), counted afresh. */
const countOne = (counter: TokenCounter, m: ModelMessage, model: string | undefined): number =>
  counter.countRequest([m], [], model) - MESSAGE_OVERHEAD_TOKENS;

/** System prompts kept per counter and model (a host has a few; more are counted afresh after a reset). */
const SYSTEM_PROMPTS_KEPT = 32;

/** Per counter and model: tokens of system messages by their text. */
const systemCounted = new WeakMap<TokenCounter, Map<string, Map<string, number>>>();

/**
 * Token count of a system message by its text: the run loop builds a new system message object (with
 * the same prompt) for every model call, so the per-object memo misses; its count depends only on the
 * text.
 */
function systemTokens(counter: TokenCounter, content: string, model: string | undefined): number {
  let byModel = systemCounted.get(counter);
  if (!byModel) systemCounted.set(counter, (byModel = new Map()));
  let memo = byModel.get(model ?? '');
  if (!memo) byModel.set(model ?? '', (memo = new Map()));
  let n = memo.get(content);
  if (n === undefined) {
    n = countOne(counter, { role: 'system', content }, model);
    if (memo.size >= SYSTEM_PROMPTS_KEPT) memo.clear();
    memo.set(content, n);
  }
  return n;
}

/** Per counter and model: tokens of tool definitions already counted (a drive offers the same tool objects on every call). */
const toolsCounted = new WeakMap<TokenCounter, Map<string, WeakMap<ModelTool, number>>>();

/**
 * The runtime's estimate of a whole request as sent (every message, the system prompt included, and
 * every tool), memoized per message and per tool object like compaction's own counts, so estimating
 * each model call of a long run costs a lookup per message.
 * @param counter - the counter
 * @param messages - the request's messages, system prompt included
 * @param tools - the request's tools
 * @param model - model id (selects the encoding)
 * @returns estimated prompt tokens
 * @internal
 */
export function estimateRequestTokens(
  counter: TokenCounter,
  messages: readonly ModelMessage[],
  tools: readonly ModelTool[],
  model: string | undefined,
): number {
  let byModel = toolsCounted.get(counter);
  if (!byModel) toolsCounted.set(counter, (byModel = new Map()));
  let memo = byModel.get(model ?? '');
  if (!memo) byModel.set(model ?? '', (memo = new WeakMap()));
  let total = MESSAGE_OVERHEAD_TOKENS;
  for (const m of messages) total += messageTokens(counter, m, model);
  for (const t of tools) {
    let n = memo.get(t);
    if (n === undefined) {
      n = counter.countRequest([], [t], model) - MESSAGE_OVERHEAD_TOKENS;
      memo.set(t, n);
    }
    total += n;
  }
  return total;
}

/** The last fixed part counted per counter: the same system messages and tool definitions (by identity) count the same. */
const fixedCounted = new WeakMap<
  TokenCounter,
  { model: string | undefined; system: readonly ModelMessage[]; tools: readonly ModelTool[]; tokens: number }
>();

/**
 * Tokens of the fixed part of a request (system messages and tool definitions), memoized for the
 * last one counted: before each model call the run loop asks again for the same objects, and
 * counting them means serializing every tool schema.
 * @internal
 */
function fixedPartTokens(
  counter: TokenCounter,
  system: readonly ModelMessage[],
  tools: readonly ModelTool[],
  model: string | undefined,
): number {
  const last = fixedCounted.get(counter);
  const same = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (last && last.model === model && same(last.system, system) && same(last.tools, tools)) return last.tokens;
  const tokens = counter.countRequest(system, tools, model);
  fixedCounted.set(counter, { model, system: [...system], tools: [...tools], tokens });
  return tokens;
}

/**
 * Indices where the conversation may be cut: `i` (strictly between 0 and n) such that `messages[i]` is not a tool
 * result and no tool call before `i` is answered at or after `i` — so a tool call is never separated
 * from its result. In practice: before a user message, or before an assistant message once every
 * earlier call has its result.
 * @param messages - the conversation (without the system prompt)
 * @returns the boundaries, ascending
 * @public
 */
export function turnBoundaries(messages: readonly ModelMessage[]): number[] {
  const answeredAt = new Map<string, number>();
  messages.forEach((m, i) => {
    if (m.role === 'tool' && !answeredAt.has(m.toolCallId)) answeredAt.set(m.toolCallId, i);
  });
  const out: number[] = [];
  let openUntil = 0; // the last index at which a call made so far is answered
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (i > 0 && m.role !== 'tool' && openUntil < i) out.push(i);
    if (m.role === 'assistant') {
      for (const p of m.content)
        if (p.type === 'tool_call') openUntil = Math.max(openUntil, answeredAt.get(p.id) ?? -1);
    }
  }
  return out;
}

/**
 * Renders the pinned facts as the verbatim block of the summary message.
 * @param pinned - the facts
 * @returns the block (empty string when there are none)
 * @public
 */
export function renderPinnedFacts(pinned: PinnedFacts | undefined): string {
  if (!pinned) return '';
  const parts: string[] = [];
  if (pinned.goal) parts.push(`### Goal\n${pinned.goal}`);
  if (pinned.checklist !== undefined && pinned.checklist !== null)
    parts.push(`### Current plan\n${JSON.stringify(pinned.checklist)}`);
  if (pinned.unknownWrites?.length)
    parts.push(
      `### Writes whose outcome is still unknown (verify with a read before retrying; never assume success or failure)\n${pinned.unknownWrites.map((w) => `- ${JSON.stringify(w)}`).join('\n')}`,
    );
  if (pinned.pendingApprovals?.length)
    parts.push(
      `### Approvals still pending (wait for the decision)\n${pinned.pendingApprovals.map((a) => `- ${JSON.stringify(a)}`).join('\n')}`,
    );
  if (pinned.notes?.length) parts.push(`### Notes\n${pinned.notes.map((n) => `- ${n}`).join('\n')}`);
  return parts.length ? `## Pinned facts (verbatim, still current)\n${parts.join('\n')}` : '';
}

/**
 * Builds the summary message: a **user** message whose text starts with {@link SUMMARY_MARKER}, then
 * the pinned facts verbatim, then the summary.
 *
 * @remarks
 * A user message, not a system layer: the summary is made of tool output and model text, which must
 * not gain the authority of the system prompt; and it keeps the conversation starting with a user
 * message, as Anthropic requires. The system prompt (and its prompt cache) stays untouched. When the
 * kept part starts with a user message, the two user messages are adjacent; the Anthropic adapter
 * merges adjacent same-role messages and OpenAI-compatible servers accept them.
 *
 * @param summary - the summary text (from the model or the fallback)
 * @param pinned - facts to render verbatim
 * @param count - how many messages it replaces
 * @returns the message
 * @public
 */
export function summaryMessage(
  summary: string,
  pinned: PinnedFacts | undefined,
  count: number,
  assistantTurns = 0,
): UserMessage {
  const pinnedBlock = renderPinnedFacts(pinned);
  const head = `${SUMMARY_MARKER} ${count} earlier messages (${assistantTurns} assistant turns) of this run were compacted to save context. This is a summary written by the runtime, not a new request from the user; tool results in it are historical.`;
  return {
    role: 'user',
    content: [head, pinnedBlock, `${SUMMARY_HEADING}\n${summary.trim()}`].filter(Boolean).join('\n\n'),
  };
}

/**
 * Assistant turns in `messages`, counting those an earlier summary among them stood for (the
 * `(N assistant turns)` of its head), so the count survives repeated compactions.
 * @public
 */
export function summarizedAssistantTurns(messages: readonly ModelMessage[]): number {
  let turns = 0;
  for (const m of messages) {
    if (m.role === 'assistant') turns++;
    else if (isSummaryMessage(m)) turns += Number(/\((\d+) assistant turns\)/.exec(m.content as string)?.[1] ?? 0);
  }
  return turns;
}

/**
 * True when a message is a summary made by {@link summaryMessage}.
 * @param m - any message
 * @public
 */
export function isSummaryMessage(m: ModelMessage): boolean {
  return m.role === 'user' && typeof m.content === 'string' && m.content.startsWith(SUMMARY_MARKER);
}

/** The summary body of a summary message (its pinned block dropped: fresh pinned facts replace it). @internal */
function summaryBody(m: UserMessage): string {
  const text = typeof m.content === 'string' ? m.content : '';
  const at = text.indexOf(SUMMARY_HEADING);
  return at < 0 ? text : text.slice(at + SUMMARY_HEADING.length).trim();
}

/** Text of a user or tool message. @internal */
function textOf(content: ModelMessage['content']): string {
  if (typeof content === 'string') return content;
  return content
    .map((p) =>
      p.type === 'text'
        ? p.text
        : p.type === 'image'
          ? '[image]'
          : p.type === 'thinking'
            ? ''
            : `[tool call ${p.name}]`,
    )
    .join('');
}

/** Cuts `s` to `max` characters (code points kept whole) with an explicit marker. @internal */
function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${s.slice(0, end)}… [truncated, ${s.length - end} more characters]`;
}

/** The status a tool result reports: the `status` field of its JSON, else the message status. @internal */
function resultStatus(m: ToolResultMessage): string {
  const text = textOf(m.content);
  try {
    const body = JSON.parse(text) as { status?: unknown };
    if (typeof body.status === 'string') return body.status;
  } catch {
    /* not JSON */
  }
  return m.status;
}

/**
 * The deterministic summary used when the summarizer fails: the user messages, every tool call with
 * its arguments and status, and the assistant texts that ended turns, each truncated.
 * @param messages - the messages being compacted
 * @param reason - why the model summary is not available
 * @param maxChars - ceiling of the digest in characters (default 12,000)
 * @returns the digest text
 * @public
 */
export function fallbackDigest(messages: readonly ModelMessage[], reason: string, maxChars = 12_000): string {
  const results = new Map<string, ToolResultMessage>();
  for (const m of messages) if (m.role === 'tool') results.set(m.toolCallId, m);
  const lines: string[] = [
    `Digest of ${messages.length} earlier messages (no model summary: ${truncate(reason, 200)}).`,
  ];
  for (const m of messages) {
    if (isSummaryMessage(m)) lines.push(`Earlier summary: ${truncate(summaryBody(m as UserMessage), 2000)}`);
    else if (m.role === 'user') lines.push(`User: ${truncate(textOf(m.content), 300)}`);
    else if (m.role === 'assistant') {
      const calls = m.content.filter((p) => p.type === 'tool_call');
      for (const p of calls) {
        const r = results.get(p.id);
        lines.push(
          `Tool ${p.name} ${truncate(JSON.stringify(p.input ?? {}), 200)} → ${r ? resultStatus(r) : 'no result recorded'}`,
        );
      }
      const text = m.content
        .flatMap((p) => (p.type === 'text' ? [p.text] : []))
        .join('')
        .trim();
      if (text && calls.length === 0) lines.push(`Assistant: ${truncate(text, 400)}`);
    }
  }
  let out = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (out.length + line.length + 1 > maxChars) {
      out += `… and ${lines.length - i} more entries`;
      break;
    }
    out += `${line}\n`;
  }
  return out.trimEnd();
}

/** Resolved options. @internal */
function resolve(options: CompactionOptions) {
  const windowTokens = options.contextWindowTokens ?? DEFAULT_CONTEXT_WINDOW_TOKENS;
  return {
    windowTokens,
    thresholdTokens: Math.floor((options.thresholdShare ?? COMPACTION_DEFAULTS.thresholdShare) * windowTokens),
    targetTokens: Math.floor((options.targetShare ?? COMPACTION_DEFAULTS.targetShare) * windowTokens),
    summaryMaxTokens:
      options.summaryMaxTokens ?? Math.floor(Math.min(COMPACTION_DEFAULTS.summaryMaxTokens, 0.1 * windowTokens)),
  };
}

/**
 * Decides whether and where to compact (pure apart from token counting).
 *
 * @remarks
 * Message objects are treated as immutable: their token counts are memoized per object.
 * Accounting: system layers, tools and messages counted with the {@link TokenCounter}, as sent (before
 * {@link dedupeRepeatedResults}, so a conservative figure). Under the threshold nothing happens. Over
 * it, the cut is the earliest turn boundary ({@link turnBoundaries}) after which the request —
 * fixed part, summary message at its budget, kept messages — fits the target; when none does, the
 * latest boundary (only the latest turn is kept).
 *
 * @param messages - the conversation without the system prompt (an earlier summary message may lead it)
 * @param options - counter, window, shares, fixed part, pinned facts
 * @returns the assessment
 * @throws {@link ContextTurnTooLargeError} (`CONTEXT_TURN_TOO_LARGE`) when over the threshold and the
 *   latest turn with the fixed part and the pinned facts exceeds the window
 * @public
 */
export function assessCompaction(messages: readonly ModelMessage[], options: CompactionOptions): CompactionAssessment {
  const { counter, model } = options;
  const r = resolve(options);
  const fixedTokens =
    options.system?.length || options.tools?.length
      ? fixedPartTokens(counter, options.system ?? [], options.tools ?? [], model)
      : MESSAGE_OVERHEAD_TOKENS;
  const per = messages.map((m) => messageTokens(counter, m, model));
  const totalTokens = fixedTokens + per.reduce((a, b) => a + b, 0);
  const base = {
    windowTokens: r.windowTokens,
    thresholdTokens: r.thresholdTokens,
    targetTokens: r.targetTokens,
    totalTokens,
    fixedTokens,
  };
  const none = (reason: CompactionAssessment['reason']): CompactionAssessment => ({
    ...base,
    needed: false,
    reason,
    cut: 0,
    summarize: [],
    keep: [...messages],
    summaryBudgetTokens: 0,
    expectedTokens: totalTokens,
  });
  if (totalTokens <= r.thresholdTokens) return none('below_threshold');

  const boundaries = turnBoundaries(messages);
  const last = boundaries[boundaries.length - 1] ?? 0;
  // suffix[i] = tokens of messages[i..n)
  const suffix = new Array<number>(messages.length + 1).fill(0);
  for (let i = messages.length - 1; i >= 0; i--) suffix[i] = suffix[i + 1]! + per[i]!;
  const pinnedTokens = messageTokens(counter, summaryMessage('', options.pinned, 0), model);
  const lastTurn = suffix[last]!;
  if (fixedTokens + (last > 0 ? pinnedTokens : 0) + lastTurn > r.windowTokens) {
    throw new ContextTurnTooLargeError({
      turnTokens: lastTurn,
      fixedTokens,
      pinnedTokens: last > 0 ? pinnedTokens : 0,
      windowTokens: r.windowTokens,
      from: last,
      to: messages.length,
    });
  }
  if (last === 0) return none('no_boundary');

  const cut =
    boundaries.find((b) => fixedTokens + pinnedTokens + r.summaryMaxTokens + suffix[b]! <= r.targetTokens) ?? last;
  const room = r.windowTokens - (fixedTokens + pinnedTokens + suffix[cut]!);
  const summaryBudgetTokens = Math.max(0, Math.min(r.summaryMaxTokens, room));
  return {
    ...base,
    needed: true,
    reason: 'over_threshold',
    cut,
    summarize: messages.slice(0, cut),
    keep: messages.slice(cut),
    summaryBudgetTokens,
    expectedTokens: fixedTokens + pinnedTokens + summaryBudgetTokens + suffix[cut]!,
  };
}

/**
 * The system prompt of a summarization call (used by {@link summaryRequestMessages}).
 * @public
 */
export const COMPACTION_SUMMARY_PROMPT =
  'You compact the history of an agent run. Summarize the transcript below for the agent that continues the run: what the user asked, what was done (tool calls and their outcomes: succeeded, pending, unknown, failed, denied), what was learned (ids, titles, paths, numbers), and what remains. Keep ids and numbers exact. Say plainly which outcomes are unknown or pending: never present them as done. Do not invent. Be concise; plain text.';

/**
 * The messages of a summarization model call for `messages`: a system prompt and one user message
 * holding a plain-text transcript (tool calls and results rendered as text, so the call needs no
 * tools and carries no tool-call pairing rules). Long parts are truncated for the summarizer.
 * @param messages - the messages to summarize
 * @param partChars - ceiling per part in characters (default 4000)
 * @returns messages for `ModelProvider.stream`
 * @public
 */
export function summaryRequestMessages(
  messages: readonly ModelMessage[],
  partChars: number = COMPACTION_DEFAULTS.summarizerPartChars,
): ModelMessage[] {
  const lines: string[] = [];
  for (const m of messages) {
    if (isSummaryMessage(m)) lines.push(`[earlier summary]\n${truncate(summaryBody(m as UserMessage), partChars)}`);
    else if (m.role === 'system') lines.push(`[system note]\n${truncate(m.content, partChars)}`);
    else if (m.role === 'user') lines.push(`[user]\n${truncate(textOf(m.content), partChars)}`);
    else if (m.role === 'tool')
      lines.push(`[tool result ${m.name} ${m.toolCallId}]\n${truncate(textOf(m.content), partChars)}`);
    else
      for (const p of m.content) {
        if (p.type === 'text' && p.text.trim()) lines.push(`[assistant]\n${truncate(p.text, partChars)}`);
        else if (p.type === 'tool_call')
          lines.push(`[tool call ${p.name} ${p.id}]\n${truncate(JSON.stringify(p.input ?? {}), partChars)}`);
      }
  }
  return [
    { role: 'system', content: COMPACTION_SUMMARY_PROMPT },
    { role: 'user', content: `Transcript to summarize:\n\n${lines.join('\n\n')}` },
  ];
}

/**
 * The result of {@link compact}.
 * @public
 */
export interface CompactionResult {
  /** The new conversation: `[summary message, ...kept]`, or the input unchanged when no compaction was needed. */
  messages: ModelMessage[];
  /** The assessment it followed. */
  assessment: CompactionAssessment;
  /** Where the summary came from: `model`, `fallback` (the summarizer failed), or `none` (not compacted). */
  summarySource: 'model' | 'fallback' | 'none';
  /** Why the fallback was used. */
  fallbackReason?: string;
  /** Request tokens after compaction (system, tools, new messages), counted; pass it to `ToolDiscovery.toolsForNextCall({ requestTokens })`. */
  tokensAfter: number;
}

/** Cuts a text to at most `max` tokens (by characters, re-counted). @internal */
function fitTokens(counter: TokenCounter, model: string | undefined, text: string, max: number): string {
  let out = text;
  for (let i = 0; i < 8; i++) {
    const n = counter.count(out, model);
    if (n <= max) return out;
    const chars = Math.max(0, Math.floor((out.length * max) / n) - 64);
    out = truncate(text, chars);
  }
  return truncate(text, 0);
}

/**
 * Compacts a conversation when it is over the threshold: summarizes `assessment.summarize` with
 * `summarize` (the deterministic {@link fallbackDigest} when it throws or returns nothing) and
 * returns `[summaryMessage, ...kept]`. Pinned facts go into the summary message verbatim; the summary
 * text is cut to its token budget.
 *
 * @remarks
 * The result is the new working history: keep it (the originals stay in storage) so the next call
 * does not summarize again. Apply {@link dedupeRepeatedResults} to each outbound request, not to the
 * stored history.
 *
 * @param messages - the conversation without the system prompt
 * @param options - as {@link assessCompaction}, plus the summarizer and an abort signal
 * @returns the new conversation and what happened
 * @throws {@link ContextTurnTooLargeError} (`CONTEXT_TURN_TOO_LARGE`) as {@link assessCompaction}
 * @public
 */
export async function compact(
  messages: readonly ModelMessage[],
  options: CompactionOptions & { summarize: Summarizer; signal?: AbortSignal },
): Promise<CompactionResult> {
  const assessment = assessCompaction(messages, options);
  const count = (list: readonly ModelMessage[]) =>
    assessment.fixedTokens + list.reduce((sum, m) => sum + messageTokens(options.counter, m, options.model), 0);
  if (!assessment.needed)
    return { messages: [...messages], assessment, summarySource: 'none', tokensAfter: assessment.totalTokens };
  let summary = '';
  let fallbackReason: string | undefined;
  try {
    summary = (await options.summarize(assessment.summarize, options.signal)).trim();
    if (!summary) fallbackReason = 'the summarizer returned an empty text';
  } catch (error) {
    fallbackReason =
      error instanceof Error
        ? `${error instanceof MediaAgentError ? `${error.code}: ` : ''}${error.message}`
        : String(error);
  }
  if (fallbackReason !== undefined) summary = fallbackDigest(assessment.summarize, fallbackReason);
  summary = fitTokens(options.counter, options.model, summary, assessment.summaryBudgetTokens);
  const next = [
    summaryMessage(summary, options.pinned, assessment.cut, summarizedAssistantTurns(assessment.summarize)),
    ...assessment.keep,
  ];
  return {
    messages: next,
    assessment,
    summarySource: fallbackReason === undefined ? 'model' : 'fallback',
    ...(fallbackReason !== undefined ? { fallbackReason } : {}),
    tokensAfter: count(next),
  };
}

/**
 * Replaces a tool result whose text is identical to an earlier tool result of at least `minChars`
 * characters by a short reference to the first.
 *
 * @remarks
 * Pure and 1:1: returns a new array of the same length; the replaced message keeps its role, call id,
 * name and status, and its content becomes JSON `{ status, note, sameAsCallId }`. Apply it to each
 * outbound request, after compaction: a result whose first occurrence was compacted away is then the
 * first again and goes out in full. Results with images are never replaced.
 *
 * @param messages - the conversation
 * @param minChars - shortest text replaced, in characters (default 512)
 * @returns the conversation with repeats replaced
 * @public
 */
export function dedupeRepeatedResults(
  messages: readonly ModelMessage[],
  minChars: number = COMPACTION_DEFAULTS.dedupeMinChars,
): ModelMessage[] {
  const first = new Map<string, ToolResultMessage>();
  return messages.map((m) => {
    if (m.role !== 'tool') return m;
    if (typeof m.content !== 'string' && m.content.some((p) => p.type !== 'text')) return m;
    const text = textOf(m.content);
    if (text.length < minChars) return m;
    const earlier = first.get(text);
    if (!earlier) {
      first.set(text, m);
      return m;
    }
    const replaced: ToolResultMessage = {
      ...m,
      content: JSON.stringify({
        status: resultStatus(m),
        note: `identical to the earlier result of ${earlier.name} (call ${earlier.toolCallId}) above; the call did run again, its result is not repeated here`,
        sameAsCallId: earlier.toolCallId,
      }),
    };
    return replaced;
  });
}
