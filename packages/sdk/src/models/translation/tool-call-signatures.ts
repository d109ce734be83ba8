// Which tool-call signatures go back: Gemini's thought signature belongs to the dialect that produced it.
import type { ToolCallPart } from '../types';
import type { TranslationTarget } from './target';

/**
 * Whether a tool call's `signature` (Gemini's `thought_signature`) may be sent back to `target`.
 *
 * @remarks
 * Only to the provider that produced it (`origin.provider === target.provider`); a call without `origin`
 * counts as the target's own (the behaviour before origins were recorded). The dialect then decides whether it
 * sends signatures at all (`OpenAIDialect.toolCallSignatures`). The call itself always goes back. Pure.
 *
 * @param part - the tool call
 * @param target - the provider the request is for
 * @returns true when the signature may go back
 * @internal
 */
export function toolCallSignatureGoesBack(part: ToolCallPart, target: TranslationTarget): boolean {
  if (part.signature === undefined) return false;
  return part.origin === undefined || part.origin.provider === target.provider;
}
