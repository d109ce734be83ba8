// The host's channel secret: signs buttons and derives confirmation codes. Given as an option, or generated once and
// kept in the store's settings, so every process of a store (and the next one after a restart) shares it.
import { randomBytes } from 'node:crypto';
import type { StorageAdapter } from '../../ports/storage-adapter';

/** Settings key of the generated channel secret. @public */
export const CHANNEL_SECRET_SETTING = 'channels.secret';

/**
 * The channel secret: `given` when set, else the one stored under {@link CHANNEL_SECRET_SETTING}, generated (32
 * random bytes, base64url) and stored in one transaction the first time (two processes starting at once agree: the
 * second reads the first one's).
 */
export async function loadChannelSecret(storage: StorageAdapter, given?: string): Promise<string> {
  if (given !== undefined) return given;
  return storage.transaction(async (s) => {
    const stored = await s.settings.get(CHANNEL_SECRET_SETTING);
    if (typeof stored === 'string' && stored.length >= 16) return stored;
    const fresh = randomBytes(32).toString('base64url');
    await s.settings.set(CHANNEL_SECRET_SETTING, fresh);
    return fresh;
  });
}

/** The channel secret of one host, loaded by `host.start()` and read by the router and the step commits after. */
export class ChannelSecret {
  #value: string | undefined;

  /** Loads it ({@link loadChannelSecret}); called by `host.start()` before the ports start. */
  async load(storage: StorageAdapter, given?: string): Promise<void> {
    this.#value = await loadChannelSecret(storage, given);
  }

  /** The secret; throws before {@link ChannelSecret.load} (a programming error: the host starts the ports after). */
  get(): string {
    if (this.#value === undefined) throw new Error('the channel secret is read before host.start() loaded it');
    return this.#value;
  }
}
