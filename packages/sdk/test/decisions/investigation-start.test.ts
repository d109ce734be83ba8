import { describe, expect, it } from 'vitest';
import { MediaAgentError } from '../../src/core/errors';
import {
  attemptsExhaustedDecision,
  claimedInvestigation,
  investigationOverdue,
  investigationRunInput,
  recoveryCoverage,
  runNeverStoredDecision,
  runNotStartedDecision,
} from '../../src/runtime/decisions/investigation-start';
import { decisionRecord, grant, registryOf } from './decision-fixtures';

describe('starting an investigation', () => {
  it('a root cause out of attempts goes to a person, saying why', () => {
    const d = attemptsExhaustedDecision(decisionRecord({ evidence: { keep: true } }), 2, 2);
    expect(d.status).toBe('awaiting_user');
    expect(d.evidence).toEqual({
      keep: true,
      autoRecover: {
        skipped: 'attempts_exhausted',
        attempts: 2,
        maxAttempts: 2,
        suggestion: 'automatic recovery of download_failed:d1 was attempted 2 times; a person should look at it',
      },
    });
  });

  it('a recovery needs a registered capability that an active, unscoped grant covers', () => {
    const registry = registryOf(['download.recheck', 'task.retry']);
    expect(recoveryCoverage('download_failed', registry, [], 0)).toEqual({
      needed: ['download.recheck', 'task.retry'],
      covered: [],
    });
    expect(recoveryCoverage('download_failed', registry, [grant('task.retry')], 0).covered).toEqual(['task.retry']);
    expect(recoveryCoverage('download_failed', registry, [grant('*')], 0).covered).toEqual([
      'download.recheck',
      'task.retry',
    ]);
    expect(recoveryCoverage('download_failed', registry, [grant('*', { expiresAt: 5 })], 5).covered).toEqual([]);
    expect(
      recoveryCoverage('download_failed', registry, [grant('*', { scope: { mediaKinds: ['movie'] } })], 0).covered,
    ).toEqual([]);
    expect(recoveryCoverage('identity_ambiguous', registry, [grant('*')], 0)).toEqual({ needed: [], covered: [] });
  });

  it('the claim records the run, its mode and dedupe key, and recovery notes only when there are some', () => {
    const d = decisionRecord({ evidence: { keep: 1 } });
    const claim = { options: d.options, runId: 'run_1', mode: 'investigate' as const, autoRecover: {}, now: 77 };
    expect(claimedInvestigation(d, claim).evidence).toEqual({
      keep: 1,
      investigation: { runId: 'run_1', mode: 'investigate', dedupeKey: 'investigate:dec_1', startedAt: 77 },
    });
    const options = [{ id: 'recheck', label: 'r' }];
    const recover = claimedInvestigation(d, { ...claim, options, mode: 'recover', autoRecover: { attempt: 1 } });
    expect(recover.options).toBe(options);
    expect(recover.evidence).toMatchObject({ autoRecover: { attempt: 1 }, investigation: { mode: 'recover' } });
  });

  it('an investigation run only reads; a recovery run may also use the registered recovery actions', () => {
    const registry = registryOf(['media.search', 'task.inspect', 'download.recheck', 'download.submit'], {
      kinds: { 'download.recheck': 'execute', 'download.submit': 'execute' },
    });
    const d = decisionRecord({ evidence: { why: 'stalled' } });
    const investigate = investigationRunInput(d, 'investigate', registry, { maxToolCalls: 8, maxDurationSec: 900 });
    expect(investigate).toMatchObject({
      mode: 'plan_only',
      actor: 'system:auto-investigate',
      capabilityAllowlist: ['media.search', 'task.inspect'],
      origin: 'background',
      budgets: { maxToolCalls: 8, maxDurationSec: 600 },
    });
    expect(investigate.goal).toContain('Investigate decision dec_1 (download_failed) about download d1');
    expect(investigate.goal).toContain('Evidence: {"why":"stalled"}');
    expect(investigate.goal).toContain('Do not change anything');
    const recover = investigationRunInput(d, 'recover', registry, { maxToolCalls: 8, maxDurationSec: 120 });
    expect(recover).toMatchObject({
      mode: 'execute',
      actor: 'system:auto-recover',
      capabilityAllowlist: ['media.search', 'task.inspect', 'download.recheck'],
      budgets: { maxDurationSec: 120 },
    });
    expect(recover.goal).toContain('within standing grants: download.recheck on this subject only');
  });

  it('quotes at most 4000 characters of evidence', () => {
    const d = decisionRecord({ evidence: { big: 'x'.repeat(10_000) } });
    const goal = investigationRunInput(d, 'investigate', registryOf([]), { maxToolCalls: 1, maxDurationSec: 1 }).goal;
    const quoted = /Evidence: (.*)\n/.exec(goal)?.[1] ?? '';
    expect(quoted).toHaveLength(4000);
  });

  it('a run that could not start hands an open decision to a person with the error code', () => {
    const open = runNotStartedDecision(decisionRecord(), 'run_1', new MediaAgentError('HOST_STOPPED', 'no'));
    expect(open.status).toBe('awaiting_user');
    expect(open.evidence).toEqual({
      agentInvestigation: { runId: 'run_1', runStatus: 'not_started', error: 'HOST_STOPPED' },
    });
    const resolved = runNotStartedDecision(decisionRecord({ status: 'resolved' }), 'run_1', new Error('x'));
    expect(resolved.status).toBe('resolved');
    expect(resolved.evidence).toMatchObject({ agentInvestigation: { error: 'DRIVER_FAILED' } });
  });

  it('a claim whose run was never stored goes to a person after a minute', () => {
    const d = decisionRecord({ evidence: { investigation: { runId: 'run_1', startedAt: 1_000 } } });
    expect(investigationOverdue(d, 61_000)).toBe(false);
    expect(investigationOverdue(d, 61_001)).toBe(true);
    expect(runNeverStoredDecision(d, 'run_1')).toMatchObject({
      status: 'awaiting_user',
      evidence: { investigation: { runId: 'run_1' }, agentInvestigation: { runStatus: 'not_started', error: null } },
    });
  });
});
