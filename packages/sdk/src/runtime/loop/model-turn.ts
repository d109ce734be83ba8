// One model turn: request assembly → stream → the assembled assistant message, with the runtime's
// own call ids and the oversized-arguments rule. Knows nothing of storage: what it streams goes to a
// sink.
import { costOf, priceFor } from '../../models/cost';
import type {
  AssistantMessage,
  ModelEvent,
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelResponseInfo,
  ModelTool,
  ModelUsage,
  StopReason,
  ThinkingLevel,
} from '../../models/types';
import { responseInfoOf } from '../../models/response-info';
import { appendThinkingDelta } from '../../models/thinking-parts';
import { RUNTIME_SYSTEM_PROMPT } from '../system-prompt';
import { admitToolCall, runtimeCallId } from '../tool-call-identity';

/** The model settings of a turn. */
export interface ModelTurnConfig {
  /** The model. */
  provider: ModelProvider;
  /** Model id. */
  model: string;
  /** Max output tokens (provider default when undefined). */
  maxTokens: number | undefined;
  /** Reasoning effort (provider default `off` when undefined). */
  thinking?: ThinkingLevel | undefined;
  /** Sampling temperature (provider default when undefined). */
  temperature?: number | undefined;
  /** Host system prompt layers, after the runtime's own. */
  systemPrompt: string | undefined;
  /** Largest tool-call argument text kept, in UTF-8 bytes. */
  maxInputBytes: number;
}

/** What the turn streams as it goes. */
export interface ModelTurnSink {
  /**
   * Model text: pieces of at least 64 characters while streaming (`final` false; a piece is handed on when the
   * next text delta arrives), then the rest at the end (`final` true, possibly empty: not called then).
   */
  text(text: string, final: boolean): void | Promise<void>;
  /** A provider warning (a shape it did not understand, fields it dropped …). */
  warning(warning: Extract<ModelEvent, { type: 'warning' }>['warning']): void | Promise<void>;
}

/** The result of a turn. */
export interface ModelTurn {
  /** The request as sent to the provider (system prompt first, tools, model settings). */
  request: ModelRequest;
  /** The assistant message in stream order: text, thinking and tool-call parts (runtime ids). */
  message: AssistantMessage;
  /** Token usage reported by the provider. */
  usage: ModelUsage;
  /** Cost in USD from the model's price (0 when unknown). */
  costUsd: number;
  /** The stream ended because the signal aborted. */
  aborted: boolean;
  /** Why the model stopped (the stream's `done` event), when it said. */
  stopReason: StopReason | undefined;
  /** What the server said about the response (id, model, raw finish reason), when it said. */
  response?: ModelResponseInfo;
  /** An error the stream reported (the turn failed). */
  error?: Error & { code?: string };
  /** Calls that must not run (arguments invalid or over the input limit), by runtime call id. */
  failures: Map<string, { code: string; message: string }>;
}

/** The host layers {@link systemPromptOf} was last asked for, and the prompt it made of them. */
let lastPrompt: { layers: string; prompt: string } | undefined;

/**
 * The system prompt a turn sends: the runtime's own, then the host's layers. The same layers give the
 * very same string as last time: the redactor's memo, the token counter and the provider see one string
 * object per prompt, whose hash is computed once.
 */
export function systemPromptOf(hostLayers: string | undefined): string {
  if (!hostLayers) return RUNTIME_SYSTEM_PROMPT;
  if (lastPrompt?.layers !== hostLayers)
    lastPrompt = { layers: hostLayers, prompt: `${RUNTIME_SYSTEM_PROMPT}\n\n${hostLayers}` };
  return lastPrompt.prompt;
}

/** Text is emitted as it streams in pieces of at least this many characters. */
const TEXT_FLUSH_CHARS = 64;

/**
 * Runs one model turn.
 *
 * @remarks
 * The request is the runtime system prompt (with the host's layers) followed by `messages`, with
 * `tools`. Tool calls get the runtime's ids `<callPrefix>_<n>` (see `runtimeCallId`); a call whose
 * argument text is over `maxInputBytes` is kept with `{}` as input and fails with `INPUT_TOO_LARGE`
 * (see `admitToolCall`).
 *
 * @param config - provider, model, limits
 * @param request - messages (without the system prompt), tools, the call-id prefix, the abort signal
 * @param sink - receives streamed text and provider warnings
 * @returns the assembled turn
 * @throws whatever the provider's stream throws
 */
export async function runModelTurn(
  config: ModelTurnConfig,
  request: { messages: readonly ModelMessage[]; tools: readonly ModelTool[]; callPrefix: string; signal: AbortSignal },
  sink: ModelTurnSink,
): Promise<ModelTurn> {
  const system = systemPromptOf(config.systemPrompt);
  const outbound: ModelRequest = {
    model: config.model,
    messages: [{ role: 'system' as const, content: system }, ...request.messages],
    tools: [...request.tools],
    ...(config.maxTokens ? { maxTokens: config.maxTokens } : {}),
    ...(config.thinking !== undefined ? { thinking: config.thinking } : {}),
    ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
  };
  const content: AssistantMessage['content'] = [];
  const failures = new Map<string, { code: string; message: string }>();
  const usage: ModelUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let text = '';
  let pending = '';
  let calls = 0;
  let aborted = false;
  let stopReason: StopReason | undefined;
  let response: ModelResponseInfo | undefined;
  let error: (Error & { code?: string }) | undefined;
  // Who produced this turn's thinking and call signatures: they go back only where the translation rules allow.
  const origin = { provider: config.provider.id, model: config.model };
  const flushText = () => {
    if (text) content.push({ type: 'text', text });
    text = '';
  };
  for await (const event of config.provider.stream(outbound, request.signal)) {
    switch (event.type) {
      case 'text_delta':
        // A piece is shown once more text follows it: a reply that arrives whole goes with its step.
        if (pending.length >= TEXT_FLUSH_CHARS) {
          const piece = pending;
          pending = '';
          await sink.text(piece, false);
        }
        text += event.text;
        pending += event.text;
        break;
      case 'thinking_delta': {
        flushText();
        // Each block the provider marks (`start`) and each redacted block is a part of its own, sent back verbatim
        // (with OpenRouter's reasoning_details items as received).
        appendThinkingDelta(content, event, origin);
        break;
      }
      case 'tool_call_end': {
        flushText();
        // The runtime's own call id: servers reuse ids across turns (or send none), the ledger needs run-unique ones.
        const call = admitToolCall(event, runtimeCallId(request.callPrefix, calls++), config.maxInputBytes);
        content.push(call.part.signature !== undefined ? { ...call.part, origin: { ...origin } } : call.part);
        if (call.failure) failures.set(call.part.id, call.failure);
        break;
      }
      case 'warning':
        await sink.warning(event.warning);
        break;
      case 'usage':
        usage.inputTokens += event.usage.inputTokens;
        usage.outputTokens += event.usage.outputTokens;
        usage.cacheReadTokens += event.usage.cacheReadTokens;
        usage.cacheWriteTokens += event.usage.cacheWriteTokens;
        break;
      case 'error':
        error = event.error;
        break;
      case 'done':
        stopReason = event.stopReason;
        response = responseInfoOf(event);
        if (event.stopReason === 'aborted') aborted = true;
        break;
    }
  }
  if (pending) await sink.text(pending, true);
  flushText();
  const price = priceFor(config.model);
  return {
    request: outbound,
    message: { role: 'assistant', content },
    usage,
    costUsd: price ? costOf(usage, price) : 0,
    aborted: aborted || request.signal.aborted,
    stopReason,
    ...(response ? { response } : {}),
    ...(error ? { error } : {}),
    failures,
  };
}
