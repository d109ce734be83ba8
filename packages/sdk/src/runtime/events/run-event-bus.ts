import { EventEmitter } from 'eventemitter3';
import type { Clock } from '../../ports/clock';
import { TERMINAL_RUN_STATUSES, type RunEventRecord, type RunStatus } from '../../core/run-records';
import type { StorageAdapter, StorageSession } from '../../ports/storage-adapter';
import type { JsonValue } from '../../core/records';
import { HostLifecycleError } from '../host-lifecycle';
import { LiveFeed } from './live-feed';
import type { RunEvent, RunEventPayloads, RunEventType } from './run-event';

/**
 * What {@link RunEventBus.subscribe} (and `AgentHost.events`) delivers.
 * @public
 */
export interface RunEventSubscription {
  /** The last global sequence seen (default 0: from the first stored event). */
  after?: number;
  /**
   * Only this run's events. The iteration then ends by itself after the run's terminal `run_status`
   * event (`succeeded`, `failed`, `cancelled`, `budget_exceeded`) once every event stored for the run
   * before it ended was delivered — unless `follow` is set. A run that ends `waiting` does not end it.
   */
  runId?: string;
  /**
   * With `runId`: keep the iteration open after the run ended, across wakes of the finished run (a
   * message appended to an ended run drives it again), until `signal` aborts. Default false.
   */
  follow?: boolean;
  /** Ends the iteration (quietly) when aborted. `AgentHost.events` also ends it when the host stops, with `HOST_STOPPED`. */
  signal?: AbortSignal;
  /**
   * Subscribe on a person's behalf (`AgentHost.events` only): an ordinary user gets the events of the
   * runs they own (with `runId`, a run they may not see fails `RUN_NOT_FOUND` on the first iteration); an
   * administrator gets every event. Without it the subscription is a trusted host subscription. With it
   * the actor's access is re-checked while the subscription is open, and it counts towards the open-stream
   * limits (see `AgentHost.events`).
   */
  actor?: string;
  /**
   * With `actor` (`AgentHost.events` only): asked at each access re-check (every `accessRecheckMs`, and when
   * the host calls `identityChanged`) whether the subscriber is still authenticated as `actor`; anything but
   * `true` (or a throw) ends the subscription with an `access_lost` event (`unauthenticated`). The HTTP
   * router passes its `authenticate` hook run again on the stream's request, so a signed-out token ends the stream.
   */
  reauthenticate?: () => boolean | Promise<boolean>;
  /**
   * Storage poll interval in ms for events written by other processes (default 1000). A storage that can
   * `watch` (PostgreSQL: `LISTEN`/`NOTIFY`) also wakes the subscription as soon as another process commits events.
   */
  pollMs?: number;
}

const byGlobalSeq = (event: RunEvent) => event.globalSeq;
const bySeq = (event: RunEvent) => event.seq;
/** A store read that failed because the host stopped (its store closed under it). */
const HALTED = Symbol('halted');
/** Reaches a bus's subscription that also ends when a host stops (set by the class's static block). */
let subscribeStopping: (bus: RunEventBus, options: RunEventSubscription, stop: AbortSignal) => AsyncGenerator<RunEvent>;

/**
 * Run events: written to storage first (per-run `seq`, global sequence), then published in process
 * (eventemitter3). `subscribe({ after })` replays from storage and continues live, so a subscriber
 * that reconnects with its last global sequence misses nothing and sees nothing twice.
 * @public
 */
export class RunEventBus {
  readonly #emitter = new EventEmitter<{ event: [RunEvent] }>();

  static {
    subscribeStopping = (bus, options, stop) => bus.#subscribe(options, stop);
  }

  /** @param storage - where events are persisted; @param clock - event times */
  constructor(
    private readonly storage: StorageAdapter,
    private readonly clock: Clock,
  ) {}

  /**
   * Persists an event, then publishes it.
   * @param session - write inside this transaction (the caller publishes with {@link RunEventBus.publish} after commit); omitted: own transaction, published at once
   * @param messageCount - set on the last event of a step commit: the messages the run has stored once it commits
   *   (`RunEventRecord.messageCount`; never delivered with the event)
   */
  async emit<T extends RunEventType>(
    runId: string,
    type: T,
    data: RunEventPayloads[T],
    session?: StorageSession,
    messageCount?: number,
  ): Promise<RunEvent> {
    const record = await (session ?? this.storage).events.append({
      runId,
      type,
      at: this.clock.now(),
      data: data as unknown as JsonValue,
      ...(messageCount !== undefined ? { messageCount } : {}),
    });
    const event = toRunEvent(record);
    if (!session) this.publish(event);
    return event;
  }

  /** Publishes events that were persisted inside a committed transaction. */
  publish(...events: RunEvent[]): void {
    for (const e of events) this.#emitter.emit('event', e);
  }

  /**
   * Every event with `globalSeq > after`, in global order, each once: storage is read from `after` on; an event
   * this process publishes that continues the global sequence is delivered as published, without a read; storage is
   * read again on a gap, whenever the storage's `watch` reports events committed by another process, and every
   * `pollMs` (events written by other processes sharing the store). Ends when `signal` aborts; with `runId` (and no
   * `follow`), also once the run has ended — see {@link RunEventSubscription}. With `runId`, only that run is read.
   * An event may be the same object every subscriber in this process gets: treat it as read-only.
   */
  subscribe(options: RunEventSubscription = {}): AsyncGenerator<RunEvent> {
    return this.#subscribe(options, undefined);
  }

  /**
   * {@link RunEventBus.subscribe}; when `stop` (a host's stop signal) aborts, the subscription delivers what it holds
   * (a page read, events published) without reading the store again, then fails with `HOST_STOPPED` — or, for a run
   * whose terminal status it delivered, ends.
   */
  async *#subscribe(options: RunEventSubscription, stop: AbortSignal | undefined): AsyncGenerator<RunEvent> {
    if (options.runId !== undefined) {
      yield* this.#subscribeRun(options.runId, options, stop);
      return;
    }
    const signal = options.signal;
    let last = options.after ?? 0;
    const feed = new LiveFeed();
    this.#emitter.on('event', feed.published);
    signal?.addEventListener('abort', feed.notify);
    stop?.addEventListener('abort', feed.wake);
    const unwatch = this.storage.watch?.((topic) => {
      if (topic === 'events') feed.notify();
    });
    try {
      while (!signal?.aborted) {
        if (stop?.aborted) {
          // The host stopped: what this process published, while it continues the sequence, then the end.
          for (let event: RunEvent | undefined; !signal?.aborted && (event = feed.next(last, byGlobalSeq, true)); ) {
            last = event.globalSeq;
            yield event;
          }
          if (signal?.aborted) return;
          throw new HostLifecycleError('stopped', 'events');
        }
        if (feed.dirty) {
          feed.dirty = false;
          for (;;) {
            const page = await halting(stop, () => this.storage.events.listAfter(last, 500));
            // Aborted while the store was read: nothing more is delivered.
            if (signal?.aborted) return;
            if (page === HALTED) break;
            for (const record of page) {
              if (record.globalSeq <= last) continue;
              last = record.globalSeq;
              yield toRunEvent(record);
              if (signal?.aborted) return;
            }
            if (page.length < 500) break;
          }
        }
        // What this process published since, while it continues the global sequence (a gap is read from the store).
        for (let event: RunEvent | undefined; !signal?.aborted && (event = feed.next(last, byGlobalSeq)); ) {
          last = event.globalSeq;
          yield event;
        }
        await feed.idle(options.pollMs ?? 1000, stop);
      }
    } finally {
      unwatch?.();
      this.#emitter.off('event', feed.published);
      signal?.removeEventListener('abort', feed.notify);
      stop?.removeEventListener('abort', feed.wake);
    }
  }

  /**
   * One run's events with `globalSeq > after`, in the run's order (its `seq`, which is also its commit order), each
   * once. Only that run is read — by its own sequence (`events.listByRun`), never the events of every run — and only
   * when needed: an event this process publishes for the run that continues its sequence is delivered as published,
   * without a read; the store is read at the start, on a gap (an event committed by another process), when the
   * storage's `watch` reports events, every `pollMs`, and once more after the run was seen ended. Events other runs
   * publish do not wake it.
   */
  async *#subscribeRun(
    runId: string,
    options: RunEventSubscription,
    stop: AbortSignal | undefined,
  ): AsyncGenerator<RunEvent> {
    const untilEnd = options.follow !== true;
    const after = options.after ?? 0;
    const signal = options.signal;
    /** The last `run_status` of the run seen was terminal. */
    let ended = false;
    /** The run was seen finished (terminal, no wake asked) while `ended`: one more read, then the end. */
    let closing = false;
    /** The run's last event seen (`seq`): delivered, or at or before `after`. */
    let lastSeq = 0;
    const feed = new LiveFeed((event) => event.runId === runId);
    /** Notes `event` as seen; true when it is to be delivered. */
    const see = (event: RunEvent | RunEventRecord): boolean => {
      lastSeq = event.seq;
      if (event.type === 'run_status')
        ended = TERMINAL_RUN_STATUSES.includes((event.data as { status: RunStatus }).status);
      return event.globalSeq > after;
    };
    this.#emitter.on('event', feed.published);
    signal?.addEventListener('abort', feed.notify);
    stop?.addEventListener('abort', feed.wake);
    const unwatch = this.storage.watch?.((topic) => {
      if (topic === 'events') feed.notify();
    });
    try {
      while (!signal?.aborted) {
        if (stop?.aborted) {
          // The host stopped: what this process published for the run, while it continues its sequence; then the end
          // of the run's events when its end was delivered (the store is not read again to confirm it), else the error.
          for (let event: RunEvent | undefined; !signal?.aborted && (event = feed.next(lastSeq, bySeq, true)); )
            if (see(event)) yield event;
          if (signal?.aborted || (untilEnd && ended)) return;
          throw new HostLifecycleError('stopped', 'events');
        }
        if (feed.dirty) {
          feed.dirty = false;
          for (;;) {
            const page = await halting(stop, () =>
              this.storage.events.listByRun(runId, { afterSeq: lastSeq, limit: 500 }),
            );
            // Aborted while the store was read: nothing more is delivered.
            if (signal?.aborted) return;
            if (page === HALTED) break;
            for (const record of page) {
              if (record.seq <= lastSeq) continue;
              if (see(record)) yield toRunEvent(record);
              if (signal?.aborted) return;
            }
            if (page.length < 500) break;
          }
        }
        // What this process published since, while it continues the run's sequence (a gap is read from the store).
        for (let event: RunEvent | undefined; !signal?.aborted && (event = feed.next(lastSeq, bySeq)); )
          if (see(event)) yield event;
        if (feed.dirty) continue;
        if (untilEnd && ended) {
          // Read the run's events once more after seeing it finished, so none written before that is missed.
          if (closing) return;
          const run = await halting(stop, () => this.storage.runs.get(runId));
          if (run === HALTED) continue;
          if (run && TERMINAL_RUN_STATUSES.includes(run.status) && !run.wakeRequested) {
            closing = true;
            feed.dirty = true;
            continue;
          }
        } else closing = false;
        await feed.idle(options.pollMs ?? 1000, stop);
      }
    } finally {
      unwatch?.();
      this.#emitter.off('event', feed.published);
      signal?.removeEventListener('abort', feed.notify);
      stop?.removeEventListener('abort', feed.wake);
    }
  }

  /** Listens to every event published in this process (no replay); returns the unsubscribe function. */
  onEvent(listener: (event: RunEvent) => void): () => void {
    this.#emitter.on('event', listener);
    return () => this.#emitter.off('event', listener);
  }
}

/**
 * `bus.subscribe(options)` that also ends when `stop` (the host's stop signal) aborts: it delivers what it holds (a
 * page it read, events this process published that continue its sequence) without reading the store again, then
 * fails with `HOST_STOPPED`; a run subscription whose run's terminal status was delivered ends instead. A caller's
 * `signal` still ends it quietly, at once. Nothing stays attached to `stop` once it ended.
 * @internal
 */
export function subscribeUntilStopped(
  bus: RunEventBus,
  options: RunEventSubscription,
  stop: AbortSignal,
): AsyncGenerator<RunEvent> {
  return subscribeStopping(bus, options, stop);
}

/** `read()`, or {@link HALTED} when it failed because `stop` aborted (the stopped host's store closed under it). */
async function halting<T>(stop: AbortSignal | undefined, read: () => Promise<T>): Promise<T | typeof HALTED> {
  try {
    return await read();
  } catch (error) {
    if (stop?.aborted) return HALTED;
    throw error;
  }
}

/** Converts a stored record into a {@link RunEvent}. @public */
export function toRunEvent(record: RunEventRecord): RunEvent {
  return {
    type: record.type,
    runId: record.runId,
    seq: record.seq,
    globalSeq: record.globalSeq,
    at: record.at,
    data: record.data,
  } as RunEvent;
}
