// A stored run, read back as what a replay plays: the model's turns with the results its calls got, the person's
// steering and approval decisions, the subagents, the capabilities and plans it used, its facts and report.
// A pure read of storage (docs/evaluation.md#replay-without-side-effects).
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import type { PriorEffect } from '../../capabilities/invocation';
import type { JsonValue, PlanRecord } from '../../core/records';
import type { RunMode, RunOrigin, RunRecord, RunStatus } from '../../core/run-records';
import type { StorageAdapter } from '../../ports/storage-adapter';
import { FORK_STATE_KEY, forkStateOf } from '../fork/fork-state';
import type { GoalFactsSnapshot } from '../goal-facts';
import type { AgentGoalReport } from '../goal-report';
import { RunNotFoundError, RunPrunedError } from '../run-service';

/** Statuses a recorded call can end with (the terminal phases of its `tool_call` event). @public */
export type RecordedCallStatus = 'succeeded' | 'failed' | 'denied' | 'pending' | 'unknown' | 'blocked';

/** One tool call of a recorded model turn, with the result the run got. @public */
export interface RecordedCall {
  /** Capability id or runtime tool name (`delegate`, `update_plan`, …), as the model called it. */
  capability: string;
  /** The input the model sent (templates already filled). */
  input: JsonValue;
  /** How the call ended. */
  status: RecordedCallStatus;
  /** Output (`succeeded`) or receipt (`pending`), as recorded in the call's `tool_call` event. */
  output?: JsonValue;
  /** Why it failed, was denied, blocked or is unknown. */
  error?: { code: string; message: string };
  /** The call's id in the run's conversation (`call_<n>_<k>`). */
  callId?: string;
  /** The call's idempotency key, for side-effecting capabilities that reached the ledger. */
  idempotencyKey?: string;
  /** The invocation's id, when the call went through the invocation path. */
  invocationId?: string;
}

/** One model turn: its text and its calls, in order. @public */
export interface RecordedTurn {
  /** What the model said in the turn (text parts joined), when it said anything. */
  text?: string;
  /** Its tool calls, in the order the model made them. */
  calls: RecordedCall[];
}

/** A steering message a person sent, and where it reached the model. @public */
export interface RecordedSteering {
  /** 0-based index of the turn it preceded (`turns.length`: it preceded the final reply). */
  beforeTurn: number;
  /** The message as stored in the conversation. */
  text: string;
  /** Who sent it; the run's owner when storage no longer says (applied inbox records are not listed). */
  actor: string;
}

/** An approval the run asked for, and how a person decided it. @public */
export interface RecordedApproval {
  /** The capability whose call needed it. */
  capabilityId: string;
  /** The plan it was bound to. */
  planId: string;
  /** The decision. */
  decision: 'approved' | 'rejected';
  /** Who decided, when the approval record still says. */
  decidedBy?: string;
  /**
   * Steering messages the run had applied when the decision came: a replay decides it only once as many were applied
   * and the replayed run waits, so steering and the decision are played in the stored order. Absent (older
   * recordings): decided as soon as it is asked for.
   */
  afterSteering?: number;
}

/** A subagent of the run (any depth), with its turns. @public */
export interface RecordedSubagent {
  /** The delegated goal (a replay matches the subagent by it). */
  goal: string;
  /** Its model turns. */
  turns: RecordedTurn[];
  /** Its final reply, or null. */
  finalText: string | null;
  /** Its run id in the store it was read from. */
  runId: string;
}

/**
 * The descriptor of a capability the run called, as JSON. What cannot be serialized — the `target` function, the
 * `impact`, `verify` and `inverse` hooks, the handler — is only flagged (`hasTarget`, …): a replay takes them from
 * the current runtime's definition, or reports the capability missing.
 * @public
 */
export interface RecordedCapability {
  /** Capability id. */
  id: string;
  /** Its kind (`read`, `preview`, `propose`, `approve`, `execute`), or `unknown` when no registry was given or it is gone. */
  kind: string;
  /** Its replay policy (`safe`, `reconcile`, `never`), when known. */
  replay?: string;
  /** Input JSON Schema (typebox schemas are JSON Schema), or null when unknown. */
  input: JsonValue;
  /** Output JSON Schema, or null when unknown. */
  output: JsonValue;
  /** Contract version, when known. */
  version?: number;
  /** Title, when known. */
  title?: string;
  /** Policy kind whose grants cover it, when any. */
  policy?: string;
  /** Effect kind of an `execute` capability, when known. */
  effect?: string;
  /** Only administrators reach it. */
  adminOnly?: boolean;
  /** Whether it derives a target (plan, media entity) from its input: a replay needs the current definition for it. */
  hasTarget?: boolean;
  /** Whether the registry given to {@link readRecordedRun} still had it. */
  registered: boolean;
}

/**
 * A stored run as a replay plays it ({@link readRecordedRun}).
 * @public
 */
export interface RecordedRun {
  /** The run's id in the store it was read from. */
  runId: string;
  /** Its goal, as the model got it. */
  goal: string;
  /** `execute` or `plan_only`. */
  mode: RunMode;
  /** Where it came from. */
  origin: RunOrigin;
  /** Who started it (its owner). */
  startedBy: string;
  /** Creation time (ms). */
  createdAt: number;
  /** Every model turn of the run but its final reply, from its stored assistant messages and `tool_call` events. */
  turns: RecordedTurn[];
  /** The final reply (a last turn with text and no call), or null when the run ended without one. */
  finalText: string | null;
  /** Steering messages that reached the model, in order. */
  steering: RecordedSteering[];
  /** Approvals the run asked for that a person decided, in order. */
  approvals: RecordedApproval[];
  /** Its subagents (every depth), oldest first. */
  subagents: RecordedSubagent[];
  /** Descriptors of every capability it (or a subagent) called, as JSON. */
  capabilities: RecordedCapability[];
  /** The plan records its calls and approvals named (so a replay can recreate them), as stored now. */
  plans: JsonValue[];
  /** The facts of its verified goal report, or null (no report). */
  facts: GoalFactsSnapshot | null;
  /** Status and summary of its verified goal report, or null. */
  report: { status: string; summary: string } | null;
  /** Its status when read. */
  status: RunStatus;
  /**
   * The step it was in when read (`drive`, `goal_settled`, `finalize`): a replay of a run not ended yet stops when
   * the replayed run waits in the same step. Absent in recordings made before it was recorded.
   */
  step?: string;
  /**
   * A fork's lineage effects (its runtime state `fork`, docs/forks.md#the-duplicate-rule), seeded into the replayed
   * run so the duplicate rule refuses what it refused. Empty or absent for a run that is not a fork.
   */
  forkLineage?: PriorEffect[];
  /** Why it failed, or null. */
  error: { code: string; message: string } | null;
  /** The capabilities it was limited to, or null (every one its mode allows). */
  capabilityAllowlist: string[] | null;
  /** Its budgets (a `RunBudgets` object). */
  budgets: JsonValue;
  /** Its session, or null. */
  sessionId: string | null;
}

/** Options of {@link readRecordedRun}. @public */
export interface ReadRecordedRunOptions {
  /** The registry whose descriptors describe the capabilities the run called (e.g. `host.capabilities`). */
  capabilities?: Pick<CapabilityRegistry, 'has' | 'get'>;
}

const TERMINAL_PHASES = new Set<string>(['succeeded', 'failed', 'denied', 'pending', 'unknown', 'blocked']);

interface StoredPart {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: JsonValue;
}

interface StoredMessage {
  role: string;
  content: string | StoredPart[];
  toolCallId?: string;
  name?: string;
  status?: string;
}

interface ToolCallData {
  callId: string;
  capabilityId: string;
  phase: string;
  idempotencyKey?: string;
  invocationId?: string;
  error?: { code: string; message: string };
  output?: JsonValue;
}

/**
 * Reads a stored run as a {@link RecordedRun}: its turns from the stored conversation (assistant messages with
 * their text and tool calls) and each call's result from its `tool_call` event (else the tool result message);
 * steering from the `inbox_queued` / `inbox_applied` events and where each message sits in the conversation;
 * approvals from `approval_requested` / `approval_decided` (each with the steering applied before its decision);
 * a fork's lineage from its runtime state `fork`; subagents from the runs it delegated; capability
 * descriptors from `options.capabilities`; the plans its calls and approvals named; facts and report from its
 * verified goal report. Writes nothing.
 *
 * @param storage - the store the run is in
 * @param runId - the run
 * @param options - `capabilities`: the registry that describes the capabilities it called
 * @returns the recorded run
 * @throws `RUN_NOT_FOUND` (no such run), `RUN_PRUNED` (retention removed its conversation)
 *
 * @example
 * ```ts
 * const recorded = await readRecordedRun(storage, 'run_1', { capabilities: host.capabilities });
 * for (const turn of recorded.turns) for (const c of turn.calls) console.log(c.capability, c.status);
 * ```
 * @public
 */
export async function readRecordedRun(
  storage: StorageAdapter,
  runId: string,
  options: ReadRecordedRunOptions = {},
): Promise<RecordedRun> {
  const run = await storage.runs.get(runId);
  if (!run) throw new RunNotFoundError(runId);
  if (run.prunedAt !== undefined) throw new RunPrunedError(runId, run.prunedAt);
  const events = await allEvents(storage, runId);
  const part = await readPart(storage, run, events);
  const subagents: RecordedSubagent[] = [];
  const queue = [run.id];
  for (let i = 0; i < queue.length; i++) {
    const children = (await storage.runs.list({ startedBy: `agent:${queue[i]}`, limit: 1000 }))
      .filter((c) => c.parentRunId === queue[i])
      .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
    for (const child of children) {
      queue.push(child.id);
      if (child.prunedAt !== undefined) throw new RunPrunedError(child.id, child.prunedAt);
      const p = await readPart(storage, child, await allEvents(storage, child.id));
      subagents.push({ goal: child.goal, turns: p.turns, finalText: p.finalText, runId: child.id });
    }
  }
  const allTurns = [...part.turns, ...subagents.flatMap((s) => s.turns)];
  const approvals = recordedApprovals(events);
  for (const a of approvals.list) {
    const record = a.approvalId ? await storage.approvals.get(a.approvalId) : undefined;
    if (record?.decidedBy) a.approval.decidedBy = record.decidedBy;
  }
  const report = run.report as unknown as AgentGoalReport | null;
  return {
    runId: run.id,
    goal: run.goal,
    mode: run.mode,
    origin: run.origin,
    startedBy: run.startedBy,
    createdAt: run.createdAt,
    turns: part.turns,
    finalText: part.finalText,
    steering: part.steering.map((s) => ({ ...s, actor: run.startedBy })),
    approvals: approvals.list.map((a) => a.approval),
    subagents,
    capabilities: recordedCapabilities(allTurns, options.capabilities),
    plans: await recordedPlans(storage, allTurns, events),
    facts: report?.facts ?? null,
    report: report ? { status: report.status, summary: report.summary } : null,
    status: run.status,
    step: run.step,
    forkLineage: forkStateOf((run.runtimeState as Record<string, JsonValue> | null)?.[FORK_STATE_KEY])?.lineage ?? [],
    error: run.error ? { code: run.error.code, message: run.error.message } : null,
    capabilityAllowlist: run.capabilityAllowlist,
    budgets: run.budgets,
    sessionId: run.sessionId,
  };
}

async function allEvents(
  storage: StorageAdapter,
  runId: string,
): Promise<Array<{ seq: number; type: string; data: JsonValue }>> {
  const out: Array<{ seq: number; type: string; data: JsonValue }> = [];
  for (let afterSeq = 0; ; ) {
    const page = await storage.events.listByRun(runId, { afterSeq, limit: 1000 });
    for (const e of page) if (e.type !== 'text_delta') out.push({ seq: e.seq, type: e.type, data: e.data });
    if (page.length < 1000) return out;
    afterSeq = page[page.length - 1]!.seq;
  }
}

/** The turns, final text and steering of one run, from its conversation and events. */
async function readPart(
  storage: StorageAdapter,
  run: RunRecord,
  events: Array<{ seq: number; type: string; data: JsonValue }>,
): Promise<{ turns: RecordedTurn[]; finalText: string | null; steering: Array<Omit<RecordedSteering, 'actor'>> }> {
  const messages = (await storage.messages.list(run.id)).map((m) => m.message as unknown as StoredMessage);
  const results = new Map<string, ToolCallData>();
  for (const e of events) {
    if (e.type !== 'tool_call') continue;
    const d = e.data as unknown as ToolCallData;
    if (TERMINAL_PHASES.has(d.phase)) results.set(d.callId, d);
  }
  const toolMessages = new Map<string, StoredMessage>();
  for (const m of messages) if (m.role === 'tool' && m.toolCallId) toolMessages.set(m.toolCallId, m);
  const steeringTexts = steeringOf(events);
  const turns: RecordedTurn[] = [];
  const steering: Array<Omit<RecordedSteering, 'actor'>> = [];
  messages.forEach((m, i) => {
    if (m.role === 'user' && i > 0) {
      const text = textOf(m.content);
      const k = steeringTexts.indexOf(text);
      if (k >= 0) {
        steeringTexts.splice(k, 1);
        steering.push({ beforeTurn: turns.length, text });
      }
      return;
    }
    if (m.role !== 'assistant' || typeof m.content === 'string') return;
    const text = m.content
      .filter((p) => p.type === 'text')
      .map((p) => p.text ?? '')
      .join('');
    const calls = m.content
      .filter((p) => p.type === 'tool_call')
      .map((p) => recordedCall(p, results.get(p.id ?? ''), toolMessages.get(p.id ?? '')));
    turns.push({ ...(text ? { text } : {}), calls });
  });
  // The last turn is the final reply when it made no call and its text is the run's final text.
  const last = turns[turns.length - 1];
  const finalText =
    last && last.calls.length === 0 && run.finalText !== null && (last.text ?? '') === run.finalText
      ? run.finalText
      : null;
  if (finalText !== null) turns.pop();
  return { turns, finalText, steering };
}

/** Texts of the steering messages that reached the model, in the order they were applied. */
function steeringOf(events: Array<{ type: string; data: JsonValue }>): string[] {
  const queued = new Map<string, string>();
  const applied: string[] = [];
  for (const e of events) {
    if (e.type === 'inbox_queued') {
      const d = e.data as { inboxId: string; text: string };
      queued.set(d.inboxId, d.text);
    } else if (e.type === 'inbox_applied') {
      for (const id of (e.data as { inboxIds: string[] }).inboxIds) {
        const text = queued.get(id);
        if (text !== undefined) applied.push(text);
      }
    }
  }
  return applied;
}

function recordedCall(
  part: StoredPart,
  event: ToolCallData | undefined,
  message: StoredMessage | undefined,
): RecordedCall {
  const base = { capability: part.name ?? '', input: part.input ?? {}, ...(part.id ? { callId: part.id } : {}) };
  if (event) {
    return {
      ...base,
      status: event.phase as RecordedCallStatus,
      ...(event.output !== undefined ? { output: event.output } : {}),
      ...(event.error ? { error: { code: event.error.code, message: event.error.message } } : {}),
      ...(event.idempotencyKey ? { idempotencyKey: event.idempotencyKey } : {}),
      ...(event.invocationId ? { invocationId: event.invocationId } : {}),
    };
  }
  // No terminal event (a run stored before its step committed the event): the tool result message's envelope.
  const envelope = parseEnvelope(message);
  if (envelope) return { ...base, ...envelope };
  return {
    ...base,
    status: 'unknown',
    error: { code: 'REPLAY_NO_RECORDED_RESULT', message: 'the stored run has no result for this call' },
  };
}

function parseEnvelope(message: StoredMessage | undefined): Omit<RecordedCall, 'capability' | 'input'> | undefined {
  if (!message) return undefined;
  try {
    const value = JSON.parse(textOf(message.content)) as {
      status?: unknown;
      output?: JsonValue;
      error?: { code?: string; message?: string };
    };
    if (typeof value?.status !== 'string' || !TERMINAL_PHASES.has(value.status)) return undefined;
    return {
      status: value.status as RecordedCallStatus,
      ...(value.output !== undefined ? { output: value.output } : {}),
      ...(value.error ? { error: { code: value.error.code ?? 'UNKNOWN', message: value.error.message ?? '' } } : {}),
    };
  } catch {
    return undefined;
  }
}

function textOf(content: string | StoredPart[]): string {
  return typeof content === 'string'
    ? content
    : content
        .filter((p) => p.type === 'text')
        .map((p) => p.text ?? '')
        .join('');
}

/** Approvals requested and decided (approved or rejected), in the order they were requested. */
function recordedApprovals(events: Array<{ type: string; data: JsonValue }>): {
  list: Array<{ approvalId: string; approval: RecordedApproval }>;
} {
  const requested: Array<{ approvalId: string; capabilityId: string; planId: string }> = [];
  const decided = new Map<string, string>();
  const steeringAt = new Map<string, number>();
  let applied = 0;
  for (const e of events) {
    if (e.type === 'inbox_applied') applied += (e.data as { inboxIds: string[] }).inboxIds.length;
    else if (e.type === 'approval_requested') {
      const d = e.data as { approvalId: string; capabilityId: string; planId: string };
      requested.push({ approvalId: d.approvalId, capabilityId: d.capabilityId, planId: d.planId });
    } else if (e.type === 'approval_decided') {
      const d = e.data as { approvalId: string; status: string };
      decided.set(d.approvalId, d.status);
      steeringAt.set(d.approvalId, applied);
    }
  }
  const list: Array<{ approvalId: string; approval: RecordedApproval }> = [];
  for (const r of requested) {
    const status = decided.get(r.approvalId);
    if (status !== 'approved' && status !== 'rejected') continue;
    list.push({
      approvalId: r.approvalId,
      approval: {
        capabilityId: r.capabilityId,
        planId: r.planId,
        decision: status,
        afterSteering: steeringAt.get(r.approvalId) ?? 0,
      },
    });
  }
  return { list };
}

/** Descriptors, as JSON, of every capability called (runtime tools left out: the runtime answers them itself). */
function recordedCapabilities(
  turns: RecordedTurn[],
  registry: Pick<CapabilityRegistry, 'has' | 'get'> | undefined,
): RecordedCapability[] {
  const ids = [...new Set(turns.flatMap((t) => t.calls.map((c) => c.capability)))];
  const out: RecordedCapability[] = [];
  for (const id of ids) {
    if (RUNTIME_TOOLS.has(id)) continue;
    if (!registry?.has(id)) {
      out.push({ id, kind: 'unknown', input: null, output: null, registered: false });
      continue;
    }
    const d = registry.get(id);
    out.push({
      id,
      kind: d.kind,
      replay: d.replay,
      input: toJson(d.input),
      output: toJson(d.output),
      version: d.version,
      title: d.title,
      ...(d.policy !== undefined ? { policy: d.policy } : {}),
      ...(d.effect !== undefined ? { effect: d.effect } : {}),
      ...(d.adminOnly ? { adminOnly: true } : {}),
      hasTarget: typeof d.target === 'function',
      registered: true,
    });
  }
  return out;
}

/** The runtime's own tools (answered by the runtime, never by a capability). @internal */
export const RUNTIME_TOOLS: ReadonlySet<string> = new Set([
  'update_plan',
  'search_tools',
  'read_tool_result',
  'delegate',
  'execute_code',
]);

function toJson(schema: unknown): JsonValue {
  return JSON.parse(JSON.stringify(schema ?? null)) as JsonValue;
}

/** The plan records named by the calls' inputs and outputs (`planId`, `plan.id`) and by the approvals. */
async function recordedPlans(
  storage: StorageAdapter,
  turns: RecordedTurn[],
  events: Array<{ type: string; data: JsonValue }>,
): Promise<JsonValue[]> {
  const ids = new Set<string>();
  for (const t of turns)
    for (const c of t.calls) {
      collectPlanIds(c.input, ids);
      if (c.output !== undefined) collectPlanIds(c.output, ids);
    }
  for (const e of events) if (e.type === 'approval_requested') ids.add((e.data as { planId: string }).planId);
  const plans: PlanRecord[] = [];
  for (const id of ids) {
    const plan = await storage.plans.get(id);
    if (plan) plans.push(plan);
  }
  return plans.map((p) => toJson(p));
}

function collectPlanIds(value: JsonValue | undefined, into: Set<string>, depth = 0): void {
  if (depth > 8 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) collectPlanIds(v, into, depth + 1);
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k === 'planId' && typeof v === 'string') into.add(v);
    else if (k === 'plan' && v && typeof v === 'object' && !Array.isArray(v) && typeof v.id === 'string')
      into.add(v.id);
    collectPlanIds(v, into, depth + 1);
  }
}
