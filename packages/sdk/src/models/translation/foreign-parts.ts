// A conversation without what may not go to the target: thinking of another family or model, and tool-call
// signatures of another dialect.
import type { AssistantMessage, ModelMessage } from '../types';
import type { TranslationTarget } from './target';
import { thinkingGoesBack } from './thinking';
import { toolCallSignatureGoesBack } from './tool-call-signatures';

/**
 * Removes from each assistant message the thinking parts that may not go to `target` (see
 * {@link thinkingGoesBack}) and the tool-call signatures it may not receive (see
 * {@link toolCallSignatureGoesBack}); tool calls, text and every other message stay. An assistant message left
 * empty is dropped later by `normalizeConversation` (its calls, if any, are still there). Pure: the input is not
 * changed; messages with nothing to remove are returned as they are.
 *
 * @param messages - the conversation
 * @param target - the provider the request is for
 * @returns the conversation for `target`
 * @internal
 */
export function withoutForeignParts(messages: readonly ModelMessage[], target: TranslationTarget): ModelMessage[] {
  return messages.map((m) => {
    if (m.role !== 'assistant') return m;
    let changed = false;
    const content: AssistantMessage['content'] = [];
    for (const p of m.content) {
      if (p.type === 'thinking') {
        if (thinkingGoesBack(p, target)) content.push(p);
        else changed = true;
      } else if (p.type === 'tool_call' && p.signature !== undefined && !toolCallSignatureGoesBack(p, target)) {
        const { signature: _signature, origin: _origin, ...call } = p;
        content.push(call);
        changed = true;
      } else content.push(p);
    }
    return changed ? { ...m, content } : m;
  });
}
