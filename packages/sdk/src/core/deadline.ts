// A host hook's answer within a deadline: hooks the runtime awaits (identity, authentication) must not
// hang the call that asked.

/**
 * Longest wait for a host's authentication hook (HTTP `authenticate`, MCP `authenticate`), in ms; a hook
 * that has not answered by then refuses the request as unauthenticated.
 * @public
 */
export const AUTHENTICATE_TIMEOUT_MS = 10_000;

/** Thrown by {@link answerWithin} when the answer came too late. */
export class DeadlineExceeded extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'DeadlineExceeded';
  }
}

/**
 * `answer` if it settles within `timeoutMs`; otherwise a rejection with {@link DeadlineExceeded}. A value
 * that is not a promise is returned as it is, without a timer.
 * @param answer - what the hook returned
 * @param timeoutMs - the deadline in ms
 */
export function answerWithin<T>(answer: T | PromiseLike<T>, timeoutMs: number): Promise<T> {
  if (typeof (answer as { then?: unknown } | null)?.then !== 'function') return Promise.resolve(answer as T);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(timeoutMs)), timeoutMs);
    timer.unref?.();
  });
  return Promise.race([Promise.resolve(answer), late]).finally(() => clearTimeout(timer));
}
