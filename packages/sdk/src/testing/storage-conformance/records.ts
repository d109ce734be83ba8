/** Conformance cases every record repository shares: stored records are copies, and ids are unique. */
import assert from 'node:assert/strict';
import { approval, auditRow, grant, plan } from './fixtures';
import type { ConformanceCase } from './helpers';

/** Registers the cases on copies and on inserting an existing id. */
export function recordsCases(test: ConformanceCase): void {
  test('stored records are copies: mutating an inserted or returned object does not change the store', async (s) => {
    const g = grant({ scope: { mediaKinds: ['movie'] } });
    await s.grants.insert(g);
    g.scope.mediaKinds!.push('tv');
    const read = await s.grants.get(g.id);
    assert.deepEqual(read?.scope, { mediaKinds: ['movie'] });
    read!.scope.mediaKinds!.push('anime');
    assert.deepEqual((await s.grants.get(g.id))?.scope, { mediaKinds: ['movie'] });
  });

  test('inserting an existing id into approvals, grants, plans or audit rejects and keeps the original', async (s) => {
    await s.approvals.insert(approval());
    await assert.rejects(s.approvals.insert(approval({ reason: 'second' })));
    assert.equal((await s.approvals.get('appr-1'))?.reason, null);
    await s.grants.insert(grant());
    await assert.rejects(s.grants.insert(grant({ reason: 'second' })));
    assert.equal((await s.grants.get('grant-1'))?.reason, null);
    await s.plans.insert(plan());
    await assert.rejects(s.plans.insert(plan({ revision: 9 })));
    assert.equal((await s.plans.get('plan-1'))?.revision, 1);
    await s.audit.append(auditRow());
    await assert.rejects(s.audit.append(auditRow({ outcome: 'failed' })));
    assert.deepEqual(
      (await s.audit.list()).map((r) => r.outcome),
      ['succeeded'],
    );
  });
}
