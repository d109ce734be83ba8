import { describe, expect, it } from 'vitest';
import { actionCovers } from '../../src/authorization/action-pattern';
import { checkApproval } from '../../src/authorization/approval-rules';
import { checkGrant } from '../../src/authorization/grant-rules';
import { utcDayStart } from '../../src/core/utc-day';
import { evaluateAuthorization, type AuthorizationFacts } from '../../src/authorization/evaluate';
import { parseActor } from '../../src/authorization';
import type { ApprovalRecord, GrantRecord, PlanRecord } from '../../src/storage';

const NOW = Date.UTC(2026, 10, 30, 12);
const plan: PlanRecord = {
  id: 'plan_1',
  type: 'download',
  payload: { r: 1 },
  payloadHash: 'h1',
  revision: 1,
  mediaEntityId: 'm1',
  mediaKind: 'movie',
  bytes: 100,
  createdBy: 'agent:r',
  createdAt: NOW,
  updatedAt: NOW,
};
const approval: ApprovalRecord = {
  id: 'apr_1',
  planType: 'download',
  planId: 'plan_1',
  payloadHash: 'h1',
  revision: 1,
  status: 'approved',
  requestedBy: 'agent:r',
  reason: null,
  requestedAt: NOW - 1000,
  expiresAt: NOW + 60_000,
  decidedBy: 'user:admin',
  decidedAt: NOW - 500,
  consumedBy: null,
  consumedAt: null,
  capabilityId: null,
  impact: null,
  steps: [],
  approvedSteps: null,
  proposedPayload: null,
  proposedPayloadHash: 'h1',
  approvedPayload: null,
  executedPayloadHash: null,
};
const grant: GrantRecord = {
  id: 'grt_1',
  action: 'download.submit',
  status: 'active',
  expiresAt: null,
  policyRevisionId: null,
  scope: {},
  budget: {},
  reason: null,
  createdBy: 'user:admin',
  createdAt: NOW - 10_000,
  updatedAt: NOW - 10_000,
};
const submit = { id: 'download.submit', policy: 'acquisition' };
const grantFacts = {
  capability: submit,
  mediaEntityId: 'm1',
  mediaKind: 'movie',
  bytes: 100,
  policyRevision: undefined,
  usageToday: { invocations: 0, bytes: 0 },
  now: NOW,
};
const approvalFacts = { planType: 'download', planId: 'plan_1', plan, idempotencyKey: 'k1', now: NOW };

describe('actors (DESIGN.md §5)', () => {
  it('accepts user:, apikey:, agent: and system: actors and rejects anything else with ACTOR_INVALID', () => {
    expect(parseActor('user:alice')).toEqual({ kind: 'user', id: 'alice' });
    expect(parseActor('agent:run_1')).toEqual({ kind: 'agent', id: 'run_1' });
    for (const bad of ['admin', 'user:', 'root:x', 'user: spaced', '', 42, null]) {
      expect(() => parseActor(bad)).toThrow(expect.objectContaining({ code: 'ACTOR_INVALID' }));
    }
  });
});

describe('grant action patterns (seed 004, 授权)', () => {
  it('covers a capability by exact id, policy.<kind>, family.* or *', () => {
    expect(actionCovers('download.submit', submit)).toBe(true);
    expect(actionCovers('policy.acquisition', submit)).toBe(true);
    expect(actionCovers('download.*', submit)).toBe(true);
    expect(actionCovers('*', submit)).toBe(true);
  });
  it('does not cover other ids, other policy kinds or other families', () => {
    expect(actionCovers('download.plan', submit)).toBe(false);
    expect(actionCovers('policy.automation', submit)).toBe(false);
    expect(actionCovers('task.*', submit)).toBe(false);
    expect(actionCovers('downloads.*', submit)).toBe(false);
    expect(actionCovers('policy.acquisition', { id: 'download.submit' })).toBe(false);
  });
});

describe('approval rule (seed 004, 单次审批)', () => {
  it('authorizes an approved, unexpired approval bound to this plan, hash and revision', () => {
    expect(checkApproval(approval, approvalFacts)).toBeNull();
  });
  it('refuses a missing, requested, rejected or revoked approval', () => {
    expect(checkApproval(undefined, approvalFacts)?.code).toBe('AUTH_APPROVAL_NOT_FOUND');
    for (const status of ['requested', 'rejected', 'revoked'] as const)
      expect(checkApproval({ ...approval, status }, approvalFacts)?.code).toBe('AUTH_APPROVAL_NOT_APPROVED');
  });
  it('refuses an expired approval', () => {
    expect(checkApproval(approval, { ...approvalFacts, now: approval.expiresAt })?.code).toBe('AUTH_APPROVAL_EXPIRED');
  });
  it('refuses an approval for another plan or plan type', () => {
    expect(checkApproval(approval, { ...approvalFacts, planId: 'plan_2' })?.code).toBe('AUTH_APPROVAL_WRONG_PLAN');
    expect(checkApproval(approval, { ...approvalFacts, planType: 'organize' })?.code).toBe('AUTH_APPROVAL_WRONG_PLAN');
    expect(checkApproval(approval, { ...approvalFacts, planId: undefined, planType: undefined })?.code).toBe(
      'AUTH_APPROVAL_WRONG_PLAN',
    );
  });
  it('refuses when the plan payload hash or revision changed after approval', () => {
    expect(checkApproval(approval, { ...approvalFacts, plan: { ...plan, payloadHash: 'h2' } })?.code).toBe(
      'AUTH_APPROVAL_PLAN_CHANGED',
    );
    expect(checkApproval(approval, { ...approvalFacts, plan: { ...plan, revision: 2 } })?.code).toBe(
      'AUTH_APPROVAL_PLAN_CHANGED',
    );
  });
  it('refuses a consumed approval for any other execution (no replay) but covers the retry of the same idempotency key', () => {
    const consumed = { ...approval, status: 'consumed' as const, consumedBy: 'k1', consumedAt: NOW };
    expect(checkApproval(consumed, approvalFacts)).toBeNull();
    expect(checkApproval(consumed, { ...approvalFacts, idempotencyKey: 'k2' })?.code).toBe('AUTH_APPROVAL_CONSUMED');
  });
});

describe('grant rule (seed 004, 持续授权)', () => {
  it('authorizes an active, unexpired grant whose action and scope cover the target', () => {
    expect(checkGrant(grant, grantFacts)).toBeNull();
  });
  it('refuses a revoked grant', () => {
    expect(checkGrant({ ...grant, status: 'revoked' }, grantFacts)?.code).toBe('AUTH_GRANT_REVOKED');
  });
  it('refuses an expired grant', () => {
    expect(checkGrant({ ...grant, expiresAt: NOW }, grantFacts)?.code).toBe('AUTH_GRANT_EXPIRED');
    expect(checkGrant({ ...grant, expiresAt: NOW + 1 }, grantFacts)).toBeNull();
  });
  it('refuses a grant bound to a policy revision that is no longer published', () => {
    const bound = { ...grant, policyRevisionId: 'pol_1' };
    const rev = { id: 'pol_1', kind: 'acquisition', status: 'published' as const, createdAt: NOW, updatedAt: NOW };
    expect(checkGrant(bound, { ...grantFacts, policyRevision: rev })).toBeNull();
    expect(checkGrant(bound, { ...grantFacts, policyRevision: { ...rev, status: 'retired' } })?.code).toBe(
      'AUTH_GRANT_POLICY_NOT_PUBLISHED',
    );
    expect(checkGrant(bound, { ...grantFacts, policyRevision: undefined })?.code).toBe(
      'AUTH_GRANT_POLICY_NOT_PUBLISHED',
    );
  });
  it('refuses a target outside scope.mediaEntityIds, scope.mediaKinds or scope.capabilities, and an unknown target on a scoped axis', () => {
    expect(checkGrant({ ...grant, scope: { mediaEntityIds: ['m2'] } }, grantFacts)?.code).toBe(
      'AUTH_GRANT_OUT_OF_SCOPE',
    );
    expect(checkGrant({ ...grant, scope: { mediaEntityIds: ['m1'] } }, grantFacts)).toBeNull();
    expect(
      checkGrant({ ...grant, scope: { mediaEntityIds: ['m1'] } }, { ...grantFacts, mediaEntityId: undefined })?.code,
    ).toBe('AUTH_GRANT_OUT_OF_SCOPE');
    expect(checkGrant({ ...grant, scope: { mediaKinds: ['tv'] } }, grantFacts)?.code).toBe('AUTH_GRANT_OUT_OF_SCOPE');
    expect(checkGrant({ ...grant, action: '*', scope: { capabilities: ['task.*'] } }, grantFacts)?.code).toBe(
      'AUTH_GRANT_OUT_OF_SCOPE',
    );
    expect(checkGrant({ ...grant, action: '*', scope: { capabilities: ['download.*'] } }, grantFacts)).toBeNull();
  });
  it('refuses when the daily invocation budget is used up', () => {
    const limited = { ...grant, budget: { maxInvocationsPerDay: 3 } };
    expect(checkGrant(limited, { ...grantFacts, usageToday: { invocations: 2, bytes: 0 } })).toBeNull();
    expect(checkGrant(limited, { ...grantFacts, usageToday: { invocations: 3, bytes: 0 } })?.code).toBe(
      'AUTH_GRANT_BUDGET_EXHAUSTED',
    );
  });
  it('refuses when this call would exceed the daily byte budget', () => {
    const limited = { ...grant, budget: { maxBytesPerDay: 1000 } };
    expect(checkGrant(limited, { ...grantFacts, usageToday: { invocations: 0, bytes: 900 } })).toBeNull();
    expect(checkGrant(limited, { ...grantFacts, usageToday: { invocations: 0, bytes: 901 } })?.code).toBe(
      'AUTH_GRANT_BUDGET_EXHAUSTED',
    );
  });
  it('counts budgets per UTC day', () => {
    expect(utcDayStart(Date.UTC(2026, 10, 30, 23, 59))).toBe(Date.UTC(2026, 10, 30));
    expect(utcDayStart(Date.UTC(2026, 11, 1, 0, 0))).toBe(Date.UTC(2026, 11, 1));
  });
});

describe('authorization decision (DESIGN.md §5)', () => {
  const base: AuthorizationFacts = {
    actor: 'agent:run-1',
    role: 'user',
    capability: { id: 'download.submit', kind: 'execute', policy: 'acquisition' },
    settings: { automationEnabled: true, readOnlyReconcile: false },
    target: { planType: 'download', planId: 'plan_1', mediaEntityId: 'm1', mediaKind: 'movie', bytes: 100 },
    plan,
    approval: undefined,
    grants: [],
    idempotencyKey: 'k1',
    now: NOW,
  };
  it('read and preview need no authorization record', () => {
    expect(evaluateAuthorization({ ...base, capability: { id: 'inventory.query', kind: 'read' } })).toEqual({
      allowed: true,
      basis: 'not_required',
    });
    expect(evaluateAuthorization({ ...base, capability: { id: 'policy.preview', kind: 'preview' } })).toEqual({
      allowed: true,
      basis: 'not_required',
    });
  });
  it('an administrator (user:* with role admin) counts as human authorization', () => {
    expect(
      evaluateAuthorization({
        ...base,
        actor: 'user:admin',
        role: 'admin',
        settings: { automationEnabled: false, readOnlyReconcile: true },
      }),
    ).toEqual({ allowed: true, basis: 'human' });
  });
  it('an ordinary user may propose; their approve and execute need an approval or a grant', () => {
    expect(
      evaluateAuthorization({
        ...base,
        actor: 'user:bob',
        role: 'user',
        capability: { ...base.capability, kind: 'propose' },
      }),
    ).toEqual({ allowed: true, basis: 'human' });
    for (const kind of ['approve', 'execute'] as const) {
      const d = evaluateAuthorization({
        ...base,
        actor: 'user:bob',
        role: 'user',
        capability: { ...base.capability, kind },
      });
      expect(d).toMatchObject({ allowed: false, code: 'AUTH_NO_AUTHORIZATION' });
    }
    const granted = evaluateAuthorization({
      ...base,
      actor: 'user:bob',
      role: 'user',
      grants: [{ grant, policyRevision: undefined, usageToday: { invocations: 0, bytes: 0 } }],
    });
    expect(granted).toMatchObject({ allowed: true, basis: 'grant' });
  });
  it('an admin-only capability is denied to ordinary users and runs acting for one, whatever its kind or grants', () => {
    const adminOnly = { ...base.capability, adminOnly: true };
    for (const kind of ['read', 'preview', 'execute'] as const) {
      for (const actor of ['user:bob', 'agent:run-1', 'apikey:k1']) {
        const d = evaluateAuthorization({
          ...base,
          actor,
          role: 'user',
          capability: { ...adminOnly, kind },
          grants: [{ grant, policyRevision: undefined, usageToday: { invocations: 0, bytes: 0 } }],
        });
        expect(d).toMatchObject({ allowed: false, code: 'AUTH_ADMIN_ONLY' });
      }
    }
    expect(evaluateAuthorization({ ...base, actor: 'user:root', role: 'admin', capability: adminOnly })).toEqual({
      allowed: true,
      basis: 'human',
    });
    // A run acting for an administrator reaches it, but still needs its approval or grant to execute.
    expect(evaluateAuthorization({ ...base, role: 'admin', capability: { ...adminOnly, kind: 'read' } })).toEqual({
      allowed: true,
      basis: 'not_required',
    });
    expect(evaluateAuthorization({ ...base, role: 'admin', capability: adminOnly })).toMatchObject({
      allowed: false,
      code: 'AUTH_NO_AUTHORIZATION',
    });
  });
  it('API keys, agents and background jobs need an approval or a grant for propose, approve and execute', () => {
    for (const actor of ['apikey:k1', 'agent:run-1', 'system:scheduler']) {
      for (const kind of ['propose', 'approve', 'execute'] as const) {
        const d = evaluateAuthorization({ ...base, actor, capability: { ...base.capability, kind } });
        expect(d).toMatchObject({ allowed: false, code: 'AUTH_NO_AUTHORIZATION' });
      }
    }
  });
  it('the global automation switch off denies every automatic execute, even with a grant', () => {
    const d = evaluateAuthorization({
      ...base,
      settings: { automationEnabled: false, readOnlyReconcile: false },
      grants: [{ grant, policyRevision: undefined, usageToday: { invocations: 0, bytes: 0 } }],
    });
    expect(d).toMatchObject({ allowed: false, code: 'AUTH_AUTOMATION_DISABLED' });
  });
  it('read-only reconcile mode denies every automatic execute, even with an approval', () => {
    const d = evaluateAuthorization({
      ...base,
      settings: { automationEnabled: true, readOnlyReconcile: true },
      approval: { id: 'apr_1', record: approval },
    });
    expect(d).toMatchObject({ allowed: false, code: 'AUTH_READ_ONLY_RECONCILE' });
  });
  it('an approval pointer authorizes only through its record', () => {
    expect(evaluateAuthorization({ ...base, approval: { id: 'apr_1', record: approval } })).toEqual({
      allowed: true,
      basis: 'approval',
      approvalId: 'apr_1',
    });
    expect(evaluateAuthorization({ ...base, approval: { id: 'apr_x', record: undefined } })).toMatchObject({
      allowed: false,
      code: 'AUTH_APPROVAL_NOT_FOUND',
    });
  });
  it('the first grant that passes authorizes; otherwise the covering grant’s failure is reported', () => {
    const revoked = {
      grant: { ...grant, id: 'grt_0', status: 'revoked' as const },
      policyRevision: undefined,
      usageToday: { invocations: 0, bytes: 0 },
    };
    const ok = { grant, policyRevision: undefined, usageToday: { invocations: 0, bytes: 0 } };
    expect(evaluateAuthorization({ ...base, grants: [revoked, ok] })).toEqual({
      allowed: true,
      basis: 'grant',
      grantId: 'grt_1',
    });
    expect(evaluateAuthorization({ ...base, grants: [revoked] })).toMatchObject({
      allowed: false,
      code: 'AUTH_GRANT_REVOKED',
      grantId: 'grt_0',
    });
  });
});
