import { MediaAgentError } from '../../core/errors';

/**
 * A caller reached a limit of `AgentOptions.limits`: `STREAM_LIMIT_REACHED` (too many event streams open)
 * or `RUN_START_RATE_LIMITED` (too many runs started in the last minute). Nothing was opened or started.
 * `details`: `actor`, `limit` (`perActor` or `total`: which one refused), `max` (its value) and
 * `retryAfterMs` (when to try again; the HTTP router sends it as `Retry-After` in whole seconds).
 * @public
 */
export class HostLimitError extends MediaAgentError {
  /**
   * @param code - which limit kind
   * @param actor - who asked
   * @param limit - which limit refused: the actor's own or the host's total
   * @param max - the limit's value
   * @param retryAfterMs - when to try again, in ms
   */
  constructor(
    code: 'STREAM_LIMIT_REACHED' | 'RUN_START_RATE_LIMITED',
    actor: string,
    limit: 'perActor' | 'total',
    max: number,
    retryAfterMs: number,
  ) {
    const what =
      code === 'STREAM_LIMIT_REACHED'
        ? `${limit === 'total' ? 'the host has' : `${actor} has`} ${max} event streams open, the most allowed`
        : `${limit === 'total' ? 'the host' : actor} started ${max} runs in the last minute, the most allowed`;
    super(code, `${what}; try again in ${Math.ceil(retryAfterMs / 1000)} s`, { actor, limit, max, retryAfterMs });
  }
}
