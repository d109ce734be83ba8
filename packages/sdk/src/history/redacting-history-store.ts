// The history side of the redaction boundary: what the runtime archives in a user's history passes
// through the host's SecretRedactor (docs/secrets.md), on top of the store's own redaction.
import type { SecretRedactor } from '../core/secret-redactor';
import type { HistoryAppend, HistoryMessageInput, HistoryStore } from './history-store';

/**
 * A view of `store` whose `append` redacts each message's `content` and `toolCalls` and the session's
 * `title`; every other method is the store's own.
 * @param store - the host's history store
 * @param redactor - the host's redaction step
 * @returns the view
 * @public
 */
export function redactingHistoryStore(store: HistoryStore, redactor: SecretRedactor): HistoryStore {
  // Malformed input is passed on as it is: the store refuses it (HISTORY_INPUT_INVALID).
  const message = (m: HistoryMessageInput): HistoryMessageInput =>
    typeof m !== 'object' || m === null
      ? m
      : {
          ...m,
          ...(typeof m.content === 'string' ? { content: redactor.text(m.content) } : {}),
          ...(typeof m.toolCalls === 'string' ? { toolCalls: redactor.text(m.toolCalls) } : {}),
        };
  const append = (userId: string, batch: HistoryAppend) =>
    typeof batch !== 'object' || batch === null
      ? store.append(userId, batch)
      : store.append(userId, {
          ...batch,
          session:
            typeof batch?.session?.title === 'string'
              ? { ...batch.session, title: redactor.text(batch.session.title) }
              : batch?.session,
          messages: Array.isArray(batch.messages) ? batch.messages.map(message) : batch.messages,
        });
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'append') return append;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
