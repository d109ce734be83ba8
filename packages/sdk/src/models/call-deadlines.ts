// The deadlines of one model request: which one is next (first byte, idle, first content, total) and when it falls.
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

/**
 * Default idle deadline, in ms: 120 000 (2 min) between two body chunks of a response. @internal
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

/** The deadlines of a model request, in ms. @internal */
export interface CallDeadlines {
  /** From sending the request to its first content event. */
  firstContentMs: number;
  /** From sending the request to the end of its response, streaming included. */
  totalMs: number;
  /** From sending the request to its response headers (none when absent). */
  firstByteMs?: number;
  /** From the response headers, then from each body chunk, to the next chunk (none when absent). */
  idleMs?: number;
}

/**
 * Which deadline cut a request (`details.phase` of `PROVIDER_TIMEOUT`): `first_byte`, `idle`, `first_content`
 * or `total`.
 * @internal
 */
export type DeadlinePhase = 'first_byte' | 'idle' | 'first_content' | 'total';

/** How far a request has come, on the same time scale as its send time, in ms. @internal */
export interface RequestProgress {
  /** When its response headers arrived; absent while it waits for them. */
  answeredAt?: number;
  /** When the last body chunk arrived; absent before the first one. */
  lastChunkAt?: number;
}

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
 * The deadlines with their defaults ({@link DEFAULT_FIRST_CONTENT_TIMEOUT_MS}, {@link DEFAULT_TOTAL_TIMEOUT_MS},
 * first byte: the first-content deadline, idle: {@link DEFAULT_IDLE_TIMEOUT_MS}).
 * The options are checked (positive, finite) where the provider's options are (provider-config.ts).
 * @param options - the provider's `firstContentTimeoutMs` and `totalTimeoutMs`
 * @internal
 */
export function resolveDeadlines(options: {
  firstContentTimeoutMs?: number;
  totalTimeoutMs?: number;
  firstByteTimeoutMs?: number;
  idleTimeoutMs?: number;
}): CallDeadlines {
  const firstContentMs = options.firstContentTimeoutMs ?? DEFAULT_FIRST_CONTENT_TIMEOUT_MS;
  return {
    firstContentMs,
    totalMs: options.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS,
    // A server such as Ollama sends its headers only with the first token: the first-byte deadline defaults
    // to the first-content one, so raising firstContentTimeoutMs alone lets a slow local model answer.
    firstByteMs: options.firstByteTimeoutMs ?? firstContentMs,
    idleMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
  };
}

/**
 * The deadline that falls next for a request sent at `sentAt`: the earliest of first byte (while no headers),
 * idle (after the headers: from the last chunk, or the headers), first content (before its first content event)
 * and total. On a tie the more precise cause is named: first byte, then idle, then first content, then total.
 * So a total shorter than first content falls first (the shorter one wins).
 * @param deadlines - the limits
 * @param sentAt - when the request was sent, in ms
 * @param sawContent - whether a content event of this request has arrived
 * @param progress - when its headers and its last body chunk arrived
 * @returns the phase, when it falls and its limit
 * @internal
 */
export function nextDeadline(
  deadlines: CallDeadlines,
  sentAt: number,
  sawContent: boolean,
  progress: RequestProgress = {},
): NextDeadline {
  const candidates: NextDeadline[] = [];
  if (progress.answeredAt === undefined && deadlines.firstByteMs !== undefined)
    candidates.push({ phase: 'first_byte', at: sentAt + deadlines.firstByteMs, timeoutMs: deadlines.firstByteMs });
  if (progress.answeredAt !== undefined && deadlines.idleMs !== undefined) {
    const from = Math.max(progress.answeredAt, progress.lastChunkAt ?? progress.answeredAt);
    candidates.push({ phase: 'idle', at: from + deadlines.idleMs, timeoutMs: deadlines.idleMs });
  }
  if (!sawContent)
    candidates.push({
      phase: 'first_content',
      at: sentAt + deadlines.firstContentMs,
      timeoutMs: deadlines.firstContentMs,
    });
  candidates.push({ phase: 'total', at: sentAt + deadlines.totalMs, timeoutMs: deadlines.totalMs });
  return candidates.reduce((next, c) => (c.at < next.at ? c : next));
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
