// What a server said about a response (id, model, raw finish reason), attached to the stream's `done`
// event without changing the event's shape: the built-in translators attach it, the model turn reads it
// for the trace (docs/architecture.md#traces).
import type { ModelEvent, ModelResponseInfo } from './types';

type DoneEvent = Extract<ModelEvent, { type: 'done' }>;

const attached = new WeakMap<DoneEvent, ModelResponseInfo>();

/**
 * Attaches what the server said about the response to a stream's `done` event (the event object itself
 * is unchanged: its fields and their values stay as they were). A custom provider calls it to have the
 * raw finish reason, the response id and the answering model recorded on the model call's trace span.
 *
 * @example
 * ```ts
 * yield attachResponseInfo({ type: 'done', stopReason: 'end_turn' }, { id: body.id, model: body.model, finishReason: 'stop' });
 * ```
 * @param done - the `done` event the provider yields
 * @param info - response id, model and the finish reason as the server sent it
 * @returns `done`
 * @public
 */
export function attachResponseInfo<E extends Extract<ModelEvent, { type: 'done' }>>(
  done: E,
  info: ModelResponseInfo,
): E {
  attached.set(done, { ...info });
  return done;
}

/**
 * What was attached to a `done` event with {@link attachResponseInfo}, if anything.
 * @public
 */
export function responseInfoOf(done: Extract<ModelEvent, { type: 'done' }>): ModelResponseInfo | undefined {
  return attached.get(done);
}
