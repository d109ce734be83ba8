// Assembling thinking parts from `thinking_delta` events: one rule for every consumer of a stream
// (`collectStream`, the runtime's model turn), so the block boundaries a provider marks are honoured
// everywhere. Anthropic refuses a turn whose thinking or redacted_thinking blocks come back merged,
// altered or moved ("Preserving thinking blocks":
// https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks).
import type { AssistantMessage, ModelEvent, PartOrigin, ThinkingPart } from './types';

/** A `thinking_delta` event. */
type ThinkingDelta = Extract<ModelEvent, { type: 'thinking_delta' }>;

/**
 * Whether a thinking delta continues the last part of a message rather than opening a new part.
 *
 * @remarks
 * It continues only a thinking part that is neither redacted nor signed (a signature closes its block),
 * and only when the delta neither marks a new block (`start`) nor carries a redacted payload (each
 * `redacted_thinking` block is a part of its own). The same rule serves streams that never mark starts.
 * It relies on a block's signature being its last delta: the Anthropic translator holds each block's
 * signature until the block stops, whatever order the server sent it in (before the text, in
 * `content_block_start`), so a block is never split in two or left unsigned here.
 *
 * @param last - the message's last part, if any
 * @param event - the delta
 * @returns true when `event` belongs to `last`
 * @internal
 */
export function continuesThinking(
  last: AssistantMessage['content'][number] | undefined,
  event: ThinkingDelta,
): last is ThinkingPart {
  return (
    event.start !== true &&
    event.redacted === undefined &&
    last?.type === 'thinking' &&
    last.redacted === undefined &&
    !last.signature
  );
}

/**
 * Adds one `thinking_delta` to the parts of an assistant message, in stream order: appended to the last
 * part when it continues it (see {@link continuesThinking}), else as a new thinking part (with the
 * delta's signature or redacted payload). An empty signature is not kept (the Anthropic translator reports a
 * block that ends without one as `PROVIDER_THINKING_UNSIGNED`). The delta's OpenRouter
 * `reasoning_details` items are appended, as received, to the part's `details`. A new part gets `origin`
 * when one is given (the provider and model that produced it; see `ThinkingPart.origin`).
 *
 * @param content - the parts assembled so far (changed in place)
 * @param event - the delta
 * @param origin - who produced the stream (stamped on new parts), if known
 * @returns the part that received the delta
 * @internal
 */
export function appendThinkingDelta(
  content: AssistantMessage['content'],
  event: ThinkingDelta,
  origin?: PartOrigin,
): ThinkingPart {
  const last = content[content.length - 1];
  if (continuesThinking(last, event)) {
    last.thinking += event.thinking;
    if (event.signature) last.signature = event.signature;
    if (event.details !== undefined) last.details = [...(last.details ?? []), ...event.details];
    return last;
  }
  const part: ThinkingPart = {
    type: 'thinking',
    thinking: event.thinking,
    ...(event.signature ? { signature: event.signature } : {}),
    ...(event.redacted !== undefined ? { redacted: event.redacted } : {}),
    ...(event.details !== undefined ? { details: [...event.details] } : {}),
    ...(origin !== undefined ? { origin: { provider: origin.provider, model: origin.model } } : {}),
  };
  content.push(part);
  return part;
}
