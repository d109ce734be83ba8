// The deadlines of one model request: which one is next (first content, then total) and when it falls.
// Pure: the stream helper (sse-translator.ts) keeps the times and the timer, this file only decides.
import type { ModelEvent } from './types';

/**
 * Default first-content deadline, in ms: 300 000 (5 min). A local model on a household machine may load its
 * weights (tens of seconds to minutes) and read a long prompt on a CPU before its first token; a cloud model
 * that has sent nothing for 5 minutes is stuck.
 * @public
 */
export const DEFAULT_FIRST_CONTENT_TIMEOUT_MS = 300_000;

/**
 * Default total deadline of one request, in ms: 900 000 (15 min). Long enough for a slow local model to
 * write a long answer (a few tokens a second for several thousand tokens), short enough that a stream that
 * trickles forever (keep-alive pings, a model stuck repeating itself) ends.
 * @public
 */
export const DEFAULT_TOTAL_TIMEOUT_MS = 900_000;

/** The two deadlines of a model request, in ms. @internal */
export interface CallDeadlines {
  /** From sending the request to its first content event. */
  firstContentMs: number;
  /** From sending the request to the end of its response, streaming included. */
  totalMs: number;
}

/** Which deadline cut a request: `first_content` or `total` (`details.phase` of `PROVIDER_TIMEOUT`). @internal */
export type DeadlinePhase = 'first_content' | 'total';

/** The next deadline of a request. @internal */
export interface NextDeadline {
  /** The deadline that falls next. */
  phase: DeadlinePhase;
  /** When it falls, on the same time scale as `sentAt`, in ms. */
  at: number;
  /** The configured limit, in ms (for the error's `details.timeoutMs`). */
  timeoutMs: number;
}

/**
 * The deadlines with their defaults ({@link DEFAULT_FIRST_CONTENT_TIMEOUT_MS}, {@link DEFAULT_TOTAL_TIMEOUT_MS}).
 * The options are checked (positive, finite) where the provider's options are (provider-config.ts).
 * @param options - the provider's `firstContentTimeoutMs` and `totalTimeoutMs`
 * @internal
 */
export function resolveDeadlines(options: { firstContentTimeoutMs?: number; totalTimeoutMs?: number }): CallDeadlines {
  return {
    firstContentMs: options.firstContentTimeoutMs ?? DEFAULT_FIRST_CONTENT_TIMEOUT_MS,
    totalMs: options.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS,
  };
}

/**
 * The deadline that falls next for a request sent at `sentAt`: before its first content event, the earlier of
 * first content and total (first content on a tie: it names the cause better); after it, total.
 * @param deadlines - the limits
 * @param sentAt - when the request was sent, in ms
 * @param sawContent - whether a content event of this request has arrived
 * @returns the phase, when it falls and its limit
 * @internal
 */
export function nextDeadline(deadlines: CallDeadlines, sentAt: number, sawContent: boolean): NextDeadline {
  const total: NextDeadline = { phase: 'total', at: sentAt + deadlines.totalMs, timeoutMs: deadlines.totalMs };
  if (sawContent || deadlines.totalMs < deadlines.firstContentMs) return total;
  return { phase: 'first_content', at: sentAt + deadlines.firstContentMs, timeoutMs: deadlines.firstContentMs };
}

/**
 * Whether an event is content for the first-content deadline: text, thinking or a tool call. SSE comments and
 * pings, keep-alive chunks and role-only deltas produce no event at all; usage, warnings and `done` are not
 * content either.
 * @param event - a normalized stream event
 * @internal
 */
export function isContentEvent(event: ModelEvent): boolean {
  return (
    event.type === 'text_delta' ||
    event.type === 'thinking_delta' ||
    event.type === 'tool_call_start' ||
    event.type === 'tool_call_delta' ||
    event.type === 'tool_call_end'
  );
}
