import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/records';
import type { RunRecord } from '../../src/core/run-records';
import {
  concludedDecision,
  investigationConclusion,
  recoveryOutcome,
} from '../../src/runtime/decisions/investigation-conclusion';
import { runRecord } from '../storage/run-record';
import { decisionRecord, registryOf } from './decision-fixtures';

const context = { capabilities: registryOf(['download.recheck']), now: () => 900 };
const investigated = decisionRecord({ evidence: { investigation: { runId: 'run_1', mode: 'recover' } } });
const ended = (recover: JsonValue, overrides: Partial<RunRecord> = {}) =>
  runRecord('run_1', { status: 'succeeded', runtimeState: { recover }, finalText: 'done', ...overrides });

describe('concluding an investigation', () => {
  it('the outcome: over budget first, then what the run recorded, then how it ended', () => {
    expect(recoveryOutcome('budget_exceeded', { outcome: 'verified' })).toBe('over_budget');
    expect(recoveryOutcome('failed', { outcome: 'timed_out' })).toBe('timed_out');
    expect(recoveryOutcome('failed', {})).toBe('run_failed');
    expect(recoveryOutcome('cancelled', { outcome: 3 })).toBe('run_cancelled');
    expect(recoveryOutcome('succeeded', {})).toBe('no_action');
  });

  it('the conclusion keeps the report summary and at most 4000 characters of the final text, unverified', () => {
    const run = runRecord('run_1', {
      status: 'succeeded',
      report: { summary: 's' } as never,
      finalText: 'x'.repeat(5000),
    });
    const c = investigationConclusion(run);
    expect(c).toMatchObject({ runId: 'run_1', runStatus: 'succeeded', summary: 's', conclusion: { verified: false } });
    expect((c.conclusion as { text: string }).text).toHaveLength(4000);
    expect(investigationConclusion(runRecord('run_1'))).toMatchObject({ summary: null, conclusion: null });
  });

  it('a verified recovery resolves the decision as system:auto-recover', () => {
    const { next, change, actor } = concludedDecision(
      investigated,
      ended({ outcome: 'verified', actions: ['a'], facts: { f: 1 } }),
      'recover',
      context,
    );
    expect(change).toBe('resolved');
    expect(actor).toBe('system:auto-recover');
    expect(next).toMatchObject({
      status: 'resolved',
      resolvedBy: 'system:auto-recover',
      resolvedAt: 900,
      resolution: {
        optionId: null,
        execution: { kind: 'agent_recover', verified: true, runId: 'run_1', facts: { f: 1 } },
      },
      evidence: {
        autoRecover: { outcome: 'verified', actions: ['a'], denied: [] },
        agentInvestigation: { runId: 'run_1' },
      },
    });
  });

  it('an unverified recovery goes to a person with a suggestion; a denied one that did nothing offers the recheck', () => {
    const timedOut = concludedDecision(investigated, ended({ outcome: 'timed_out' }), 'recover', context);
    expect(timedOut.change).toBe('awaiting_user');
    expect(timedOut.next.status).toBe('awaiting_user');
    expect(timedOut.next.evidence).toMatchObject({
      autoRecover: { outcome: 'timed_out', suggestion: expect.any(String) },
    });
    expect(timedOut.next.options).toEqual([]);
    const denied = concludedDecision(investigated, ended({ denied: ['download.recheck'] }), 'recover', context);
    expect(denied.next.evidence).toMatchObject({
      autoRecover: { outcome: 'no_action', degraded: { reason: 'the recovery action was denied' } },
    });
    expect(denied.next.options.map((o) => o.id)).toEqual(['recheck']);
  });

  it('an investigation hands the decision to a person with the conclusion only', () => {
    const { next, change, actor } = concludedDecision(
      investigated,
      ended({ outcome: 'verified' }),
      'investigate',
      context,
    );
    expect({ change, actor, status: next.status }).toEqual({
      change: 'awaiting_user',
      actor: 'system:auto-investigate',
      status: 'awaiting_user',
    });
    expect(next.evidence).not.toHaveProperty('autoRecover');
  });

  it('a decision a person closed meanwhile keeps their resolution and gains the conclusion', () => {
    const closed = { ...investigated, status: 'dismissed' as const };
    const { next, change, actor } = concludedDecision(closed, ended({ outcome: 'verified' }), 'recover', context);
    expect({ change, actor, status: next.status }).toEqual({
      change: 'investigated',
      actor: 'system:auto-investigate',
      status: 'dismissed',
    });
    expect(next.evidence).toMatchObject({ agentInvestigation: { runId: 'run_1' } });
  });
});
