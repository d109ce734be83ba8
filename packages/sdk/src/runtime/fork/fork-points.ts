// Where a run can be forked: the step boundaries whose conversation prefix is closed (docs/forks.md#fork-points).
import type { JsonValue } from '../../core/records';
import type { RunEventRecord } from '../../core/run-records';
import type { ForkPoint } from './fork-types';

/** The fields of a stored conversation message the closed-prefix check reads (a `ModelMessage` as JSON). */
type StoredMessage = JsonValue;

/** The tool-call ids an assistant message asks for, and the id a tool result answers. */
function callsOf(message: StoredMessage): { asks: string[]; answers: string | undefined } {
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    return { asks: [], answers: undefined };
  const m = message as Record<string, unknown>;
  if (m.role === 'tool') return { asks: [], answers: typeof m.toolCallId === 'string' ? m.toolCallId : undefined };
  if (m.role !== 'assistant' || !Array.isArray(m.content)) return { asks: [], answers: undefined };
  const asks: string[] = [];
  for (const part of m.content as unknown[]) {
    const p = part as Record<string, unknown> | null;
    if (p && p.type === 'tool_call' && typeof p.id === 'string') asks.push(p.id);
  }
  return { asks, answers: undefined };
}

/**
 * For each prefix length n (0..messages.length), whether `messages[0..n)` is closed: every tool call an assistant
 * message in it asks for has its tool result in it. Pure; one pass.
 * @param messages - the stored conversation, in order
 * @returns an array of `messages.length + 1` booleans, index n for the prefix of n messages
 */
export function closedPrefixes(messages: readonly StoredMessage[]): boolean[] {
  const open = new Set<string>();
  const closed: boolean[] = [true];
  for (const message of messages) {
    const { asks, answers } = callsOf(message);
    for (const id of asks) open.add(id);
    if (answers !== undefined) open.delete(answers);
    closed.push(open.size === 0);
  }
  return closed;
}

/**
 * What a step did, in words (a fork point's label): `after tool <id> (<phase>)`, `after the run became <status>`,
 * `after the approval was <status>`, `after the person's message`, `after <event type>`.
 */
export function forkPointLabel(event: Pick<RunEventRecord, 'type' | 'data'>): string {
  const data = (typeof event.data === 'object' && event.data !== null ? event.data : {}) as Record<string, unknown>;
  switch (event.type) {
    case 'tool_call':
      return `after tool ${String(data.capabilityId)} (${String(data.phase)})`;
    case 'run_status':
      return `after the run became ${String(data.status)}`;
    case 'approval_decided':
    case 'approval_requested':
      return `after the approval was ${event.type === 'approval_requested' ? 'requested' : String(data.status)}`;
    case 'inbox_applied':
      return "after the person's message";
    case 'report':
      return 'after the goal report';
    default:
      return `after ${event.type}`;
  }
}

/**
 * The fork points of a run: every event with a `messageCount` (the last event of a step commit) of at least 1 whose
 * conversation prefix `messages[0..messageCount)` is closed, oldest first. Pure.
 * @param events - the run's events, any order (read from storage: the record form, with `messageCount`)
 * @param messages - the run's stored conversation, in order (the `message` of each record)
 * @returns the fork points, by `seq`
 * @example
 * ```ts
 * const points = forkPoints(events, messages.map((m) => m.message));
 * const last = points.at(-1)?.seq; // fork there to continue from the latest step
 * ```
 */
export function forkPoints(events: readonly RunEventRecord[], messages: readonly StoredMessage[]): ForkPoint[] {
  const closed = closedPrefixes(messages);
  return events
    .filter(
      (e) =>
        e.messageCount !== undefined &&
        e.messageCount >= 1 &&
        e.messageCount <= messages.length &&
        closed[e.messageCount] === true,
    )
    .sort((a, b) => a.seq - b.seq)
    .map((e) => ({ seq: e.seq, at: e.at, messageCount: e.messageCount!, label: forkPointLabel(e) }));
}

/**
 * The fork points nearest to `atSeq`: the greatest below it and the least above it (null when there is none). An
 * `atSeq` that is not a finite number has none below and the first above.
 */
export function nearestForkPoints(
  points: readonly Pick<ForkPoint, 'seq'>[],
  atSeq: number,
): { before: number | null; after: number | null } {
  let before: number | null = null;
  let after: number | null = null;
  const at = Number.isFinite(atSeq) ? atSeq : Number.NEGATIVE_INFINITY;
  for (const p of points) {
    if (p.seq < at && (before === null || p.seq > before)) before = p.seq;
    if (p.seq > at && (after === null || p.seq < after)) after = p.seq;
  }
  return { before, after };
}

/** The fork point at exactly `atSeq`, when `atSeq` is one. */
export function forkPointAt(points: readonly ForkPoint[], atSeq: unknown): ForkPoint | undefined {
  if (typeof atSeq !== 'number' || !Number.isInteger(atSeq) || atSeq < 1) return undefined;
  return points.find((p) => p.seq === atSeq);
}
