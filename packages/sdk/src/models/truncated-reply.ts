// A model reply cut by the output limit: none of its calls runs (in a run's loop and in a learning review's),
// and too many such replies in a row end the run. Pure rules, tested directly.
import type { StopReason, ToolCallPart } from './types';

/**
 * Replies cut by the output limit in a row after which the run ends `failed` with
 * `MODEL_OUTPUT_TRUNCATED`.
 * @defaultValue 3
 * @internal
 */
export const DEFAULT_MAX_TRUNCATED_TURNS = 3;

/**
 * Whether a reply was cut by the output limit: the stream's stop reason is `max_tokens`
 * (OpenAI-compatible `finish_reason: "length"`, Anthropic `stop_reason: "max_tokens"` or
 * `"model_context_window_exceeded"`).
 *
 * @remarks
 * A cut reply's tool calls may look complete and still be missing arguments the model meant to
 * send (a JSON object the server closed, an optional field never reached, a call with no arguments
 * at all), so none of them may run: see {@link truncatedCallFailures}. Source: Anthropic "Handling
 * stop reasons" (`max_tokens`: the response is incomplete) and the OpenAI Chat Completions
 * reference (`finish_reason: "length"`: the maximum number of tokens was reached).
 *
 * @param stopReason - the `done` event's stop reason, undefined when the stream gave none
 * @returns true for `max_tokens`
 * @internal
 */
export function isTruncatedReply(stopReason: StopReason | undefined): boolean {
  return stopReason === 'max_tokens';
}

/**
 * The failure of every call of a reply cut by the output limit, by call id: code
 * `TOOL_CALL_TRUNCATED`, and a message asking the model to issue the call again, shorter.
 * @param calls - the reply's calls, in model order
 * @returns one failure per call
 * @internal
 */
export function truncatedCallFailures(
  calls: readonly ToolCallPart[],
): Map<string, { code: 'TOOL_CALL_TRUNCATED'; message: string }> {
  const failures = new Map<string, { code: 'TOOL_CALL_TRUNCATED'; message: string }>();
  for (const call of calls)
    failures.set(call.id, {
      code: 'TOOL_CALL_TRUNCATED',
      message: `this ${call.name} call was not run: your reply hit the output token limit, so its arguments may be cut off. Issue the call again with complete arguments, and keep the reply shorter (fewer calls per reply, less text before them, smaller arguments).`,
    });
  return failures;
}

/**
 * Whether the run ends after `truncatedInARow` replies in a row were cut by the output limit.
 * @param truncatedInARow - cut replies in a row, the latest included (0 when the latest was not cut)
 * @param maxTruncatedTurns - the bound (default {@link DEFAULT_MAX_TRUNCATED_TURNS})
 * @returns true when the bound is reached
 * @internal
 */
export function truncatedTurnsExhausted(
  truncatedInARow: number,
  maxTruncatedTurns: number = DEFAULT_MAX_TRUNCATED_TURNS,
): boolean {
  return truncatedInARow >= Math.max(1, maxTruncatedTurns);
}
