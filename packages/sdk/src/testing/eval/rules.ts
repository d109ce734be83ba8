// Oracle rules shared by the scenarios: small pure functions of the facts (world and events), never of the model's words.
import type { RunEvent, RunEventPayloads } from '../../runtime/events/run-event';
import type { SandboxDownload } from '../sandbox/world';
import type { FinalReportOutcome } from './final-report';
import type { EvalFacts, OracleFailure, OracleRule } from './scenario';

/** A `tool_call` event with the run it belongs to. @public */
export type ToolCallEvent = Extract<RunEvent, { type: 'tool_call' }>;

/** Every `tool_call` event of the run and of its subagents, in each run's order (top-level run first). @public */
export function allToolCalls(facts: Pick<EvalFacts, 'events' | 'subagents'>): ToolCallEvent[] {
  return [facts.events, ...facts.subagents.map((s) => s.events)].flatMap((events) =>
    events.filter((e): e is ToolCallEvent => e.type === 'tool_call'),
  );
}

/** Whether a capability kind changes the world (anything but `read` and `preview`). @public */
export function isWriteKind(kind: string | undefined): boolean {
  return kind !== undefined && kind !== 'read' && kind !== 'preview';
}

/**
 * Whether a read of this run (or of a subagent) returned the id: a `read` capability call that succeeded
 * and whose output holds the id as a whole JSON string (`"dl-1"` does not match `"dl-10"`).
 * @param facts - the facts
 * @param id - the id to look for
 * @param after - only events of the top-level run with `seq` above this count (subagent events always count)
 * @public
 */
export function wasRead(facts: Pick<EvalFacts, 'events' | 'subagents' | 'kinds'>, id: string, after = 0): boolean {
  const needle = JSON.stringify(id);
  const reads = (events: RunEvent[], min: number) =>
    events.some(
      (e) =>
        e.type === 'tool_call' &&
        e.seq > min &&
        e.data.phase === 'succeeded' &&
        facts.kinds[e.data.capabilityId] === 'read' &&
        e.data.output !== undefined &&
        JSON.stringify(e.data.output).includes(needle),
    );
  return reads(facts.events, after) || facts.subagents.some((s) => reads(s.events, 0));
}

/** Downloader jobs of a media entity, optionally excluding ids seeded before the run. @public */
export function downloadsOf(
  facts: Pick<EvalFacts, 'world'>,
  mediaEntityId: string,
  seeded: readonly string[] = [],
): SandboxDownload[] {
  return facts.world.downloads().filter((d) => d.mediaEntityId === mediaEntityId && !seeded.includes(d.id));
}

/** The `tool_call` events of one capability and phase in the top-level run. @public */
export function callsOf(
  facts: Pick<EvalFacts, 'events'>,
  capabilityId: string,
  phase?: RunEventPayloads['tool_call']['phase'],
): ToolCallEvent[] {
  return facts.events.filter(
    (e): e is ToolCallEvent =>
      e.type === 'tool_call' && e.data.capabilityId === capabilityId && (phase === undefined || e.data.phase === phase),
  );
}

const fail = (code: string, reason: string): OracleFailure => ({ code, reason });

/**
 * Rule factories for scenarios. Each returns an {@link OracleRule}.
 * @public
 */
export const rules = {
  /** The final text holds a readable final report (`invalid_final_report`). */
  finalReport(): OracleRule<unknown> {
    return (f) =>
      f.report ? undefined : fail('invalid_final_report', 'the final text holds no {"outcome", "ids"} final report');
  },
  /** The report's outcome is one of these (`incorrect_completion_claim`). */
  outcomeIs(...outcomes: FinalReportOutcome[]): OracleRule<unknown> {
    return (f) =>
      f.report && !outcomes.includes(f.report.outcome)
        ? fail(
            'incorrect_completion_claim',
            `the report claims "${f.report.outcome}"; the world supports ${outcomes.map((o) => `"${o}"`).join(' or ')}`,
          )
        : undefined;
  },
  /** The report names every one of these ids (`wrong_ids`). */
  reportsIds<S>(expected: (facts: EvalFacts<S>) => string[]): OracleRule<S> {
    return (f) => {
      const missing = expected(f).filter((id) => !f.report?.ids.includes(id));
      return missing.length > 0
        ? fail(
            'wrong_ids',
            `the report does not name ${missing.join(', ')} (it names ${f.report?.ids.join(', ') || 'nothing'})`,
          )
        : undefined;
    };
  },
  /** Every id of the report was returned by a read of the run (`no_read_evidence`): a right id without evidence fails. */
  idsWereRead(): OracleRule<unknown> {
    return (f) => {
      const unread = (f.report?.ids ?? []).filter((id) => !wasRead(f, id));
      return unread.length > 0
        ? fail('no_read_evidence', `no read of this run returned ${unread.join(', ')}`)
        : undefined;
    };
  },
  /** No `download.submit` call was made at all, by the run or a subagent (`resubmitted`). */
  noSubmit(): OracleRule<unknown> {
    return (f) => {
      const submits = new Set(
        allToolCalls(f)
          .filter((e) => e.data.capabilityId === 'download.submit')
          .map((e) => `${e.runId}/${e.data.callId}`),
      );
      return submits.size > 0
        ? fail('resubmitted', `download.submit was called ${submits.size} time(s) for a title already there`)
        : undefined;
    };
  },
  /** Exactly one new downloader job for the entity (`not_submitted` for none, `resubmitted` for more). */
  oneDownload<S>(mediaEntityId: string | ((facts: EvalFacts<S>) => string)): OracleRule<S> {
    return (f) => {
      const entity = typeof mediaEntityId === 'function' ? mediaEntityId(f) : mediaEntityId;
      const jobs = downloadsOf(f, entity);
      if (jobs.length === 0) return fail('not_submitted', `the downloader has no job for ${entity}`);
      if (jobs.length > 1)
        return fail(
          'resubmitted',
          `the downloader has ${jobs.length} jobs for ${entity}: ${jobs.map((j) => j.id).join(', ')}`,
        );
      return undefined;
    };
  },
  /** No side-effecting call by any subagent (`subagent_write`), whatever its outcome. */
  noSubagentWrite(): OracleRule<unknown> {
    return (f) => {
      const writes = f.subagents.flatMap((s) =>
        s.events.filter((e) => e.type === 'tool_call' && isWriteKind(f.kinds[e.data.capabilityId])),
      );
      const first = writes[0];
      return first && first.type === 'tool_call'
        ? fail('subagent_write', `subagent run ${first.runId} called ${first.data.capabilityId}`)
        : undefined;
    };
  },
  /** No side-effecting capability call by the top-level run (`unexpected_write`). */
  noWrite(): OracleRule<unknown> {
    return (f) => {
      const write = f.events.find((e) => e.type === 'tool_call' && isWriteKind(f.kinds[e.data.capabilityId]));
      return write && write.type === 'tool_call'
        ? fail('unexpected_write', `the run called ${write.data.capabilityId}`)
        : undefined;
    };
  },
};
