/** Conformance cases for grants (`storage.grants`). */
import assert from 'node:assert/strict';
import { grant, UNICODE } from './fixtures';
import { type ConformanceCase, ids } from './helpers';

/** Registers the grant cases: round trip, update, listing by status. */
export function grantsCases(test: ConformanceCase): void {
  test('grants round-trip every field (nulls, JSON scope and budget, unicode)', async (s) => {
    const bare = grant({ id: 'grant-bare' });
    const full = grant({
      id: 'grant-full',
      action: 'policy.acquisition',
      status: 'revoked',
      expiresAt: 1_700_086_400_000,
      policyRevisionId: 'pol-3',
      scope: { mediaEntityIds: ['tmdb:1', UNICODE], mediaKinds: ['movie', 'tv'], capabilities: ['media.*'] },
      budget: { maxInvocationsPerDay: 20, maxBytesPerDay: 107_374_182_400 },
      reason: UNICODE,
    });
    await s.grants.insert(bare);
    await s.grants.insert(full);
    assert.deepEqual(await s.grants.get('grant-bare'), bare);
    assert.deepEqual(await s.grants.get('grant-full'), full);
    assert.equal(await s.grants.get('missing'), undefined);
  });

  test('grants update replaces the stored grant, rejects an unknown id; list filters by status, oldest first', async (s) => {
    await s.grants.insert(grant({ id: 'g2', createdAt: 2 }));
    await s.grants.insert(grant({ id: 'g1', createdAt: 1 }));
    await s.grants.insert(grant({ id: 'g0', createdAt: 2 }));
    const revoked = grant({
      id: 'g2',
      createdAt: 2,
      status: 'revoked',
      expiresAt: 50,
      scope: { mediaKinds: ['tv'] },
      updatedAt: 9,
    });
    await s.grants.update(revoked);
    assert.deepEqual(await s.grants.get('g2'), revoked);
    await assert.rejects(s.grants.update(grant({ id: 'missing' })));
    assert.equal(await s.grants.get('missing'), undefined);
    assert.deepEqual(ids(await s.grants.list()), ['g1', 'g0', 'g2']);
    assert.deepEqual(ids(await s.grants.list({ status: 'active' })), ['g1', 'g0']);
    assert.deepEqual(ids(await s.grants.list({ status: 'revoked' })), ['g2']);
  });
}
