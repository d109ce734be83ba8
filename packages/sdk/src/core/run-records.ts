import type { JsonValue, RecordedError } from './records';

/**
 * Status of a run: `queued` waiting for a worker; `running` driven under a lease;
 * `waiting` the drive ended but business facts are still moving (submitted ≠ imported); terminal:
 * `succeeded`, `failed`, `cancelled`, `budget_exceeded`.
 * @public
 */
export type RunStatus = 'queued' | 'running' | 'waiting' | 'succeeded' | 'failed' | 'cancelled' | 'budget_exceeded';

/** Terminal run statuses. @public */
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = Object.freeze([
  'succeeded',
  'failed',
  'cancelled',
  'budget_exceeded',
]);

/** `execute` may run every kind; `plan_only` only `read`, `preview` and `propose`. @public */
export type RunMode = 'execute' | 'plan_only';

/**
 * Where a run comes from, which decides how guardrails react: `interactive`
 * (a person is watching: loops are warned) or `background` / `channel` (loops stop the run).
 * @public
 */
export type RunOrigin = 'interactive' | 'background' | 'channel';

/** The step a run is in: drive (model/tool loop), goal_settled (poll facts), finalize (build the report). @public */
export type RunStep = 'drive' | 'goal_settled' | 'finalize';

/** Resource use of a run so far. @public */
export interface RunUsage {
  /** Tool calls made, including those the loop guard refused (counted against `maxToolCalls`). */
  toolCalls: number;
  /** Model input tokens, summed over the run's model calls as the provider reported them. */
  inputTokens: number;
  /** Model output tokens, summed over the run's model calls. */
  outputTokens: number;
  /** Model cost in USD. */
  costUsd: number;
  /** Model calls made (counted against `maxModelCalls`). */
  modelCalls: number;
}

/**
 * One agent run as stored.
 * @public
 */
export interface RunRecord {
  /** Run id; subagent and event records refer to it. */
  id: string;
  /** The user's goal. */
  goal: string;
  /** `execute`, or `plan_only` (only `read`, `preview` and `propose` capabilities). */
  mode: RunMode;
  /** `queued`, `running`, `waiting`, or a terminal status (`succeeded`, `failed`, `cancelled`, `budget_exceeded`). */
  status: RunStatus;
  /** `drive`, `goal_settled` or `finalize` (docs/architecture.md#runs). */
  step: RunStep;
  /** Who started it (`user:`, `apikey:`, `system:` …); tool calls run as `agent:<runId>`. */
  startedBy: string;
  /** Where the run comes from (guardrail mode). */
  origin: RunOrigin;
  /** The run that delegated this one (a read-only subagent), or null. */
  parentRunId: string | null;
  /** 0 for a top-level run, 1 for its subagent, 2 for a subagent's subagent (the maximum). */
  depth: number;
  /** Runtime state that must survive a crash (loop guard, tool discovery, continuation prompts), or null. */
  runtimeState: JsonValue | null;
  /** Session the run belongs to, when any. */
  sessionId: string | null;
  /** Capabilities the run may use (null: every capability its mode allows). */
  capabilityAllowlist: string[] | null;
  /** Budgets (a `RunBudgets` object). */
  budgets: JsonValue;
  /** Tool calls, model calls, tokens and cost used so far, checked against the run's budgets. */
  usage: RunUsage;
  /** The run's current checklist (the model writes it with the `update_plan` tool; see `RunChecklist`), or null. */
  checklist: JsonValue | null;
  /** The verified goal report, or null. */
  report: JsonValue | null;
  /** The model's last final text (unverified). */
  finalText: string | null;
  /** Why the run failed, when it did. */
  error: RecordedError | null;
  /** Abort was requested (the driver stops before its next step). */
  abortRequested: boolean;
  /** Reason given with the abort. */
  abortReason: string | null;
  /** A new drive was requested (a message was appended to a waiting or ended run). */
  wakeRequested: boolean;
  /** Worker holding the lease, or null. */
  leaseOwner: string | null;
  /** Lease expiry (ms), or null. */
  leaseExpiresAt: number | null;
  /** A waiting run is not polled before this time (ms), or null. */
  notBefore: number | null;
  /** Creation time (ms). */
  createdAt: number;
  /** Time of the latest change (ms). */
  updatedAt: number;
  /** When it first ran (ms). */
  startedAt: number | null;
  /** When it reached a terminal status (ms). */
  endedAt: number | null;
}

/**
 * One persisted run event: per-run `seq` (unique with the run id) and a global sequence, assigned
 * by storage on append.
 * @public
 */
export interface RunEventRecord {
  /** Global sequence number (increasing across runs). */
  globalSeq: number;
  /** Run id. */
  runId: string;
  /** Per-run sequence number, from 1. */
  seq: number;
  /** Event type, e.g. `run_status`, `tool_call`. */
  type: string;
  /** Time (ms). */
  at: number;
  /** The event's data; its shape depends on the event type (see `RunEventPayloads`). */
  data: JsonValue;
}

/** One conversation message of a run, in order. @public */
export interface RunMessageRecord {
  /** Run id. */
  runId: string;
  /** Position in the conversation, from 1. */
  seq: number;
  /** The provider-neutral message (`ModelMessage`). */
  message: JsonValue;
  /** Time (ms). */
  at: number;
}

/** A steering message waiting in a run's inbox, or applied. @public */
export interface InboxRecord {
  /** Steering message id. */
  id: string;
  /** Run id. */
  runId: string;
  /** The message as the person wrote it. */
  text: string;
  /** Who wrote it, e.g. `user:admin`. */
  actor: string;
  /** `queued` until the driver applies it before a model call. */
  status: 'queued' | 'applied';
  /** Time queued (ms). */
  createdAt: number;
  /** Time applied (ms), or null. */
  appliedAt: number | null;
}

/**
 * A pending decision for a person (e.g. `agent_budget:<runId>` when a run exceeded a budget).
 * @public
 */
export interface DecisionRecord {
  /** Id of this record for a person. */
  id: string;
  /** Kind, e.g. `agent_budget`. */
  kind: string;
  /** Dedupe key, e.g. `agent_budget:<runId>`; unique. */
  dedupeKey: string;
  /** What it is about (a run id …). */
  subjectId: string;
  /** `open` until a person resolves it. */
  status: 'open' | 'resolved';
  /** Why a person is asked, in words a person reads (e.g. which budget was exceeded). */
  reason: string;
  /** Facts for the person. */
  data: JsonValue;
  /** Creation time (ms). */
  createdAt: number;
  /** Resolution time (ms), or null. */
  resolvedAt: number | null;
}
