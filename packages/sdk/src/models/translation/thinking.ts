// Which thinking parts go back to which provider. Signatures and reasoning never cross provider families:
// an Anthropic signature binds the block to the model that signed it ("Invalid `signature` in `thinking` block"
// after a model switch: vybestack/llxprt-code#2335, NousResearch/hermes-agent#24401), and another family's
// reasoning is not the target's own. Foreign reasoning is dropped, never turned into text (can1357/oh-my-pi#7241:
// reasoning demoted to assistant text is refused as reasoning extraction).
import type { ThinkingPart } from '../types';
import type { TranslationTarget } from './target';

/**
 * Whether a thinking part may be sent back to `target`.
 *
 * @remarks
 * - A part without `origin` (stored before origins were recorded, or built by hand) counts as the target's
 *   own, as before, except that its shape can betray its family: a signed or redacted part is Anthropic's
 *   (no other provider signs thinking), so it never goes to an OpenAI-compatible server; an unsigned one never
 *   goes to Anthropic (the API refuses a thinking block without its signature).
 * - To Anthropic: only a signed or redacted part that Anthropic produced for the same model
 *   (`origin.provider === target.provider` and `origin.model === target.model`); a signature is bound to the
 *   model that made it, so a block of another Claude model is dropped too.
 * - To an OpenAI-compatible server: only a part produced by the same provider (the same dialect,
 *   `openai-compatible:<dialect>`), whatever the model; the dialect's `reasoningReplay` rule then decides which
 *   of those go back. Everything else is dropped.
 *
 * Pure.
 * @param part - the thinking part
 * @param target - the provider the request is for
 * @returns true when the part may go back
 * @internal
 */
export function thinkingGoesBack(part: ThinkingPart, target: TranslationTarget): boolean {
  if (target.family === 'anthropic' && !part.signature && part.redacted === undefined) return false;
  const origin = part.origin;
  if (origin === undefined) return target.family === 'anthropic' || (!part.signature && part.redacted === undefined);
  if (origin.provider !== target.provider) return false;
  return target.family === 'anthropic' ? origin.model === target.model : true;
}
