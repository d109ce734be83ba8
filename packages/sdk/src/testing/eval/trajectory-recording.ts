// The `recorded` part of a trajectory: what a stored run saw (capabilities, results, facts, steering, approvals),
// so the file replays without the host that made it. Its shape and its checks; no I/O.
import { canonicalJson } from '../../core/canonical-json';
import type { JsonValue } from '../../core/records';
import type { RecordedAuthorization } from './recorded-authorization';

/** The scenario id that replays a trajectory from its own `recorded` part. @public */
export const RECORDED_SCENARIO_ID = 'recorded';

/**
 * At most this many tool calls in a recorded trajectory (subagents included): a stored run may make more calls than
 * a hand-written trajectory (32), and every one of them is in the file.
 * @public
 */
export const TRAJECTORY_RECORDED_MAX_CALLS = 512;

/** At most this many bytes in a recorded trajectory file (4 MiB): it carries every result the run received. @public */
export const TRAJECTORY_RECORDED_MAX_BYTES = 4 * 1024 * 1024;

/** How a recorded call ended, as the run saw it. @public */
export type TrajectoryRecordedStatus = 'succeeded' | 'failed' | 'denied' | 'pending' | 'unknown' | 'blocked';

/** The statuses a recorded result may have. @public */
export const TRAJECTORY_RECORDED_STATUSES: readonly TrajectoryRecordedStatus[] = Object.freeze([
  'succeeded',
  'failed',
  'denied',
  'pending',
  'unknown',
  'blocked',
]);

/**
 * One recorded result: the call (repeated from the turn it belongs to, and checked against it) and what the run got
 * back.
 * @public
 */
export interface TrajectoryRecordedResult {
  /** Capability id or runtime tool name, e.g. `download.submit`. */
  capability: string;
  /** The call's input, as the model sent it. */
  input: JsonValue;
  /** How the call ended. */
  status: TrajectoryRecordedStatus;
  /** Its output (`succeeded`) or receipt (`pending`). */
  output?: JsonValue;
  /** Why it failed, was denied, blocked or is unknown. */
  error?: { code: string; message: string };
  /** The call's id in the original run's conversation. */
  callId?: string;
  /** The call's idempotency key in the original run's ledger, when it reached the ledger. */
  idempotencyKey?: string;
  /** The invocation's id in the original run's audit trail, when it reached the invocation path. */
  invocationId?: string;
}

/**
 * A capability the recorded run called, as JSON: its descriptor (id, kind, replay rule, input and output JSON Schema
 * and the rest of what the registry described), enough to register a stand-in that answers the recorded results.
 * @public
 */
export interface TrajectoryRecordedCapability {
  /** Capability id. */
  id: string;
  /** Its kind (`read`, `preview`, `propose`, `approve`, `execute`). */
  kind: string;
  /** Its replay rule (`never` …), when it declared one. */
  replay?: string;
  /** Input JSON Schema. */
  input: JsonValue;
  /** Output JSON Schema. */
  output: JsonValue;
  /** Anything else the descriptor held (title, description, effect …). */
  [field: string]: JsonValue | undefined;
}

/**
 * The `recorded` part of a trajectory (scenario `recorded`): what the stored run saw, so that the file replays
 * without the host. The turns the model played are the trajectory's own `turns`, `finalText` and `subagents` (a
 * subagent's `match` is its delegated goal); `results` holds one entry per call of those turns, in order: the
 * top-level run's turns first, then each subagent's.
 * @public
 */
export interface TrajectoryRecording {
  /** The original run. */
  run: {
    /** Its id in the database it was exported from. */
    id: string;
    /** Its goal, exactly as stored (the replay starts a run with it). */
    goal: string;
    /** `execute` or `plan_only`. */
    mode: string;
    /** `interactive`, `background`, `channel` or `schedule`. */
    origin: string;
    /** Who started it. */
    startedBy: string;
    /** When it was created (ms since the epoch). */
    createdAt: number;
    /** Its status when exported. */
    status: string;
    /** Why it failed, or null. */
    error: { code: string; message: string } | null;
    /** Its verified goal report's status and summary, or null. */
    report: { status: string; summary: string } | null;
    /** The capabilities it was limited to, or null (every one its mode allows). @defaultValue null */
    capabilityAllowlist?: string[] | null;
    /** Its budgets (a `RunBudgets` object). @defaultValue `{}` (the host's defaults) */
    budgets?: JsonValue;
    /** Its session, or null. @defaultValue null */
    sessionId?: string | null;
    /** The step it was in when exported (a replay of a run not ended stops where it waited). @defaultValue unknown */
    step?: string;
    /**
     * A fork's lineage effects (`PriorEffect` objects), seeded into the replayed run for the duplicate rule.
     * @defaultValue `[]` (not a fork)
     */
    forkLineage?: JsonValue[];
  };
  /** Every capability it called, as JSON. */
  capabilities: TrajectoryRecordedCapability[];
  /** One result per call of the turns, in order (top-level run first, then each subagent). */
  results: TrajectoryRecordedResult[];
  /** The plan records its calls referenced (so a replay can recreate them). */
  plans: JsonValue[];
  /** The goal facts its report was built from (`GoalFactsSnapshot`), or null when it had no report. */
  facts: JsonValue | null;
  /** Steering messages: the text, who sent it, and the 0-based index of the top-level turn it preceded. */
  steering: Array<{ beforeTurn: number; text: string; actor: string }>;
  /** Approval decisions, in order: the plan and capability, and what the person decided. */
  approvals: Array<{
    capabilityId: string;
    planId: string;
    decision: 'approved' | 'rejected';
    decidedBy?: string;
    /** Steering messages applied before the decision (played back in that order). @defaultValue 0 */
    afterSteering?: number;
  }>;
  /** The original run id of each subagent part, in the order of the trajectory's `subagents`. */
  subagents?: Array<{ runId: string }>;
  /**
   * The authorization records of the store it was exported from (grants, policy revisions, automation settings), as
   * they were at export time: the replay's verdicts are decided under them. Absent: none (every side effect needs
   * an approval).
   */
  authorization?: RecordedAuthorization;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isError = (v: unknown): boolean => isObject(v) && isString(v.code) && isString(v.message);

/**
 * The checks of a `recorded` part, as a list of what is wrong (empty when it is well-formed). A pure function: the
 * trajectory parser turns the first entry into `EVAL_TRAJECTORY_INVALID`.
 * @param value - the `recorded` value of a parsed file
 * @param calls - every call of the trajectory's turns, in the order `results` follows (capability and input)
 * @returns what is wrong, one short phrase each (e.g. `"recorded.results" has 3 entries for 4 calls`)
 * @public
 */
export function recordingProblems(
  value: unknown,
  calls: ReadonlyArray<{ capability: string; input?: unknown }>,
): string[] {
  if (!isObject(value)) return ['"recorded" must be an object'];
  const out: string[] = [];
  const run = value.run;
  if (!isObject(run)) out.push('"recorded.run" must be an object');
  else {
    for (const f of ['id', 'goal', 'mode', 'origin', 'startedBy', 'status'] as const)
      if (!isString(run[f]) || run[f] === '') out.push(`"recorded.run.${f}" must be a non-empty string`);
    if (typeof run.createdAt !== 'number' || !Number.isFinite(run.createdAt))
      out.push('"recorded.run.createdAt" must be a number (ms)');
    if (run.error !== null && !isError(run.error)) out.push('"recorded.run.error" must be null or {code, message}');
    if (run.report !== null && !(isObject(run.report) && isString(run.report.status) && isString(run.report.summary)))
      out.push('"recorded.run.report" must be null or {status, summary}');
  }
  if (!Array.isArray(value.capabilities)) out.push('"recorded.capabilities" must be an array');
  else
    value.capabilities.forEach((c, i) => {
      if (!isObject(c) || !isString(c.id) || !isString(c.kind))
        out.push(`"recorded.capabilities" #${i} needs an "id" and a "kind"`);
    });
  if (!Array.isArray(value.plans)) out.push('"recorded.plans" must be an array');
  if (value.facts !== null && !isObject(value.facts)) out.push('"recorded.facts" must be null or an object');
  if (!Array.isArray(value.steering)) out.push('"recorded.steering" must be an array');
  else
    value.steering.forEach((s, i) => {
      if (!isObject(s) || !Number.isInteger(s.beforeTurn) || (s.beforeTurn as number) < 0 || !isString(s.text))
        out.push(`"recorded.steering" #${i} needs "beforeTurn" (an index from 0) and "text"`);
    });
  if (!Array.isArray(value.approvals)) out.push('"recorded.approvals" must be an array');
  else
    value.approvals.forEach((a, i) => {
      if (!isObject(a) || !isString(a.planId) || !['approved', 'rejected'].includes(a.decision as string))
        out.push(`"recorded.approvals" #${i} needs a "planId" and a "decision" (approved or rejected)`);
    });
  const auth = value.authorization;
  if (
    auth !== undefined &&
    !(
      isObject(auth) &&
      Array.isArray(auth.grants) &&
      auth.grants.every(isObject) &&
      Array.isArray(auth.policies) &&
      auth.policies.every(isObject) &&
      (auth.automation === null || isObject(auth.automation))
    )
  )
    out.push('"recorded.authorization" must be {grants: [objects], policies: [objects], automation: object or null}');
  if (!Array.isArray(value.results)) out.push('"recorded.results" must be an array');
  else {
    if (value.results.length !== calls.length)
      out.push(`"recorded.results" has ${value.results.length} entries for ${calls.length} calls`);
    value.results.forEach((r, i) => {
      if (!isObject(r) || !isString(r.capability) || !TRAJECTORY_RECORDED_STATUSES.includes(r.status as never))
        out.push(`"recorded.results" #${i} needs a "capability" and a "status"`);
      else if (r.error !== undefined && !isError(r.error))
        out.push(`"recorded.results" #${i}: "error" must be {code, message}`);
      else if (calls[i] && calls[i]!.capability !== r.capability)
        out.push(`"recorded.results" #${i} is for ${r.capability}, but call #${i} is ${calls[i]!.capability}`);
      else if (calls[i] && canonicalJson(calls[i]!.input ?? {}) !== canonicalJson(r.input ?? {}))
        out.push(`"recorded.results" #${i}: its input is not the input of call #${i} (${r.capability})`);
    });
  }
  return out;
}
