import { describe, expect, it } from 'vitest';
import type { DecisionRecord } from '../../src/index';
import {
  grantCoversRecovery,
  investigationBudgets,
  investigationSkip,
  recoverPollSec,
  recoveryAttempts,
  recoveryCapabilities,
  recoveryVerdict,
} from '../../src/decisions';
import type { GrantRecord } from '../../src/storage';
import type { GoalFactsSnapshot } from '../../src/testing';

const open = { kind: 'download_failed', status: 'open' as const, raisedBy: 'system:watch', evidence: {} };

describe('decision rules', () => {
  it('investigationSkip: investigates an open decision of the three kinds a run did not raise, once', () => {
    expect(investigationSkip(open, true)).toBeNull();
    expect(investigationSkip({ ...open, kind: 'identity_ambiguous' }, true)).toBeNull();
    expect(investigationSkip({ ...open, kind: 'download_stalled' }, true)).toBeNull();
    expect(investigationSkip(open, false)).toBe('auto_investigate_off');
    expect(investigationSkip({ ...open, kind: 'agent_budget' }, true)).toBe('kind_not_investigated');
    expect(investigationSkip({ ...open, status: 'awaiting_user' }, true)).toBe('not_open');
    expect(investigationSkip({ ...open, raisedBy: 'agent:run_1' }, true)).toBe('caused_by_agent');
    const investigated = {
      ...open,
      evidence: { investigation: { runId: 'run_1', mode: 'investigate', dedupeKey: 'x' } },
    };
    expect(investigationSkip(investigated, true)).toBe('already_investigated');
    // Reopened after an investigation: still one run per decision.
    expect(investigationSkip({ ...investigated, status: 'open' }, true)).toBe('already_investigated');
  });

  it('recoveryAttempts counts the other decisions of a root cause that attempted a recovery', () => {
    const d = (id: string, attempted: boolean | undefined) =>
      ({
        id,
        evidence: attempted === undefined ? {} : { autoRecover: { recoverAttempted: attempted } },
      }) as DecisionRecord;
    expect(recoveryAttempts([d('a', true), d('b', false), d('c', undefined), d('self', true)], 'self')).toBe(1);
    expect(recoveryAttempts([], 'self')).toBe(0);
  });

  it('recoveryCapabilities: recheck and retry for downloads, identity.resolve for identities, nothing else (never a new release)', () => {
    expect(recoveryCapabilities('download_failed')).toEqual(['download.recheck', 'task.retry']);
    expect(recoveryCapabilities('download_stalled')).toEqual(['download.recheck', 'task.retry']);
    expect(recoveryCapabilities('identity_ambiguous')).toEqual(['identity.resolve']);
    expect(recoveryCapabilities('agent_budget')).toEqual([]);
  });

  it('grantCoversRecovery: active, unexpired, unscoped by media, and covering the capability', () => {
    const grant: GrantRecord = {
      id: 'g',
      action: 'download.recheck',
      status: 'active',
      expiresAt: null,
      policyRevisionId: null,
      scope: {},
      budget: {},
      reason: null,
      createdBy: 'user:admin',
      createdAt: 0,
      updatedAt: 0,
    };
    const yes = () => true;
    expect(grantCoversRecovery(grant, yes, 10)).toBe(true);
    expect(grantCoversRecovery(grant, () => false, 10)).toBe(false);
    expect(grantCoversRecovery({ ...grant, status: 'revoked' }, yes, 10)).toBe(false);
    expect(grantCoversRecovery({ ...grant, expiresAt: 10 }, yes, 10)).toBe(false);
    expect(grantCoversRecovery({ ...grant, expiresAt: 11 }, yes, 10)).toBe(true);
    expect(grantCoversRecovery({ ...grant, scope: { mediaEntityIds: ['tmdb:1'] } }, yes, 10)).toBe(false);
    expect(grantCoversRecovery({ ...grant, scope: { mediaKinds: ['movie'] } }, yes, 10)).toBe(false);
  });

  it('budgets and poll interval: min(600, maxDurationSec) s; min(goalPollSec, 30) s', () => {
    expect(investigationBudgets(8, 900)).toEqual({ maxToolCalls: 8, maxDurationSec: 600 });
    expect(investigationBudgets(3, 120)).toEqual({ maxToolCalls: 3, maxDurationSec: 120 });
    expect(recoverPollSec(60)).toBe(30);
    expect(recoverPollSec(5)).toBe(5);
  });

  it('recoveryVerdict: moving again is verified, removed is failed, still failed or stalled is pending, no action is no_action', () => {
    const facts = (status: GoalFactsSnapshot['downloads'][number]['status']): GoalFactsSnapshot => ({
      plans: [],
      downloads: [{ id: 'dl-1', mediaEntityId: 'tmdb:1', title: 'T', status }],
      organizes: [{ id: 'org-1', downloadId: null, mediaEntityId: 'tmdb:1', status: 'failed', libraryPath: null }],
      library: [],
    });
    const recheck = [{ capabilityId: 'download.recheck', subjectId: 'dl-1' }];
    for (const s of ['queued', 'downloading', 'completed', 'imported'] as const)
      expect(recoveryVerdict(recheck, facts(s))).toBe('verified');
    expect(recoveryVerdict(recheck, facts('removed'))).toBe('failed');
    expect(recoveryVerdict(recheck, facts('failed'))).toBe('pending');
    expect(recoveryVerdict(recheck, facts('stalled'))).toBe('pending');
    expect(recoveryVerdict([{ capabilityId: 'task.retry', subjectId: 'org-1' }], facts('queued'))).toBe('failed');
    expect(recoveryVerdict([{ capabilityId: 'task.retry', subjectId: 'dl-9' }], facts('queued'))).toBe('pending');
    expect(recoveryVerdict([{ capabilityId: 'identity.resolve', subjectId: 'rel-1' }], facts('failed'))).toBe(
      'verified',
    );
    expect(recoveryVerdict([], facts('queued'))).toBe('no_action');
  });
});
