import { describe, expect, it } from 'vitest';
import { type RunEffect, withLedgerStates } from '../../src/runtime/run-effects';
import { ledgerEntry } from '../../src/testing/storage-conformance/fixtures';

const effect = (outcome: RunEffect['outcome'], key: string | null = 'k1'): RunEffect => ({
  capabilityId: 'plan.execute',
  effect: 'other',
  outcome,
  idempotencyKey: key,
  errorCode: outcome === 'not_run' ? 'AUTH_NO_GRANT' : null,
  readBack: null,
  at: 1,
});

describe('withLedgerStates', () => {
  it('brings an effect up to date with its ledger entry by idempotency key', () => {
    const [updated] = withLedgerStates([effect('unknown')], [ledgerEntry({ key: 'k1', state: 'succeeded' })]);
    expect(updated?.outcome).toBe('succeeded');
    expect(updated?.errorCode).toBeNull();
  });

  it('keeps a call that never ran as not run: an entry under its key is a later attempt’s (denied, then approved and executed)', () => {
    const denied = effect('not_run');
    const executed = effect('running');
    const out = withLedgerStates([denied, executed], [ledgerEntry({ key: 'k1', state: 'succeeded' })]);
    expect(out.map((e) => e.outcome)).toEqual(['not_run', 'succeeded']);
    expect(out[0]).toBe(denied);
  });

  it('keeps effects without a key or without an entry as they are', () => {
    const none = effect('succeeded', null);
    const missing = effect('failed', 'k2');
    expect(withLedgerStates([none, missing], [ledgerEntry({ key: 'k1', state: 'succeeded' })])).toEqual([
      none,
      missing,
    ]);
  });
});
