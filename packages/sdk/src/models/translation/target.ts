// The provider a request is translated for: its id, the model the request names, and its family.
import type { PartOrigin } from '../types';

/**
 * A provider family: the wire protocol a provider speaks. Thinking and signatures never cross families.
 *
 * @internal
 */
export type TranslationFamily = 'anthropic' | 'openai-compatible';

/**
 * The provider a conversation is translated for.
 *
 * @internal
 */
export interface TranslationTarget extends PartOrigin {
  /** The family of `provider` (`anthropic` for `AnthropicProvider`, `openai-compatible` for `OpenAICompatibleProvider`). */
  family: TranslationFamily;
}
