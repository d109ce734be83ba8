// Repeated long tool results as references in the outbound request, attached as a middleware.
import { dedupeRepeatedResults } from '../context/compaction';
import type { RunMiddleware } from './run-middleware';

/**
 * A {@link RunMiddleware} named `repeated_results`: in each outbound request, a tool result whose
 * long text repeats an earlier one is replaced by a short reference to it (see
 * `dedupeRepeatedResults`; stored messages are not changed).
 * @returns the middleware
 * @internal
 */
export function repeatedResultsMiddleware(): RunMiddleware {
  return {
    name: 'repeated_results',
    beforeModelRequest(ctx) {
      ctx.messages = dedupeRepeatedResults(ctx.messages);
    },
  };
}
