import type { ImpactReport } from '../../core/impact';
import type { JsonValue } from '../../core/records';
import type { RunStatus, RunStep } from '../../core/run-records';
import type { ScheduleSkipReason } from '../../core/schedule-records';
import type { AgentGoalReport } from '../goal-report';
import type { RunChecklist } from '../checklist';
import type { ForkedEffect } from '../fork/fork-types';

/** Phases of a tool call as published in `tool_call` events. @public */
export type ToolCallPhase = 'started' | 'succeeded' | 'failed' | 'denied' | 'pending' | 'unknown' | 'blocked';

/**
 * Payloads of run events by type (a closed union).
 * @public
 */
export interface RunEventPayloads {
  /** The run changed status or step. */
  run_status: { status: RunStatus; step: RunStep; reason?: string };
  /** A piece of the model's text. */
  text_delta: { text: string };
  /** A tool call started or settled. */
  tool_call: {
    callId: string;
    capabilityId: string;
    phase: ToolCallPhase;
    invocationId?: string;
    idempotencyKey?: string;
    error?: { code: string; message: string };
    output?: JsonValue;
  };
  /** The run's checklist was replaced (`update_plan`), or cleared (`null`) when a finished run is resumed. */
  checklist_updated: { checklist: RunChecklist | null };
  /**
   * The fork's first event (seq 1; docs/forks.md): the run and event it was forked from, and the effects its lineage
   * performed after that point — facts, never re-executed nor undone by the fork; its model is told about them.
   * `model`: the model id its turns use; `goalChanged`: a new goal was given; `undo`: made by `host.undoLastTurn`.
   */
  forked: {
    fromRunId: string;
    atSeq: number;
    effectsAfter: ForkedEffect[];
    model?: string;
    goalChanged?: boolean;
    undo?: boolean;
  };
  /** A steering message was queued. */
  inbox_queued: { inboxId: string; text: string };
  /** Queued steering messages reached the model. */
  inbox_applied: { inboxIds: string[] };
  /** An approval was requested for a plan the run wants to execute. */
  approval_requested: {
    approvalId: string;
    planType: string;
    planId: string;
    payloadHash: string;
    capabilityId: string;
    /** What the call would do, in real units (or why that is unknown), as the approver sees it. */
    impact?: ImpactReport;
    /** The plan's steps a person may approve in part (absent or empty: approved whole). */
    steps?: Array<{ id: string; label: string }>;
  };
  /** An approval the run asked for was decided. */
  approval_decided: {
    approvalId: string;
    status: string;
    /** The steps approved, when only some were. */
    approvedSteps?: string[];
    /** True when the approver edited the plan: the edited payload is what executes. */
    edited?: boolean;
  };
  /** The goal report verified from the host's `GoalFacts` (written just before the run's final `run_status`). */
  report: { report: AgentGoalReport };
  /** A budget was exceeded. */
  budget_exceeded: { budget: string; limit: number; used: number };
  /**
   * A spending budget has no room for the run's next model call (or, at its start, for one more run): the run
   * waits at the same step (docs/budgets.md). `scope` is `person` (the run owner's caps) or `household`;
   * `subject` whose counters were checked; `period` `day` or `month`; `budget` `runs`, `modelCalls`, `tokens` or
   * `costUsd`; `limit`, `used` and `requested` in that unit; `resetsAt` when the period ends (ms); `decisionId`
   * the `budget_reached` decision raised for a person.
   */
  budget_reached: {
    scope: 'person' | 'household';
    subject: string;
    period: 'day' | 'month';
    budget: string;
    limit: number;
    used: number;
    requested: number;
    resetsAt: number;
    decisionId: string;
  };
  /**
   * Something the user should see that is not an error of the run: a provider sent a shape the
   * runtime did not understand or refused optional fields (`source: 'provider'`), or the loop guard
   * paused or stopped the run (`source: 'loop_guard'`).
   */
  warning: { source: 'provider' | 'loop_guard' | 'runtime'; code: string; message: string; details?: JsonValue };
  /**
   * The run needs a person's answer before it goes on (it is `waiting`; a message resumes it). `reason`
   * is a stable code such as `GOAL_TARGET_AMBIGUOUS`; `options` lists what the person can choose from;
   * `decisionId` is set when a decision was raised for a run nobody attends.
   */
  input_requested: { reason: string; question: string; options: JsonValue; decisionId?: string };
  /**
   * A model call failed with a transient error after its provider's own retries (`code`: `PROVIDER_RATE_LIMITED`,
   * `PROVIDER_UNAVAILABLE`, `PROVIDER_UNREACHABLE`, `PROVIDER_TIMEOUT` or `PROVIDER_OUT_OF_CREDIT`; `reason` its
   * message) and the same turn is sent to the next entry of the fallback chain (`model.fallbacks`). `from` and
   * `to` name the provider id and model of each (docs/providers.md#fallback-chains).
   */
  model_fallback: {
    from: { provider: string; model: string };
    to: { provider: string; model: string };
    code: string;
    reason: string;
  };
  /**
   * A decision for a person was raised. Published on the stream of the run it is about (`subjectType`
   * `run`), else on a stream named by the decision id (`runId` is then the decision id).
   */
  'decision.created': DecisionEventData;
  /**
   * A decision changed: an automatic investigation started (`change: 'investigating'`), it was handed to a
   * person (`awaiting_user`), resolved, dismissed, or a choice was denied (`choice_denied`). Same stream as
   * its `decision.created`.
   */
  'decision.updated': DecisionEventData & { change: string };
  /**
   * A schedule's tick started this run (docs/schedules.md): on the run's stream, right after its `queued`
   * `run_status`. `tickAt` is the tick (ms since the epoch).
   */
  'schedule.fired': { scheduleId: string; tickAt: number; runId: string };
  /**
   * A schedule's tick, or a batch of consecutive missed ticks, started nothing: `reason` `missed` (no process
   * fired it in time), `daily_budget` (the schedule's runs or cost per UTC day were used up) or `refused` (the run
   * could not be started, e.g. a capability of the allowlist is gone or no longer callable by the owner). `tickAt` is
   * the newest tick covered, `firstTickAt` the oldest, `ticks` how many. On the schedule's stream (its `runId` is the
   * schedule id), which the schedule's owner and administrators may read.
   */
  'schedule.skipped': {
    scheduleId: string;
    tickAt: number;
    reason: ScheduleSkipReason;
    ticks: number;
    firstTickAt: number;
  };
}

/** What a `decision.created` / `decision.updated` event says about the decision (read the rest with `host.getDecision`). @public */
export interface DecisionEventData {
  /** Decision id. */
  decisionId: string;
  /** Kind, e.g. `download_failed`. */
  kind: string;
  /** Status after the change. */
  status: string;
  /** Subject type and id. */
  subjectType: string;
  /** Subject id. */
  subjectId: string;
  /** Revision after the change. */
  revision: number;
  /** Who made the change (`user:<id>`, `system:auto-recover` …). */
  actor: string;
  /** The investigation run, when one runs or ran for it. */
  runId?: string;
}

/** Run event types. @public */
export type RunEventType = keyof RunEventPayloads;

/**
 * A persisted run event as delivered to subscribers: per-run `seq`, global `globalSeq`. A union
 * discriminated by `type`: after `if (e.type === 'report')` (or in a `switch` case) `e.data` has that
 * type's payload from {@link RunEventPayloads}, e.g. `e.data.report.status`, with no cast.
 * @public
 */
export type RunEvent = {
  [T in RunEventType]: {
    type: T;
    runId: string;
    seq: number;
    globalSeq: number;
    at: number;
    data: RunEventPayloads[T];
  };
}[RunEventType];
