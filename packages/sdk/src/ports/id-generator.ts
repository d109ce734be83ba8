import { randomUUID } from 'node:crypto';

/**
 * Source of unique ids (invocations, approvals, grants, plans, executor tokens), injectable so
 * tests get predictable ids.
 *
 * @public
 */
export interface IdGenerator {
  /**
   * Returns a new unique id.
   * @param prefix - a short kind label such as `inv`, `apr`, `grt`; implementations prepend it as `<prefix>_`
   */
  next(prefix: string): string;
}

/**
 * Default {@link IdGenerator}: `<prefix>_<random UUID v4 without dashes>`.
 *
 * @public
 */
export class RandomIdGenerator implements IdGenerator {
  /** {@inheritDoc IdGenerator.next} */
  next(prefix: string): string {
    return `${prefix}_${randomUUID().replaceAll('-', '')}`;
  }
}

/**
 * {@link IdGenerator} that counts: `<prefix>_1`, `<prefix>_2`, … (one counter per prefix); for tests.
 *
 * @public
 */
export class SequentialIdGenerator implements IdGenerator {
  readonly #counters = new Map<string, number>();
  /** {@inheritDoc IdGenerator.next} */
  next(prefix: string): string {
    const n = (this.#counters.get(prefix) ?? 0) + 1;
    this.#counters.set(prefix, n);
    return `${prefix}_${n}`;
  }
}
