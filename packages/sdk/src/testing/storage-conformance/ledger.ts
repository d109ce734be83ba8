/** Conformance cases for the idempotency ledger (`storage.ledger`). */
import assert from 'node:assert/strict';
import type { LedgerEntry } from '../../core/records';
import { DAY, ledgerEntry, SAMPLE_ERROR_CODES, SCOPE, UNICODE } from './fixtures';
import { type ConformanceCase, rolledBack } from './helpers';

/** The keys of `list`, in order. */
function keys(list: readonly LedgerEntry[]): string[] {
  return list.map((e) => e.key);
}

/** Registers the ledger cases: round trip, unique keys and calls, compare-and-set, queries, grant usage, clean-up. */
export function ledgerCases(test: ConformanceCase): void {
  test('ledger round-trips every field (nulls, JSON output and error, unicode)', async (s) => {
    const bare = ledgerEntry({ key: 'k-bare' });
    const full = ledgerEntry({
      key: `k-full-${UNICODE}`,
      capabilityId: 'media.organize',
      capabilityVersion: 3,
      scopeId: `task:${UNICODE}`,
      callId: 'call_01',
      argsHash: 'a'.repeat(64),
      state: 'failed',
      token: 'tok-π',
      actor: 'api-key:key-1',
      invocationId: 'inv-full',
      runId: 'run-9',
      taskId: 'task-7',
      approvalId: 'appr-3',
      grantId: 'grant-2',
      bytes: 52_428_800_000,
      output: { files: [{ name: UNICODE, size: 1.5, ok: true, none: null }], count: -3, nested: [[], {}] },
      error: { code: SAMPLE_ERROR_CODES.host, message: UNICODE },
      inputSummary: JSON.stringify({ path: UNICODE, token: '[redacted]' }),
      attempts: 4,
      claimedAt: 1_700_000_000_123,
      updatedAt: 1_700_000_000_456,
      settledAt: 1_700_000_000_789,
    });
    assert.equal(await s.ledger.insert(bare), true);
    assert.equal(await s.ledger.insert(full), true);
    assert.deepEqual(await s.ledger.get(bare.key), bare);
    assert.deepEqual(await s.ledger.get(full.key), full);
    assert.equal(await s.ledger.get('missing'), undefined);
    const primitiveOutput = ledgerEntry({ key: 'k-prim', output: 'just a string', state: 'pending' });
    await s.ledger.insert(primitiveOutput);
    assert.deepEqual(await s.ledger.get('k-prim'), primitiveOutput);
  });

  test('ledger insert of an existing key returns false and changes nothing', async (s) => {
    const first = ledgerEntry({ key: 'k', token: 'tok-a', callId: 'call-1' });
    assert.equal(await s.ledger.insert(first), true);
    assert.equal(
      await s.ledger.insert(
        ledgerEntry({ key: 'k', token: 'tok-b', state: 'succeeded', callId: 'call-2', attempts: 5 }),
      ),
      false,
    );
    assert.deepEqual(await s.ledger.get('k'), first);
    assert.equal(await s.ledger.findByCall(SCOPE, 'call-2'), undefined);
  });

  test('ledger insert of an existing (scopeId, callId) under another key returns false and changes nothing', async (s) => {
    const first = ledgerEntry({ key: 'k1', callId: 'call-1' });
    assert.equal(await s.ledger.insert(first), true);
    assert.equal(await s.ledger.insert(ledgerEntry({ key: 'k2', callId: 'call-1', argsHash: 'other' })), false);
    assert.equal(await s.ledger.get('k2'), undefined);
    assert.deepEqual(await s.ledger.findByCall(SCOPE, 'call-1'), first);
    // same call id in another scope, and several entries without a call id, are fine
    assert.equal(await s.ledger.insert(ledgerEntry({ key: 'k3', scopeId: 'run:other', callId: 'call-1' })), true);
    assert.equal(await s.ledger.insert(ledgerEntry({ key: 'k4', callId: null })), true);
    assert.equal(await s.ledger.insert(ledgerEntry({ key: 'k5', callId: null })), true);
  });

  test('ledger compareAndSet refuses a wrong token and a wrong state, and applies with the right ones', async (s) => {
    const entry = ledgerEntry({ key: 'k', token: 'tok-1' });
    await s.ledger.insert(entry);
    const settle = { state: 'succeeded' as const, output: { ok: UNICODE }, settledAt: 5, updatedAt: 5 };
    assert.equal(await s.ledger.compareAndSet('k', 'tok-stale', settle), false);
    assert.equal(await s.ledger.compareAndSet('k', 'tok-1', settle, ['pending', 'unknown']), false);
    assert.equal(await s.ledger.compareAndSet('missing', 'tok-1', settle), false);
    assert.deepEqual(await s.ledger.get('k'), entry);
    assert.equal(await s.ledger.compareAndSet('k', 'tok-1', settle, ['running']), true);
    assert.deepEqual(await s.ledger.get('k'), { ...entry, ...settle });
    // token rotation: the old token can no longer write
    assert.equal(
      await s.ledger.compareAndSet('k', 'tok-1', {
        token: 'tok-2',
        state: 'unknown',
        error: { code: 'X', message: 'y' },
      }),
      true,
    );
    assert.equal(await s.ledger.compareAndSet('k', 'tok-1', { state: 'failed' }), false);
    assert.equal((await s.ledger.get('k'))?.state, 'unknown');
    // without expectedStates any state matches; undefined patch fields and `key` are ignored
    assert.equal(
      await s.ledger.compareAndSet('k', 'tok-2', { state: 'failed', output: undefined, key: 'other' }),
      true,
    );
    const after = await s.ledger.get('k');
    assert.equal(after?.state, 'failed');
    assert.deepEqual(after?.output, { ok: UNICODE });
    assert.deepEqual(after?.error, { code: 'X', message: 'y' });
    assert.equal(await s.ledger.get('other'), undefined);
  });

  test('ledger findByCall finds the entry by (scopeId, callId) only', async (s) => {
    const a = ledgerEntry({ key: 'ka', callId: 'call-a' });
    const b = ledgerEntry({ key: 'kb', callId: 'call-b', scopeId: 'task:1' });
    await s.ledger.insert(a);
    await s.ledger.insert(b);
    await s.ledger.insert(ledgerEntry({ key: 'kn', callId: null }));
    assert.deepEqual(await s.ledger.findByCall(SCOPE, 'call-a'), a);
    assert.deepEqual(await s.ledger.findByCall('task:1', 'call-b'), b);
    assert.equal(await s.ledger.findByCall('task:1', 'call-a'), undefined);
    assert.equal(await s.ledger.findByCall(SCOPE, 'call-b'), undefined);
    assert.equal(await s.ledger.findByCall(SCOPE, 'missing'), undefined);
  });

  test('ledger listByState returns entries in the given states, oldest claim first, honouring claimedBefore and limit', async (s) => {
    const rows = [
      ledgerEntry({ key: 'k-3', state: 'running', claimedAt: 300 }),
      ledgerEntry({ key: 'k-1', state: 'unknown', claimedAt: 100, settledAt: 150 }),
      ledgerEntry({ key: 'k-2b', state: 'running', claimedAt: 200 }),
      ledgerEntry({ key: 'k-2a', state: 'running', claimedAt: 200 }),
      ledgerEntry({ key: 'k-4', state: 'succeeded', claimedAt: 50, settledAt: 60 }),
    ];
    for (const r of rows) await s.ledger.insert(r);
    assert.deepEqual(keys(await s.ledger.listByState(['running'])), ['k-2a', 'k-2b', 'k-3']);
    assert.deepEqual(keys(await s.ledger.listByState(['running', 'unknown'])), ['k-1', 'k-2a', 'k-2b', 'k-3']);
    assert.deepEqual(keys(await s.ledger.listByState(['running', 'unknown'], { claimedBefore: 200 })), ['k-1']);
    assert.deepEqual(keys(await s.ledger.listByState(['running', 'unknown'], { claimedBefore: 201 })), [
      'k-1',
      'k-2a',
      'k-2b',
    ]);
    assert.deepEqual(keys(await s.ledger.listByState(['running', 'unknown', 'succeeded'], { limit: 2 })), [
      'k-4',
      'k-1',
    ]);
    assert.deepEqual(await s.ledger.listByState(['failed']), []);
    assert.deepEqual(await s.ledger.listByState([]), []);
    assert.deepEqual((await s.ledger.listByState(['succeeded']))[0], rows[4]);
  });

  test('ledger listByRun returns the entries one run claimed, oldest claim first, honouring limit (default 100)', async (s) => {
    const rows = [
      ledgerEntry({ key: 'r-2', runId: 'run-a', callId: 'c2', claimedAt: 200 }),
      ledgerEntry({ key: 'r-1', runId: 'run-a', callId: 'c1', claimedAt: 100, state: 'unknown' }),
      ledgerEntry({ key: 'r-x', runId: 'run-b', callId: 'cx', claimedAt: 50 }),
      ledgerEntry({ key: 'r-n', runId: null, callId: 'cn', claimedAt: 10 }),
    ];
    for (const r of rows) await s.ledger.insert(r);
    assert.deepEqual(keys(await s.ledger.listByRun('run-a')), ['r-1', 'r-2']);
    assert.deepEqual(keys(await s.ledger.listByRun('run-a', { limit: 1 })), ['r-1']);
    assert.deepEqual(await s.ledger.listByRun('run-b'), [rows[2]]);
    assert.deepEqual(await s.ledger.listByRun('run-none'), []);
    for (let i = 0; i < 101; i++)
      await s.ledger.insert(ledgerEntry({ key: `m-${i}`, runId: 'run-many', callId: `m${i}`, claimedAt: 1000 + i }));
    assert.equal((await s.ledger.listByRun('run-many')).length, 100);
  });

  test('ledger usageForGrant counts claims and bytes of that grant with claimedAt in [from, to) only', async (s) => {
    const rows = [
      ledgerEntry({ key: 'before', grantId: 'g', claimedAt: DAY - 1, bytes: 1 }),
      ledgerEntry({ key: 'start', grantId: 'g', claimedAt: DAY, bytes: 10 }),
      ledgerEntry({
        key: 'mid',
        grantId: 'g',
        claimedAt: DAY + 5,
        bytes: 100,
        state: 'failed',
        settledAt: DAY + 6,
      }),
      ledgerEntry({ key: 'end', grantId: 'g', claimedAt: 2 * DAY, bytes: 1000 }),
      ledgerEntry({ key: 'other', grantId: 'g2', claimedAt: DAY + 1, bytes: 10_000 }),
      ledgerEntry({ key: 'none', grantId: null, claimedAt: DAY + 1, bytes: 100_000 }),
    ];
    for (const r of rows) await s.ledger.insert(r);
    assert.deepEqual(await s.ledger.usageForGrant('g', DAY, 2 * DAY), { invocations: 2, bytes: 110 });
    assert.deepEqual(await s.ledger.usageForGrant('g', 0, 3 * DAY), { invocations: 4, bytes: 1111 });
    assert.deepEqual(await s.ledger.usageForGrant('g2', DAY, 2 * DAY), { invocations: 1, bytes: 10_000 });
    assert.deepEqual(await s.ledger.usageForGrant('nobody', 0, 3 * DAY), { invocations: 0, bytes: 0 });
  });

  test('ledger usageForGrant follows a compare-and-set that changes the grant, deletions and rolled-back writes', async (s) => {
    await s.ledger.insert(
      ledgerEntry({
        key: 'k',
        grantId: 'g1',
        claimedAt: 10,
        bytes: 5,
        token: 't1',
        state: 'failed',
        settledAt: 11,
      }),
    );
    assert.ok(
      await s.ledger.compareAndSet('k', 't1', { grantId: 'g2', token: 't2', state: 'running', settledAt: null }),
    );
    assert.deepEqual(await s.ledger.usageForGrant('g1', 0, 100), { invocations: 0, bytes: 0 });
    assert.deepEqual(await s.ledger.usageForGrant('g2', 0, 100), { invocations: 1, bytes: 5 });
    await rolledBack(s, async (tx) => {
      await tx.ledger.insert(ledgerEntry({ key: 'rolled-back', grantId: 'g2', claimedAt: 20, bytes: 7 }));
      await tx.ledger.compareAndSet('k', 't2', { grantId: 'g3' });
    });
    assert.deepEqual(await s.ledger.usageForGrant('g2', 0, 100), { invocations: 1, bytes: 5 });
    assert.deepEqual(await s.ledger.usageForGrant('g3', 0, 100), { invocations: 0, bytes: 0 });
    assert.ok(await s.ledger.compareAndSet('k', 't2', { state: 'succeeded', settledAt: 12 }));
    assert.equal(await s.ledger.deleteSettledBefore(50, ['succeeded']), 1);
    assert.deepEqual(await s.ledger.usageForGrant('g2', 0, 100), { invocations: 0, bytes: 0 });
  });

  test('ledger deleteSettledBefore deletes only settled entries in the given states before the cutoff, never running or unknown', async (s) => {
    const rows = [
      ledgerEntry({ key: 'ok-old', state: 'succeeded', settledAt: 100, callId: 'c-ok-old' }),
      ledgerEntry({ key: 'ok-new', state: 'succeeded', settledAt: 1000 }),
      ledgerEntry({ key: 'ok-cutoff', state: 'succeeded', settledAt: 500 }),
      ledgerEntry({ key: 'failed-old', state: 'failed', settledAt: 100 }),
      ledgerEntry({ key: 'pending-old', state: 'pending', settledAt: 100 }),
      ledgerEntry({ key: 'unknown-old', state: 'unknown', settledAt: 100 }),
      ledgerEntry({ key: 'running-old', state: 'running', settledAt: null, claimedAt: 1 }),
    ];
    for (const r of rows) await s.ledger.insert(r);
    assert.equal(await s.ledger.deleteSettledBefore(500, ['succeeded', 'running', 'unknown']), 1);
    const left = (await s.ledger.listByState(['running', 'succeeded', 'failed', 'pending', 'unknown']))
      .map((e) => e.key)
      .sort();
    assert.deepEqual(left, ['failed-old', 'ok-cutoff', 'ok-new', 'pending-old', 'running-old', 'unknown-old']);
    assert.equal(await s.ledger.get('ok-old'), undefined);
    assert.equal(await s.ledger.findByCall(SCOPE, 'c-ok-old'), undefined);
    // the call id is free again once its entry is gone
    assert.equal(await s.ledger.insert(ledgerEntry({ key: 'ok-old-2', callId: 'c-ok-old' })), true);
    assert.equal(await s.ledger.deleteSettledBefore(10_000, ['failed', 'pending', 'unknown', 'running']), 2);
    assert.ok(await s.ledger.get('unknown-old'));
    assert.ok(await s.ledger.get('running-old'));
    assert.equal(await s.ledger.deleteSettledBefore(10_000, []), 0);
  });
}
