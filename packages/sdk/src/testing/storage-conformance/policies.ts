/** Conformance cases for policy revisions (`storage.policies`). */
import assert from 'node:assert/strict';
import type { PolicyRevisionRecord } from '../../core/records';
import { UNICODE } from './fixtures';
import type { ConformanceCase } from './helpers';

/** Registers the policy revision case: round trip, replacing put, listing by kind. */
export function policiesCases(test: ConformanceCase): void {
  test('policies round-trip every field; put replaces; listByKind is oldest first', async (s) => {
    const a: PolicyRevisionRecord = { id: 'pol-b', kind: UNICODE, status: 'draft', createdAt: 2, updatedAt: 2 };
    const b: PolicyRevisionRecord = { id: 'pol-a', kind: UNICODE, status: 'published', createdAt: 1, updatedAt: 5 };
    const other: PolicyRevisionRecord = {
      id: 'pol-c',
      kind: 'automation',
      status: 'retired',
      createdAt: 0,
      updatedAt: 0,
    };
    await s.policies.put(a);
    await s.policies.put(b);
    await s.policies.put(other);
    assert.deepEqual(await s.policies.get('pol-b'), a);
    assert.equal(await s.policies.get('missing'), undefined);
    assert.deepEqual(await s.policies.listByKind(UNICODE), [b, a]);
    const published = { ...a, status: 'published' as const, updatedAt: 9 };
    await s.policies.put(published);
    assert.deepEqual(await s.policies.get('pol-b'), published);
    assert.deepEqual(await s.policies.listByKind(UNICODE), [b, published]);
    assert.deepEqual(await s.policies.listByKind('nothing'), []);
  });
}
