// complete(): collects a normalized stream into one assistant message.
import type {
  AssistantMessage,
  ModelEvent,
  ModelProvider,
  ModelRequest,
  ModelUsage,
  PartOrigin,
  StopReason,
  ToolCallFailure,
} from './types';
import { appendThinkingDelta } from './thinking-parts';

/**
 * Result of {@link complete}.
 *
 * @public
 */
export interface CompletedTurn {
  /** The assistant message: text, thinking (with signatures) and tool calls in stream order. */
  message: AssistantMessage;
  /** Final usage reported by the provider (zeros when it reported none). */
  usage: ModelUsage;
  /** Why the turn ended. */
  stopReason: StopReason;
  /** Tool calls whose arguments were refused at `tool_call_end`, by call id, with the reason. */
  toolCallFailures: Record<string, ToolCallFailure>;
}

/**
 * Collects a stream of normalized events into one assistant message.
 *
 * @remarks
 * Consecutive text deltas merge into one text part; consecutive thinking deltas merge into one
 * thinking part, except that a delta marking a new block (`start`) or carrying a redacted payload
 * opens a new part and a signature closes its part (so each Anthropic `thinking` and
 * `redacted_thinking` block stays its own part, in stream order, with its own signature or data);
 * a part's `details` are all the OpenRouter `reasoning_details` items it received, in order; each
 * completed tool call becomes a `tool_call` part, with its `signature` when the server sent one
 * (invalid ones with `input: {}`, listed in `toolCallFailures`). With `origin`, each thinking part and each
 * tool call that carries a signature records who produced it (`ThinkingPart.origin`, `ToolCallPart.origin`), so
 * the message can later go to another provider by the translation rules.
 *
 * @param events - a provider stream
 * @param origin - the provider and model that produce the stream (`complete` passes them), if known
 * @returns the collected turn
 * @throws the error of an `error` event (a typed `ProviderError` for provider failures)
 * @public
 */
export async function collectStream(events: AsyncIterable<ModelEvent>, origin?: PartOrigin): Promise<CompletedTurn> {
  const message: AssistantMessage = { role: 'assistant', content: [] };
  let usage: ModelUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let stopReason: StopReason = 'end_turn';
  const toolCallFailures: Record<string, ToolCallFailure> = {};
  let failure: Error | undefined;
  for await (const ev of events) {
    const last = message.content[message.content.length - 1];
    switch (ev.type) {
      case 'text_delta':
        if (last?.type === 'text') last.text += ev.text;
        else message.content.push({ type: 'text', text: ev.text });
        break;
      case 'thinking_delta':
        appendThinkingDelta(message.content, ev, origin); // a block the provider marked (`start`) is a part of its own
        break;
      case 'tool_call_end':
        message.content.push({
          type: 'tool_call',
          id: ev.id,
          name: ev.name,
          input: ev.input,
          rawArguments: ev.rawArguments,
          ...(ev.signature !== undefined ? { signature: ev.signature } : {}),
          ...(ev.signature !== undefined && origin !== undefined ? { origin: { ...origin } } : {}),
        });
        if (!ev.ok) toolCallFailures[ev.id] = ev.failure;
        break;
      case 'usage':
        usage = ev.usage;
        break;
      case 'error':
        failure = ev.error;
        break;
      case 'done':
        stopReason = ev.stopReason;
        break;
      default:
        break;
    }
  }
  if (failure) throw failure;
  message.stopReason = stopReason;
  return { message, usage, stopReason, toolCallFailures };
}

/**
 * Runs one model call to completion.
 *
 * @param provider - any {@link ModelProvider}
 * @param request - the request
 * @param signal - aborts the call (the result then has stop reason `aborted`)
 * @returns the collected turn (see {@link collectStream}; its thinking parts and signed tool calls carry
 *   `origin: { provider: provider.id, model: request.model }`)
 * @throws the provider's typed error when the call fails
 * @public
 */
export function complete(provider: ModelProvider, request: ModelRequest, signal?: AbortSignal): Promise<CompletedTurn> {
  return collectStream(provider.stream(request, signal), { provider: provider.id, model: request.model });
}
