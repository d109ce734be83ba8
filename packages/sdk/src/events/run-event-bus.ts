import { EventEmitter } from 'eventemitter3';
import type { Clock } from '../ports/clock';
import type { RunEventRecord } from '../core/run-records';
import type { StorageAdapter, StorageSession } from '../ports/storage-adapter';
import type { JsonValue } from '../core/records';
import type { RunEvent, RunEventPayloads, RunEventType } from './run-event';

/**
 * Run events: written to storage first (per-run `seq`, global sequence), then published in process
 * (eventemitter3). `subscribe({ after })` replays from storage and continues live, so a subscriber
 * that reconnects with its last global sequence misses nothing and sees nothing twice.
 * @public
 */
export class RunEventBus {
  readonly #emitter = new EventEmitter<{ event: [RunEvent] }>();

  /** @param storage - where events are persisted; @param clock - event times */
  constructor(
    private readonly storage: StorageAdapter,
    private readonly clock: Clock,
  ) {}

  /**
   * Persists an event, then publishes it.
   * @param session - write inside this transaction (the caller publishes with {@link RunEventBus.publish} after commit); omitted: own transaction, published at once
   */
  async emit<T extends RunEventType>(runId: string, type: T, data: RunEventPayloads[T], session?: StorageSession): Promise<RunEvent> {
    const record = await (session ?? this.storage).events.append({ runId, type, at: this.clock.now(), data: data as unknown as JsonValue });
    const event = toRunEvent(record);
    if (!session) this.publish(event);
    return event;
  }

  /** Publishes events that were persisted inside a committed transaction. */
  publish(...events: RunEvent[]): void {
    for (const e of events) this.#emitter.emit('event', e);
  }

  /**
   * Every event with `globalSeq > after`, in global order, each once: storage is read from `after`
   * on, then again whenever an event is published in this process or every `pollMs` (events written
   * by other processes sharing the store). Ends when `signal` aborts.
   * @param options - `after`: the last global sequence seen (default 0); `runId`: only this run's events;
   *   `pollMs`: storage poll interval in ms (default 1000)
   */
  async *subscribe(options: { after?: number; runId?: string; signal?: AbortSignal; pollMs?: number } = {}): AsyncGenerator<RunEvent> {
    let last = options.after ?? 0;
    let dirty = true;
    let wake: (() => void) | undefined;
    const notify = () => {
      dirty = true;
      wake?.();
    };
    this.#emitter.on('event', notify);
    options.signal?.addEventListener('abort', notify);
    try {
      while (!options.signal?.aborted) {
        if (dirty) {
          dirty = false;
          for (;;) {
            const page = await this.storage.events.listAfter(last, 500);
            for (const record of page) {
              last = record.globalSeq;
              if (options.runId === undefined || record.runId === options.runId) yield toRunEvent(record);
              if (options.signal?.aborted) return;
            }
            if (page.length < 500) break;
          }
        }
        if (!dirty) {
          let timer: ReturnType<typeof setTimeout> | undefined;
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(notify, options.pollMs ?? 1000);
          });
          clearTimeout(timer);
          wake = undefined;
        }
      }
    } finally {
      this.#emitter.off('event', notify);
      options.signal?.removeEventListener('abort', notify);
    }
  }

  /** Listens to every event published in this process (no replay); returns the unsubscribe function. */
  onEvent(listener: (event: RunEvent) => void): () => void {
    this.#emitter.on('event', listener);
    return () => this.#emitter.off('event', listener);
  }
}

/** Converts a stored record into a {@link RunEvent}. @public */
export function toRunEvent(record: RunEventRecord): RunEvent {
  return { type: record.type, runId: record.runId, seq: record.seq, globalSeq: record.globalSeq, at: record.at, data: record.data } as RunEvent;
}
