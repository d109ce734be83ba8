/** Conformance cases for plans (`storage.plans`). */
import assert from 'node:assert/strict';
import { plan, UNICODE } from './fixtures';
import type { ConformanceCase } from './helpers';

/** Registers the plan cases: round trip, compare-and-set on the revision. */
export function plansCases(test: ConformanceCase): void {
  test('plans round-trip every field (nulls, JSON payload, unicode)', async (s) => {
    const bare = plan({ id: 'plan-bare' });
    const full = plan({
      id: 'plan-full',
      type: 'download',
      payload: { title: UNICODE, items: [1, 2.25, 'x', false, null, { deep: { er: [UNICODE] } }] },
      payloadHash: 'c'.repeat(64),
      revision: 2,
      mediaEntityId: 'tmdb:603',
      mediaKind: 'movie',
      bytes: 8_000_000_000,
      createdBy: UNICODE,
    });
    await s.plans.insert(bare);
    await s.plans.insert(full);
    assert.deepEqual(await s.plans.get('plan-bare'), bare);
    assert.deepEqual(await s.plans.get('plan-full'), full);
    assert.equal(await s.plans.get('missing'), undefined);
  });

  test('plans compareAndSet replaces the plan only on the expected revision', async (s) => {
    const v1 = plan({ payload: { step: 1 } });
    await s.plans.insert(v1);
    const v2 = plan({ payload: { step: 2, title: UNICODE }, payloadHash: 'ph-2', revision: 2, updatedAt: 2 });
    assert.equal(await s.plans.compareAndSet('plan-1', 2, v2), false);
    assert.equal(await s.plans.compareAndSet('missing', 1, { ...v2, id: 'missing' }), false);
    assert.deepEqual(await s.plans.get('plan-1'), v1);
    assert.equal(await s.plans.compareAndSet('plan-1', 1, v2), true);
    assert.deepEqual(await s.plans.get('plan-1'), v2);
    assert.equal(await s.plans.compareAndSet('plan-1', 1, plan({ revision: 3 })), false);
    assert.deepEqual(await s.plans.get('plan-1'), v2);
  });
}
