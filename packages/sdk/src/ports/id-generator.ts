import { randomFillSync } from 'node:crypto';

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

/** Largest value of the 12-bit counter of a time-ordered id (RFC 9562 `rand_a`). */
const COUNTER_MAX = 0xfff;

/** Shared by every generator of the process, so ids stay ordered across generators. */
const clock = { ms: -1, counter: 0, prefix: '' };

/** Random bytes drawn 4 KiB at a time (one system call per 512 ids), each id taking 8. */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/**
 * The 32 hex digits of a new UUID version 7 (RFC 9562, section 5.7): 48 bits of Unix time in ms,
 * the version, a 12-bit counter (section 6.2, method 1: seeded at random in the lower half when the
 * millisecond changes, incremented within it; on overflow the timestamp is advanced by one), then the
 * variant and 62 random bits. Within one process every id is greater than the one before, even when
 * the wall clock steps back.
 */
function uuidV7Hex(): string {
  const now = Date.now();
  if (now > clock.ms) {
    clock.ms = now;
    clock.counter = Math.floor(Math.random() * (COUNTER_MAX >> 1));
    clock.prefix = `${now.toString(16).padStart(12, '0')}7`;
  } else if (++clock.counter > COUNTER_MAX) {
    clock.ms++;
    clock.counter = 0;
    clock.prefix = `${clock.ms.toString(16).padStart(12, '0')}7`;
  }
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  pool[poolAt] = (pool[poolAt]! & 0x3f) | 0x80; // the variant, binary 10
  const random = pool.toString('hex', poolAt, poolAt + 8);
  poolAt += 8;
  return clock.prefix + clock.counter.toString(16).padStart(3, '0') + random;
}

/**
 * Default {@link IdGenerator}: `<prefix>_<32 hex digits of a UUID version 7>`.
 *
 * @remarks
 * The digits begin with the creation time (ms since the Unix epoch) and a counter, and end with 62
 * random bits (RFC 9562, section 5.7), so ids of one prefix sort in creation order within a process
 * and are unique across processes. Stored ids are keys of B-tree indexes: ids that sort by time are
 * appended at the right edge of an index instead of landing on random pages, which keeps inserts cheap
 * as tables grow.
 *
 * @public
 */
export class RandomIdGenerator implements IdGenerator {
  /** {@inheritDoc IdGenerator.next} */
  next(prefix: string): string {
    return `${prefix}_${uuidV7Hex()}`;
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
