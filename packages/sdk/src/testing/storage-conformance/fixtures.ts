/**
 * Records and constants the storage conformance cases share: one builder per record kind (complete, with every
 * nullable field null; a case overrides what it needs).
 */
import type { BudgetReservation } from '../../core/budget-records';
import type { ApprovalRecord, AuditRecord, GrantRecord, GrantUsage, LedgerEntry, PlanRecord } from '../../core/records';
import type { DecisionRecord, InboxRecord, RunRecord } from '../../core/run-records';
import type { ScheduleRecord, ScheduleTickRecord } from '../../core/schedule-records';

/** The ledger scope of {@link ledgerEntry}. */
export const SCOPE = 'run:conformance';

/** A complete ledger entry with every nullable field null; override what the case needs. */
export function ledgerEntry(overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    key: 'cap.test:v1:run:conformance:hash-0',
    capabilityId: 'cap.test',
    capabilityVersion: 1,
    scopeId: SCOPE,
    callId: null,
    argsHash: 'hash-0',
    state: 'running',
    token: 'token-1',
    actor: 'agent:run-1',
    invocationId: 'inv-1',
    runId: null,
    taskId: null,
    approvalId: null,
    grantId: null,
    bytes: 0,
    output: null,
    error: null,
    inputSummary: '{}',
    attempts: 1,
    claimedAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    settledAt: null,
    ...overrides,
  };
}

/** A requested approval with every nullable field null and no steps (proposed hash = `payloadHash`'s default); override what the case needs. */
export function approval(overrides: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return {
    id: 'appr-1',
    planType: 'download',
    planId: 'plan-1',
    payloadHash: 'ph-1',
    revision: 1,
    status: 'requested',
    requestedBy: 'agent:run-1',
    reason: null,
    requestedAt: 1_700_000_000_000,
    expiresAt: 1_700_000_900_000,
    decidedBy: null,
    decidedAt: null,
    consumedBy: null,
    consumedAt: null,
    capabilityId: null,
    impact: null,
    steps: [],
    approvedSteps: null,
    proposedPayload: null,
    proposedPayloadHash: 'ph-1',
    approvedPayload: null,
    executedPayloadHash: null,
    ...overrides,
  };
}

/** An active grant without scope, budget or expiry; override what the case needs. */
export function grant(overrides: Partial<GrantRecord> = {}): GrantRecord {
  return {
    id: 'grant-1',
    action: 'media.*',
    status: 'active',
    expiresAt: null,
    policyRevisionId: null,
    scope: {},
    budget: {},
    reason: null,
    createdBy: 'console:admin',
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    ...overrides,
  };
}

/** A plan with a null payload and no media; override what the case needs. */
export function plan(overrides: Partial<PlanRecord> = {}): PlanRecord {
  return {
    id: 'plan-1',
    type: 'organize',
    payload: null,
    payloadHash: 'ph-1',
    revision: 1,
    mediaEntityId: null,
    mediaKind: null,
    bytes: 0,
    createdBy: 'agent:run-1',
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    ...overrides,
  };
}

/** A succeeded `capability.invoke` audit row with every nullable field null; override what the case needs. */
export function auditRow(overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    id: 'audit-1',
    seq: 0,
    at: 1_700_000_000_000,
    action: 'capability.invoke',
    actor: 'agent:run-1',
    capabilityId: 'cap.test',
    invocationId: 'inv-1',
    runId: null,
    taskId: null,
    outcome: 'succeeded',
    approvalId: null,
    grantId: null,
    idempotencyKey: null,
    inputSummary: '{}',
    reason: null,
    ...overrides,
  };
}

/** A queued, unleased run with zero usage and every nullable field null; override what the case needs. */
export function runRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    id: 'run-1',
    goal: 'add a film',
    mode: 'execute',
    status: 'queued',
    step: 'drive',
    startedBy: 'user:alice',
    origin: 'interactive',
    parentRunId: null,
    depth: 0,
    runtimeState: null,
    sessionId: null,
    capabilityAllowlist: null,
    budgets: {},
    usage: { toolCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, modelCalls: 0 },
    checklist: null,
    report: null,
    finalText: null,
    error: null,
    abortRequested: false,
    abortReason: null,
    wakeRequested: false,
    leaseOwner: null,
    leaseExpiresAt: null,
    notBefore: null,
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    startedAt: null,
    endedAt: null,
    ...overrides,
  };
}

/** A queued inbox message for `run-1`; override what the case needs. */
export function inboxRecord(overrides: Partial<InboxRecord> = {}): InboxRecord {
  return {
    id: 'msg-1',
    runId: 'run-1',
    text: 'also get subtitles',
    actor: 'user:alice',
    status: 'queued',
    createdAt: 10,
    appliedAt: null,
    ...overrides,
  };
}

/** An open `agent_budget` decision about `run-1`; override what the case needs. */
export function decision(overrides: Partial<DecisionRecord> = {}): DecisionRecord {
  return {
    id: 'dec-1',
    kind: 'agent_budget',
    dedupeKey: 'agent_budget:run-1',
    subjectId: 'run-1',
    status: 'open',
    reason: 'maxToolCalls exceeded',
    evidence: {},
    subjectType: 'run',
    rootCause: null,
    options: [],
    raisedBy: 'agent:run-1',
    resolvedBy: null,
    resolution: null,
    revision: 1,
    createdAt: 10,
    updatedAt: 10,
    resolvedAt: null,
    ...overrides,
  };
}

/** An active schedule of `user:alice` (every hour, UTC) with no client key and no tick yet; override what the case needs. */
export function scheduleRecord(overrides: Partial<ScheduleRecord> = {}): ScheduleRecord {
  return {
    id: 'sch-1',
    owner: 'user:alice',
    createdBy: 'user:alice',
    clientKey: null,
    cron: '0 * * * *',
    everyMs: null,
    anchorAt: 1_700_000_000_000,
    timezone: 'UTC',
    goal: 'check the downloads',
    mode: 'execute',
    capabilityAllowlist: null,
    budgets: {},
    missed: 'skip',
    status: 'active',
    nextTickAt: 1_700_000_360_000,
    lastTickAt: null,
    lastRunId: null,
    revision: 1,
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    ...overrides,
  };
}

/** A fired tick of `sch-1` at `tickAt` (default 1_700_000_360_000) that started `run-1`; override what the case needs. */
export function scheduleTick(overrides: Partial<ScheduleTickRecord> = {}): ScheduleTickRecord {
  const tickAt = overrides.tickAt ?? 1_700_000_360_000;
  return {
    scheduleId: 'sch-1',
    tickAt,
    outcome: 'fired',
    runId: 'run-1',
    reason: null,
    firstTickAt: tickAt,
    ticks: 1,
    handledAt: tickAt + 5,
    handledBy: 'worker-a',
    ...overrides,
  };
}

/** Text that trips naive encoders: CJK, accents, an emoji, quotes, a backslash and a newline. */
export const UNICODE = '整理 電影 — ünïcödé 🎬 "quotes" \\ back\nslash';

/** One day in milliseconds: the period of the daily counters. */
export const DAY = 86_400_000;

/**
 * Error codes records carry as data: the suite writes them and reads them back, it never throws them.
 */
export const SAMPLE_ERROR_CODES = { host: 'HOST_REJECTED', budget: 'BUDGET_EXCEEDED' } as const;

/** A reserved budget reservation of `user:alice` for one model call of `run-1`; override what the case needs. */
export function reservationRow(overrides: Partial<BudgetReservation> = {}): BudgetReservation {
  return {
    key: 'run-1:call:1:0',
    subject: 'user:alice',
    runId: 'run-1',
    state: 'reserved',
    day: DAY,
    month: 0,
    runs: 0,
    modelCalls: 1,
    tokens: 4_096,
    costUsd: 0.125,
    createdAt: 10,
    updatedAt: 10,
    ...overrides,
  };
}

/** A grant's counters for one day, as `grantUsage.get` and `grantUsage.add` return them. */
export function grantDay(grantId: string, day: number, invocations: number, bytes: number): GrantUsage {
  return { grantId, day, invocations, bytes };
}
