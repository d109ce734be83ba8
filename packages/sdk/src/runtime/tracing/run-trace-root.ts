// One run is one trace: the first processing of a run records its `invoke_agent` span's context in the
// run's runtime state (stored with the run by every store), and each later processing (a wake, a resume
// after an approval, another process that claims the run) starts as its child, with a span link to it.
import { isSpanContextValid, TraceFlags, type SpanContext, type TraceState } from '@opentelemetry/api';
import type { JsonValue } from '../../core/records';

/** The runtime-state key under which a run keeps the W3C `traceparent` of its first processing. */
export const RUN_TRACE_STATE_KEY = 'trace';

// W3C Trace Context (https://www.w3.org/TR/trace-context/#traceparent-header): version, trace-id, parent-id and
// flags in lowercase hex. Version `00` is exactly these four fields; a higher version (never `ff`) may add
// fields after a further `-`, which are ignored.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The W3C `traceparent` text of a span context. */
export function traceparentOf(ctx: SpanContext): string {
  return `00-${ctx.traceId}-${ctx.spanId}-${(ctx.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * A span context from a W3C `traceparent` (remote), or undefined for anything that is not a valid one, as W3C
 * Trace Context says to ignore it: uppercase hex, version `ff`, a version `00` value of any other length, an
 * all-zero trace-id or parent-id, wrong field lengths. Surrounding spaces and tabs are allowed.
 * @param tracestate - the W3C `tracestate` text that came with it, if any (kept as sent)
 */
export function parseTraceparent(value: unknown, tracestate?: unknown): SpanContext | undefined {
  if (typeof value !== 'string') return undefined;
  const m = TRACEPARENT.exec(value.replace(/^[ \t]+|[ \t]+$/g, ''));
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  const ctx: SpanContext = {
    traceId: traceId!,
    spanId: spanId!,
    traceFlags: Number.parseInt(flags!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  if (typeof tracestate === 'string' && tracestate.trim() !== '') ctx.traceState = traceState(tracestate);
  return isSpanContextValid(ctx) ? ctx : undefined;
}

/** A W3C `tracestate` (list members `key=value`, newest first), immutable. */
function traceState(text: string): TraceState {
  const members = text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e.indexOf('=') > 0)
    .map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)] as [string, string]);
  return fromMembers(members.slice(0, 32));
}

function fromMembers(members: ReadonlyArray<readonly [string, string]>): TraceState {
  return {
    get: (key) => members.find(([k]) => k === key)?.[1],
    set: (key, value) => fromMembers([[key, value], ...members.filter(([k]) => k !== key)]),
    unset: (key) => fromMembers(members.filter(([k]) => k !== key)),
    serialize: () => members.map(([k, v]) => `${k}=${v}`).join(','),
  };
}

/** The context of a run's first processing, as its runtime state recorded it. */
export function storedRunRoot(runtimeState: JsonValue | null): SpanContext | undefined {
  if (runtimeState === null || typeof runtimeState !== 'object' || Array.isArray(runtimeState)) return undefined;
  return parseTraceparent((runtimeState as Record<string, JsonValue>)[RUN_TRACE_STATE_KEY]);
}
