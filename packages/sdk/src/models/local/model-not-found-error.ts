// The start-up check's refusal when a model server answers but does not list the configured model.
import { ProviderError } from '../errors';

/**
 * `host.start()` found the model server of a provider entry answering, but its model list does not hold
 * the configured model (Ollama: not pulled; LM Studio: not downloaded; vLLM: another `--served-model-name`).
 * The message names the entry, the model and the server's list (first 20). Code `MODEL_NOT_FOUND`; not
 * retryable (pull or load the model, or fix the model id, then start again).
 *
 * `details`: `{ entry, provider, baseUrl, url, model, available }` — `entry` is the option path
 * (`model`, `model.fallbacks[0]`), `available` every id the server listed.
 * @public
 */
export class ModelNotFoundError extends ProviderError {
  /** @param message - explanation naming the model and the list; @param details - see the class */
  constructor(message: string, details: Record<string, unknown>) {
    super('MODEL_NOT_FOUND', message, details, false);
  }
}
