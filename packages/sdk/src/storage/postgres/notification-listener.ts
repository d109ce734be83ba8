import pg from 'pg';
import type { StorageTopic } from '../../ports/storage-adapter';

/** First delay before reconnecting a lost listening connection, in ms (doubled up to {@link MAX_RETRY_MS}). */
const FIRST_RETRY_MS = 100;
/** Longest delay between reconnection attempts, in ms. */
const MAX_RETRY_MS = 5_000;

/**
 * One dedicated connection that `LISTEN`s on the adapter's channel and calls the watchers with the topic of each
 * notification (`events`, `runs`). Opened with the first watcher, closed with the last. When the connection is
 * lost it reconnects with backoff, and after each (re)connection calls every watcher with both topics: a
 * notification sent while it was away is gone, so the watchers read storage again (storage stays the source of
 * truth; a notification only says "look now").
 * @internal
 */
export class NotificationListener {
  readonly #watchers = new Set<(topic: StorageTopic) => void>();
  #client: pg.Client | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #retryMs = FIRST_RETRY_MS;
  #generation = 0;

  /**
   * @param config - connection settings of the listening client (those of the adapter's pool)
   * @param channel - the channel to `LISTEN` on
   * @param onError - told about a lost connection or a failed reconnection (the listener keeps trying)
   */
  constructor(
    private readonly config: pg.ClientConfig,
    private readonly channel: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Adds a watcher (connecting on the first); returns the function that removes it (closing on the last). */
  add(watcher: (topic: StorageTopic) => void): () => void {
    const entry = (topic: StorageTopic) => watcher(topic);
    this.#watchers.add(entry);
    if (this.#watchers.size === 1) this.#connect();
    return () => {
      if (!this.#watchers.delete(entry)) return;
      if (this.#watchers.size === 0) this.close();
    };
  }

  /** Closes the connection and forgets every watcher. */
  close(): void {
    this.#watchers.clear();
    this.#generation++;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const client = this.#client;
    this.#client = undefined;
    client?.end().catch(() => undefined);
  }

  #connect(): void {
    const generation = ++this.#generation;
    const client = new pg.Client(this.config);
    this.#client = client;
    let gone = false;
    const lost = (error: unknown) => {
      if (gone || generation !== this.#generation) return;
      gone = true;
      this.#client = undefined;
      client.end().catch(() => undefined);
      this.onError(error);
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        if (generation === this.#generation && this.#watchers.size > 0) this.#connect();
      }, this.#retryMs);
      this.#timer.unref?.();
      this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2);
    };
    client.on('error', lost);
    client.on('end', () => lost(new Error('the listening connection ended')));
    client.on('notification', (message) => {
      if (generation !== this.#generation) return;
      const topic = message.payload;
      if (topic === 'events' || topic === 'runs') this.#emit(topic);
    });
    client
      .connect()
      .then(() => client.query(`LISTEN "${this.channel}"`))
      .then(() => {
        if (generation !== this.#generation) return;
        this.#retryMs = FIRST_RETRY_MS;
        // Anything sent before LISTEN took effect was not heard: every watcher reads storage once now.
        this.#emit('events');
        this.#emit('runs');
      }, lost);
  }

  #emit(topic: StorageTopic): void {
    for (const watcher of [...this.#watchers]) {
      try {
        watcher(topic);
      } catch (error) {
        this.onError(error);
      }
    }
  }
}
