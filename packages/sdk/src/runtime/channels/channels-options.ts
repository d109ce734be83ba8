// The `channels` option of createAgentHost: the message channels a household talks to its agent through.
import { MediaAgentError } from '../../core/errors';
import type { ChannelPort } from '../../ports/channel';
import type { OutboxDispatcherOptions } from './outbox-dispatcher';

/**
 * Message channels (docs/channels.md): the ports to start with the host, and how their conversations behave.
 *
 * @remarks
 * `host.start()` starts every port with the channel router as its `onInput` (a person's message steers their run
 * under way or starts one; a tap decides an approval or answers a choice as the tapping person); `host.stop()`
 * stops them. Each channel user is mapped to a person by `identity.personOf`; without it every input is refused
 * `CHANNEL_UNKNOWN_USER`. Refused at `createAgentHost` with `OPTIONS_INVALID` naming the path.
 *
 * @example
 * ```ts
 * const host = createAgentHost({
 *   storage,
 *   model: { provider },
 *   identity: {
 *     roleOf: (actor) => (actor === 'user:1' ? 'admin' : 'user'),
 *     personOf: (channelId, userId) => (channelId === 'telegram:home' && userId === '123456' ? 'user:1' : null),
 *   },
 *   channels: { ports: [telegramPort] },
 * });
 * await host.start(); // the ports receive; replies go out through the outbox
 * ```
 * @public
 */
export interface ChannelsOptions {
  /** The channel ports, each with its own `id` (unique). */
  ports: ChannelPort[];
  /**
   * Queued steering messages a run takes before a person's next message starts a conversation of its own (a full
   * inbox falls back to a new run; nothing is dropped). A positive integer.
   * @defaultValue `runs.inboxCapacity` (16)
   */
  inboxLimit?: number;
  /**
   * The secret that signs buttons (tap data carries an HMAC) and derives text confirmation codes; at least 16
   * characters. Every process of a store must use the same one.
   * @defaultValue generated once and kept in the store's settings (`channels.secret`)
   */
  secret?: string;
  /**
   * The outbox dispatcher's timing: poll interval, chat claim lease, backoff of an unavailable channel, a hold after
   * start (`startDelayMs`: no delivery, not even after a step's commit, before it has passed) (see
   * `OutboxDispatcherOptions`).
   * @defaultValue poll every 1 000 ms, 30 000 ms claims, backoff 1 s doubling to 5 min, no hold
   */
  outbox?: Pick<
    OutboxDispatcherOptions,
    'pollIntervalMs' | 'leaseMs' | 'backoff' | 'chatsPerPass' | 'owner' | 'startDelayMs'
  >;
}

/** {@link ChannelsOptions} checked, with defaults (`ResolvedAgentOptions.channels`). @public */
export interface ResolvedChannelsOptions {
  /** The ports by id, in the order given. */
  ports: ReadonlyMap<string, ChannelPort>;
  /** The inbox bound. */
  inboxLimit: number;
  /** The secret, when given. */
  secret: string | undefined;
  /** The dispatcher's timing. */
  outbox: NonNullable<ChannelsOptions['outbox']>;
}

const invalid = (option: string, message: string) =>
  new MediaAgentError('OPTIONS_INVALID', `option ${option} ${message}`, { option });

/**
 * Checks the `channels` option.
 * @param inboxCapacity - `runs.inboxCapacity`, the default inbox bound
 * @returns undefined when the option is absent
 * @throws `OPTIONS_INVALID` naming the path
 */
export function resolveChannelsOptions(
  options: ChannelsOptions | undefined,
  inboxCapacity: number,
): ResolvedChannelsOptions | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw invalid('channels', 'must be an object { ports, inboxLimit?, secret?, outbox? }');
  if (!Array.isArray(options.ports)) throw invalid('channels.ports', 'must be an array of channel ports');
  const ports = new Map<string, ChannelPort>();
  options.ports.forEach((port, i) => {
    const path = `channels.ports[${i}]`;
    if (typeof port !== 'object' || port === null) throw invalid(path, 'must be a ChannelPort object');
    if (typeof port.id !== 'string' || port.id.length === 0 || port.id.length > 100)
      throw invalid(`${path}.id`, 'must be a non-empty string of at most 100 characters');
    if (ports.has(port.id)) throw invalid(`${path}.id`, `repeats the id ${JSON.stringify(port.id)}`);
    for (const method of ['send', 'start', 'stop'] as const)
      if (typeof port[method] !== 'function') throw invalid(`${path}.${method}`, 'must be a function');
    const caps = port.capabilities;
    if (typeof caps !== 'object' || caps === null) throw invalid(`${path}.capabilities`, 'must be an object');
    if (!(Number.isInteger(caps.maxLength) && caps.maxLength >= 16))
      throw invalid(`${path}.capabilities.maxLength`, 'must be an integer of at least 16');
    if (caps.edit && typeof port.edit !== 'function')
      throw invalid(`${path}.edit`, 'must be a function when capabilities.edit is true');
    ports.set(port.id, port);
  });
  const inboxLimit = options.inboxLimit ?? inboxCapacity;
  if (!(Number.isInteger(inboxLimit) && inboxLimit > 0))
    throw invalid('channels.inboxLimit', 'must be a positive integer');
  if (options.secret !== undefined && !(typeof options.secret === 'string' && options.secret.length >= 16))
    throw invalid('channels.secret', 'must be a string of at least 16 characters');
  const outbox = options.outbox ?? {};
  if (typeof outbox !== 'object' || outbox === null || Array.isArray(outbox))
    throw invalid(
      'channels.outbox',
      'must be an object { pollIntervalMs?, leaseMs?, backoff?, chatsPerPass?, owner?, startDelayMs? }',
    );
  const hold = outbox.startDelayMs;
  if (hold !== undefined && !(typeof hold === 'number' && Number.isFinite(hold) && hold >= 0))
    throw invalid('channels.outbox.startDelayMs', 'must be a number >= 0');
  for (const key of ['pollIntervalMs', 'leaseMs', 'chatsPerPass'] as const) {
    const v = outbox[key];
    if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && v > 0))
      throw invalid(`channels.outbox.${key}`, 'must be a positive number');
  }
  return { ports, inboxLimit, secret: options.secret, outbox };
}
