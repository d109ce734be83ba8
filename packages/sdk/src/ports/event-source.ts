/**
 * The listening side of an event emitter: what the SDK's `events` properties expose.
 *
 * @remarks
 * `Events` maps each event name to its listener's arguments, e.g. `{ decided: [ApprovalRecord] }`.
 * Listeners run synchronously, in registration order, after the change they report is stored; a
 * listener that throws does not undo the change.
 *
 * @example
 * ```ts
 * const listener = (e: InvocationEvent) => console.log(e.capabilityId, e.result.status);
 * host.capabilities.events.on('invocation', listener);
 * host.capabilities.events.off('invocation', listener);
 * ```
 * @public
 */
export interface EventSource<Events extends { [name: string]: unknown[] }> {
  /** Calls `listener` for every `event` from now on. @returns this source */
  on<K extends keyof Events & string>(event: K, listener: (...args: Events[K]) => void): this;
  /** Calls `listener` for the next `event` only. @returns this source */
  once<K extends keyof Events & string>(event: K, listener: (...args: Events[K]) => void): this;
  /** Removes `listener` (every listener of `event` when omitted). @returns this source */
  off<K extends keyof Events & string>(event: K, listener?: (...args: Events[K]) => void): this;
}
