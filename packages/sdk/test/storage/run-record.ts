import type { RunRecord } from '../../src/core/run-records';

/** A complete queued run with every nullable field null; override what the test needs. */
export function runRecord(id: string, overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    id,
    goal: 'add a film',
    mode: 'execute',
    status: 'queued',
    step: 'drive',
    startedBy: 'user:test',
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
    createdAt: 1,
    updatedAt: 1,
    startedAt: null,
    endedAt: null,
    ...overrides,
  };
}
