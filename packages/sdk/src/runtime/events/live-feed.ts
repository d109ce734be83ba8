// What one subscription of the run event bus keeps between reads of the store: the events this process published
// since, whether the store must be read, and the wait for either.
import type { RunEvent } from './run-event';

/** At most this many published events wait for a subscriber that is behind; past it, it reads the store. */
export const MAX_LIVE_EVENTS = 1000;

/**
 * The events published in this process that a subscription has not looked at yet, and whether it must read the store
 * before it waits again (`dirty`: at the start, on a gap, on a storage `watch`, at each poll, after an abort).
 * @internal
 */
export class LiveFeed {
  /** Published events not yet looked at, in publication order. */
  readonly live: RunEvent[] = [];
  /** The store must be read before anything published is looked at. */
  dirty = true;
  #wake: (() => void) | undefined;

  /** @param accepts - which published events the subscription wants */
  constructor(private readonly accepts: (event: RunEvent) => boolean = () => true) {}

  /** The store must be read (a storage `watch`, the poll timer, an abort): wakes the subscription. */
  readonly notify = (): void => {
    this.dirty = true;
    this.#wake?.();
  };

  /** Wakes a waiting subscription without asking for a store read (the host stopped: it delivers what it holds). */
  readonly wake = (): void => {
    this.#wake?.();
  };

  /**
   * An event this process published: kept for the subscription (also while it must read the store: the read skips
   * what it already delivered, and a stopped host's subscription can no longer read); a subscription
   * {@link MAX_LIVE_EVENTS} behind drops what it holds and reads the store instead.
   */
  readonly published = (event: RunEvent): void => {
    if (!this.accepts(event)) return;
    if (this.live.length >= MAX_LIVE_EVENTS) {
      this.live.length = 0;
      this.dirty = true;
    } else this.live.push(event);
    this.#wake?.();
  };

  /**
   * The next published event that continues a sequence whose last seen number is `last` (`position` reads the number:
   * `globalSeq`, or a run's `seq`); those at or before `last` are skipped. Undefined when none is waiting, or on a gap
   * (an event another process committed in between, or one published out of commit order): the store must then be
   * read (`dirty`). While the store must be read, nothing is taken — unless `held` (the host stopped, the store is
   * read no more): then what continues the sequence is taken up to the first gap.
   */
  next(last: number, position: (event: RunEvent) => number, held = false): RunEvent | undefined {
    while (this.live.length > 0 && (held || !this.dirty)) {
      const event = this.live.shift()!;
      const at = position(event);
      if (at <= last) continue;
      if (at === last + 1) return event;
      this.dirty = true;
      if (held) return undefined;
    }
    return undefined;
  }

  /**
   * Waits for a published event, a `notify`, a `wake`, or `pollMs` (which notifies); returns at once when there is
   * work or `stop` aborted.
   */
  async idle(pollMs: number, stop?: AbortSignal): Promise<void> {
    if (this.dirty || this.live.length > 0 || stop?.aborted) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.#wake = resolve;
      timer = setTimeout(this.notify, pollMs);
    });
    clearTimeout(timer);
    this.#wake = undefined;
  }
}
