// The in-process retry queue of the history capture: batches a store refused are appended again with
// backoff until the store takes them (appends are idempotent by message uid, so a retry never doubles).
import type { HistoryMessageInput, HistorySessionInput, HistoryStore } from '../../history/history-store';

/**
 * Pauses between two tries of a refused batch, in ms: 1 s, 2 s, 5 s, 10 s, 30 s, then every 60 s until the
 * store takes it.
 */
export const HISTORY_RETRY_DELAYS_MS: readonly number[] = [1000, 2000, 5000, 10_000, 30_000, 60_000];

/** Most messages one queue keeps waiting; above it the oldest are given up (counted in `dropped`). */
export const HISTORY_RETRY_MAX_MESSAGES = 10_000;

/** Messages of one session of one user the store has not taken yet. */
export interface PendingHistoryBatch {
  /** The person (`alice` of `user:alice`). */
  readonly user: string;
  /** The session they belong to (the run). */
  readonly session: HistorySessionInput;
  /** The messages, each with its timestamp of capture. */
  readonly messages: readonly HistoryMessageInput[];
}

/** Options of {@link HistoryRetryQueue}. */
export interface HistoryRetryOptions {
  /** Pauses between tries, in ms; the last repeats. @defaultValue {@link HISTORY_RETRY_DELAYS_MS} */
  readonly delaysMs?: readonly number[];
  /** Most messages kept waiting. @defaultValue {@link HISTORY_RETRY_MAX_MESSAGES} */
  readonly maxMessages?: number;
}

/** Largest batch of one append (the stores' limit). */
const APPEND_BATCH = 100;

/**
 * Retries refused history batches in this process until the store archives them: one timer at a time
 * (unref'd: it never keeps a process alive), backoff per {@link HISTORY_RETRY_DELAYS_MS}, reset after a
 * success. Bounded: above `maxMessages` waiting, the oldest messages are given up and counted in
 * {@link HistoryRetryQueue.dropped}. A message queued twice (same user, session and uid) is kept once.
 */
export class HistoryRetryQueue {
  readonly #store: HistoryStore;
  readonly #delays: readonly number[];
  readonly #max: number;
  /** Waiting messages by `user \0 session \0 uid`, oldest first. */
  readonly #waiting = new Map<string, { user: string; session: HistorySessionInput; message: HistoryMessageInput }>();
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;
  #dropped = 0;

  /**
   * @param store - the history store the batches go to
   * @param options - backoff and bound
   */
  constructor(store: HistoryStore, options: HistoryRetryOptions = {}) {
    this.#store = store;
    this.#delays = options.delaysMs?.length ? options.delaysMs : HISTORY_RETRY_DELAYS_MS;
    this.#max = options.maxMessages ?? HISTORY_RETRY_MAX_MESSAGES;
  }

  /** Messages waiting to be archived. */
  get size(): number {
    return this.#waiting.size;
  }

  /** Messages given up because the queue was full. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Queues a refused batch and schedules a try. */
  add(batch: PendingHistoryBatch): void {
    for (const message of batch.messages) {
      const key = `${batch.user}\0${batch.session.id}\0${message.uid}`;
      // A message queued again keeps its first place: the archive gets the messages in capture order.
      if (!this.#waiting.has(key)) this.#waiting.set(key, { user: batch.user, session: batch.session, message });
    }
    for (const key of this.#waiting.keys()) {
      if (this.#waiting.size <= this.#max) break;
      this.#waiting.delete(key);
      this.#dropped++;
    }
    this.#schedule();
  }

  /** Stops the timer (waiting messages stay; a later `add` schedules again). */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#running || this.#waiting.size === 0) return;
    const delay = this.#delays[Math.min(this.#attempt, this.#delays.length - 1)]!;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#flush();
    }, delay);
    this.#timer.unref?.();
  }

  /** One try of every waiting session, oldest first; what the store took leaves the queue. */
  async #flush(): Promise<void> {
    this.#running = true;
    let failed = false;
    try {
      const groups = new Map<string, { user: string; session: HistorySessionInput; keys: string[] }>();
      for (const [key, w] of this.#waiting) {
        const id = `${w.user}\0${w.session.id}`;
        const group = groups.get(id) ?? { user: w.user, session: w.session, keys: [] };
        group.keys.push(key);
        groups.set(id, group);
      }
      for (const group of groups.values()) {
        for (let i = 0; i < group.keys.length; i += APPEND_BATCH) {
          const keys = group.keys.slice(i, i + APPEND_BATCH);
          const messages = keys.flatMap((k) => {
            const w = this.#waiting.get(k);
            return w ? [w.message] : [];
          });
          try {
            if (messages.length) await this.#store.append(group.user, { session: group.session, messages });
            for (const k of keys) this.#waiting.delete(k);
          } catch {
            failed = true;
          }
        }
      }
    } finally {
      this.#running = false;
    }
    this.#attempt = failed ? this.#attempt + 1 : 0;
    this.#schedule();
  }
}

const queues = new WeakMap<HistoryStore, HistoryRetryQueue>();

/** The retry queue of a store (one per store object in this process), made on first use. */
export function historyRetryQueueOf(store: HistoryStore, options?: HistoryRetryOptions): HistoryRetryQueue {
  let queue = queues.get(store);
  if (!queue) {
    queue = new HistoryRetryQueue(store, options);
    queues.set(store, queue);
  }
  return queue;
}
