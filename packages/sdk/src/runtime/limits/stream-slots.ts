// Open event streams per actor and in total: a slot is taken when a stream opens and given back once when it ends.
import type { HostLimits } from './host-limits';
import { HostLimitError } from './limit-errors';
import { slotVerdict } from './open-slots';

/**
 * The wait advertised to a caller refused for too many open streams, in ms (streams end when their
 * clients leave, so no exact time can be known): 5 000.
 * @internal
 */
export const STREAM_RETRY_AFTER_MS = 5_000;

/**
 * Counts the event streams open in this process, per actor and in total.
 * @internal
 */
export class StreamSlots {
  readonly #open = new Map<string, number>();
  #total = 0;

  /** @param limits - `streamsPerActor` and `streamsTotal` */
  constructor(private readonly limits: Pick<HostLimits, 'streamsPerActor' | 'streamsTotal'>) {}

  /** Streams open now: for one actor, or in total. */
  open(actor?: string): number {
    return actor === undefined ? this.#total : (this.#open.get(actor) ?? 0);
  }

  /**
   * Takes a slot for `actor`.
   * @returns the release function: gives the slot back on its first call, does nothing after
   * @throws {@link HostLimitError} `STREAM_LIMIT_REACHED` when the actor or the host is at its limit (nothing taken)
   */
  acquire(actor: string): () => void {
    const verdict = slotVerdict(this.open(actor), this.#total, {
      perActor: this.limits.streamsPerActor,
      total: this.limits.streamsTotal,
    });
    if (verdict !== 'ok')
      throw new HostLimitError(
        'STREAM_LIMIT_REACHED',
        actor,
        verdict === 'actor' ? 'perActor' : 'total',
        verdict === 'actor' ? this.limits.streamsPerActor : this.limits.streamsTotal,
        STREAM_RETRY_AFTER_MS,
      );
    this.#open.set(actor, this.open(actor) + 1);
    this.#total++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = this.open(actor) - 1;
      if (left > 0) this.#open.set(actor, left);
      else this.#open.delete(actor);
      this.#total--;
    };
  }
}
