// The model side of the redaction boundary: what a run sends to its model, and the errors and warnings
// the model's provider reports back, pass through the host's SecretRedactor (docs/secrets.md).
import { redactModelRequest, type SecretRedactor } from '../core/secret-redactor';
import type { ModelEvent, ModelProvider, ModelRequest } from './types';

const wrapped = new WeakMap<ModelProvider, ModelProvider>();

/**
 * A view of `provider` whose calls send the conversation redacted (text, tool calls and tool results;
 * thinking signatures, encrypted reasoning and image bytes unchanged) and whose `error` and `warning`
 * events, and thrown errors, carry redacted messages and details. Every other member is the provider's own.
 *
 * @param provider - the host's model provider
 * @param redactor - the host's redaction step
 * @returns the view (the same view for the same provider)
 * @public
 */
export function redactingProvider(provider: ModelProvider, redactor: SecretRedactor): ModelProvider {
  const known = wrapped.get(provider);
  if (known) return known;
  const stream = (request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelEvent> =>
    redactedEvents(() => provider.stream(redactModelRequest(redactor, request), signal), redactor);
  const out = new Proxy(provider, {
    get(target, prop) {
      if (prop === 'stream') return stream;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  wrapped.set(provider, out);
  wrapped.set(out, out);
  return out;
}

/** The provider's events with errors and warnings redacted; a provider that throws, even at once, throws redacted. */
async function* redactedEvents(
  open: () => AsyncIterable<ModelEvent>,
  redactor: SecretRedactor,
): AsyncIterable<ModelEvent> {
  try {
    for await (const event of open()) {
      if (event.type === 'error') yield { ...event, error: redactor.error(event.error) };
      else if (event.type === 'warning') yield { ...event, warning: redactor.value(event.warning) };
      else yield event;
    }
  } catch (error) {
    throw redactor.error(error);
  }
}
