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
 * (a person is watching: loops are warned) or `background` / `channel` / `schedule` (loops stop the run). A
 * `schedule` run was started by a tick of a schedule (docs/schedules.md): no learning review follows it, and when it
 * fails or exceeds a budget a decision is raised.
 * @public
 */
export type RunOrigin = 'interactive' | 'background' | 'channel' | 'schedule';

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
  /**
   * The same model figures per provider and model, keyed `<provider id>/<model>` (e.g.
   * `anthropic/claude-sonnet-4-5`, `openai-compatible:ollama/qwen3:8b`): with a fallback chain, each attempt is
   * charged once to the provider that made it (a failed attempt with no reported usage adds a call and 0 tokens).
   * Absent on runs stored before it existed and on runs that made no model call.
   */
  byModel?: Record<string, ModelCallUsage>;
}

/**
 * Model usage of a run with one provider and model (`RunUsage.byModel`).
 * @public
 */
export interface ModelCallUsage {
  /** Input tokens as that provider reported them. */
  inputTokens: number;
  /** Output tokens. */
  outputTokens: number;
  /** Cost in USD from that model's price (0 when unknown). */
  costUsd: number;
  /** Calls made to it, failed attempts included. */
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
  /**
   * When retention removed the run's events and messages (ms); its goal, status and report stay. Absent on a run
   * retention has not pruned. Storage sets it (`host.maintenance.prune`); it is never written through a patch. A
   * pruned run cannot be steered or woken again (`RUN_PRUNED`): start a new run (docs/operations.md).
   */
  prunedAt?: number;
  /**
   * The run this one was forked from and the step boundary (event `seq` of the original) it was forked at
   * (`host.forkRun`, `host.undoLastTurn`; docs/forks.md). Absent on a run that is not a fork. Written once, when the
   * fork is created; never through a patch.
   */
  forkedFrom?: RunForkOrigin;
}

/**
 * Where a fork comes from (`RunRecord.forkedFrom`): the original run and the event `seq` of the step boundary the
 * fork's conversation ends at.
 * @public
 */
export interface RunForkOrigin {
  /** The original run's id. */
  runId: string;
  /** The original's event `seq` the fork was made at (a fork point). */
  atSeq: number;
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
  /**
   * Set only on the last event a step commit of the run wrote: how many conversation messages the run had stored
   * once that step committed (a step boundary; docs/forks.md#fork-points). Absent on every other event, and on a
   * commit made before the drive read the conversation. Not part of the delivered `RunEvent`.
   */
  messageCount?: number;
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
 * Where a decision stands: `open` (raised, nobody answered yet; an automatic investigation may run),
 * `awaiting_user` (handed to a person, with what an investigation found in the evidence), `resolved` (an
 * option was chosen, or the system verified a recovery) or `dismissed` (a person closed it without action).
 * @public
 */
export type DecisionStatus = 'open' | 'awaiting_user' | 'resolved' | 'dismissed';

/**
 * One choice offered to a person on a decision. With `capabilityId`, choosing it invokes that capability
 * with `input` through the one invocation path, as the person who chose (authorized, audited, ledgered).
 * @public
 */
export interface DecisionOption {
  /** Id of the option within its decision, e.g. `recheck`, `dismiss`. */
  id: string;
  /** What choosing it does, in words a person reads. */
  label: string;
  /** Capability invoked when it is chosen, or absent for an option that records the choice only. */
  capabilityId?: string;
  /** Input of that capability. */
  input?: JsonValue;
}

/**
 * What executing a decision's chosen option through the invocation path did: the invocation's `status`, its
 * `output` (succeeded, pending) or `error` (failed, denied, unknown), its id and idempotency key.
 * @public
 */
export type DecisionCapabilityExecution = {
  /** The option invoked a capability. */
  kind: 'capability';
  /** The capability invoked. */
  capabilityId: string;
  /** The invocation's outcome (see `InvocationStatus`). */
  status: 'succeeded' | 'failed' | 'pending' | 'unknown' | 'denied';
  /** Output (`succeeded`) or receipt (`pending`). */
  output?: JsonValue;
  /** Why it failed, was denied or is unknown. */
  error?: { code: string; message: string };
  /** The invocation's id (in the audit trail). */
  invocationId?: string;
  /** The invocation's idempotency key. */
  idempotencyKey?: string;
};

/**
 * A recovery run that the system verified from business facts closed the decision.
 * @public
 */
export type DecisionRecoveryExecution = {
  /** An automatic recovery. */
  kind: 'agent_recover';
  /** Always true: only a verified recovery closes a decision. */
  verified: boolean;
  /** The recovery run. */
  runId: string;
  /** The facts that verified it. */
  facts: JsonValue;
};

/**
 * What executing a decision's resolution did: a capability invocation, a verified automatic recovery, or
 * nothing (`none`: the option invokes nothing, or the decision was dismissed).
 * @public
 */
export type DecisionExecution = DecisionCapabilityExecution | DecisionRecoveryExecution | { kind: 'none' };

/**
 * A choice that did not take (its invocation was denied or failed), as kept in the decision's evidence
 * (`deniedChoice`, `failedChoice`) and returned to the chooser: the execution, plus who chose what and when.
 * @public
 */
export type DecisionRefusedChoice = DecisionCapabilityExecution & {
  /** The option chosen. */
  optionId: string;
  /** Who chose it. */
  actor: string;
  /** When (ms). */
  at: number;
};

/**
 * How a decision was closed: the option chosen (or `null` when the system closed it) and what executing it did.
 * @public
 */
export interface DecisionResolution {
  /** Option chosen, or null (a verified automatic recovery, a dismissal). */
  optionId: string | null;
  /** Free text of the person who closed it, or of the system. */
  note: string | null;
  /**
   * What executing the choice did: `capability` (the option's invocation: status, output or error, invocation id,
   * idempotency key), `agent_recover` (a recovery run the system verified: `verified`, `runId`, `facts`), or `none`;
   * null while the chosen option is still executing.
   */
  execution: DecisionExecution | null;
}

/**
 * A decision for a person: something a host (or the runtime) raises and a person resolves — a budget overrun
 * (`agent_budget`), an ambiguous title (`identity_ambiguous`), a failed or stalled download (`download_failed`,
 * `download_stalled`), or a host-defined kind.
 * @public
 */
export interface DecisionRecord {
  /** Id of this record for a person. */
  id: string;
  /** Kind, e.g. `agent_budget`, `download_failed`. */
  kind: string;
  /** Dedupe key, e.g. `agent_budget:<runId>`; unique: raising a decision with a stored key creates nothing. */
  dedupeKey: string;
  /** What it is about: `run`, `download`, `release`, `task` or a host-defined type. */
  subjectType: string;
  /** Id of the subject (a run id, a download id …). */
  subjectId: string;
  /**
   * The cause it shares with earlier decisions (e.g. `download_failed:<downloadId>`): automatic recovery is
   * attempted a bounded number of times per root cause. Null when none.
   */
  rootCause: string | null;
  /** See {@link DecisionStatus}. */
  status: DecisionStatus;
  /** Why a person is asked, in words a person reads (e.g. which budget was exceeded). */
  reason: string;
  /**
   * Facts for the person (an object): what the host saw, and what automatic handling added
   * (`agentInvestigation`, `autoRecover`).
   */
  evidence: JsonValue;
  /** What the person can choose from. */
  options: DecisionOption[];
  /** Who raised it (`system:<name>`, `agent:<runId>` for a run's own question …). */
  raisedBy: string;
  /** Who closed it (`user:<id>`, `system:auto-recover`), or null while open. */
  resolvedBy: string | null;
  /** How it was closed, or null while open. */
  resolution: DecisionResolution | null;
  /** Starts at 1; every stored change adds 1 (writes are compare-and-set on it). */
  revision: number;
  /** Creation time (ms). */
  createdAt: number;
  /** Time of the latest change (ms). */
  updatedAt: number;
  /** Resolution or dismissal time (ms), or null. */
  resolvedAt: number | null;
}
