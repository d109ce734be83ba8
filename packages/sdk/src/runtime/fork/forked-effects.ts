// The effects a fork is told about (after its fork point) and the lineage's effects the duplicate rule checks.
import type { PriorEffect } from '../../capabilities/invocation';
import type { JsonValue, LedgerEntry } from '../../core/records';
import type { RunEventRecord } from '../../core/run-records';
import type { ForkedEffect } from './fork-types';

/** The largest recorded output a `forked` event carries as is, in characters of JSON. */
export const FORKED_OUTPUT_MAX_CHARS = 4096;

/** `output` as a `forked` event carries it: as is up to {@link FORKED_OUTPUT_MAX_CHARS}, else a preview. */
export function cappedOutput(output: JsonValue): JsonValue {
  const text = JSON.stringify(output);
  if (text === undefined || text.length <= FORKED_OUTPUT_MAX_CHARS) return output;
  return { truncated: true, preview: text.slice(0, FORKED_OUTPUT_MAX_CHARS) };
}

/** A ledger entry as a {@link ForkedEffect} of `runId`. */
export function forkedEffectOf(entry: LedgerEntry, runId: string): ForkedEffect {
  return {
    key: entry.key,
    capabilityId: entry.capabilityId,
    argsHash: entry.argsHash,
    outcome: entry.state,
    invocationId: entry.invocationId,
    ...(entry.output !== null && (entry.state === 'succeeded' || entry.state === 'pending')
      ? { output: cappedOutput(entry.output) }
      : {}),
    ...(entry.error !== null ? { error: { code: entry.error.code, message: entry.error.message } } : {}),
    runId,
  };
}

/**
 * The `seq` of the `tool_call` `started` event of each call id of a run's events: where the step that opened a call
 * committed (a side effect's claim comes after it).
 */
function startedSeqs(events: readonly RunEventRecord[]): Map<string, number> {
  const seqs = new Map<string, number>();
  for (const e of events) {
    if (e.type !== 'tool_call') continue;
    const data = e.data as { callId?: unknown; phase?: unknown };
    if (data.phase === 'started' && typeof data.callId === 'string' && !seqs.has(data.callId))
      seqs.set(data.callId, e.seq);
  }
  return seqs;
}

/**
 * The effects of a run that came after its event `atSeq`, oldest claim first: each ledger entry of the run whose
 * call was opened by a step after `atSeq` (its `tool_call` `started` event has a greater `seq`), or, for an entry no
 * event names, claimed after the event `atSeq` was written. Pure.
 * @param runId - the run that performed them
 * @param entries - the run's ledger entries (`ledger.listByRun`)
 * @param events - the run's events
 * @param atSeq - the fork point
 */
export function effectsAfter(
  runId: string,
  entries: readonly LedgerEntry[],
  events: readonly RunEventRecord[],
  atSeq: number,
): ForkedEffect[] {
  const started = startedSeqs(events);
  const at = events.find((e) => e.seq === atSeq)?.at ?? Number.POSITIVE_INFINITY;
  return entries
    .filter((entry) => {
      const seq = entry.callId !== null ? started.get(entry.callId) : undefined;
      return seq !== undefined ? seq > atSeq : entry.claimedAt > at;
    })
    .sort((a, b) => a.claimedAt - b.claimedAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((entry) => forkedEffectOf(entry, runId));
}

/** The outcomes whose effect may have taken place: the ones the duplicate rule counts. */
const TOOK_PLACE: ReadonlySet<string> = new Set(['succeeded', 'pending', 'unknown', 'running']);

/**
 * The lineage's effects a fork carries for the duplicate rule (docs/forks.md#the-duplicate-rule): every ledger entry
 * of the original whose effect may have taken place (`succeeded`, `pending`, `unknown`, or still `running`), before
 * or after the fork point, then those the original carried as a fork itself (its own lineage). Deduplicated by key.
 * Pure.
 * @param runId - the original
 * @param entries - its ledger entries
 * @param inherited - the original's own lineage effects, when it is a fork
 */
export function lineageEffects(
  runId: string,
  entries: readonly LedgerEntry[],
  inherited: readonly PriorEffect[],
): PriorEffect[] {
  const out: PriorEffect[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    if (!TOOK_PLACE.has(e.state) || seen.has(e.key)) continue;
    seen.add(e.key);
    out.push({ key: e.key, capabilityId: e.capabilityId, argsHash: e.argsHash, outcome: e.state, runId });
  }
  for (const e of inherited)
    if (!seen.has(e.key)) {
      seen.add(e.key);
      out.push(e);
    }
  return out;
}
