// The memory ledger's run index: listByRun answers from an index kept in step with every write,
// removal and rollback, and gives what a scan of the whole ledger gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../src/core/records';
import { MemoryStorage } from '../../src/storage';
import { ledgerEntry } from './ledger-entry';

const entry = (key: string, runId: string | null, claimedAt: number): LedgerEntry =>
  ledgerEntry(key, {
    capabilityId: 'download.submit',
    scopeId: runId ?? 'request:x',
    token: 't0',
    actor: 'user:a',
    invocationId: `inv-${key}`,
    runId,
    claimedAt,
    updatedAt: claimedAt,
  });

/** What listByRun answered before the index: a scan of the whole ledger. */
async function scanned(s: MemoryStorage, runId: string, keys: readonly string[]): Promise<string[]> {
  const all = (await Promise.all(keys.map((k) => s.ledger.get(k)))).filter((e): e is LedgerEntry => !!e);
  return all
    .filter((e) => e.runId === runId)
    .sort((a, b) => a.claimedAt - b.claimedAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((e) => e.key);
}

const RUNS = ['r1', 'r2', '', null] as const;
const op = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    key: fc.integer({ min: 0, max: 9 }),
    run: fc.constantFrom(...RUNS),
    at: fc.integer({ min: 0, max: 5 }),
  }),
  fc.record({ kind: fc.constant('move' as const), key: fc.integer({ min: 0, max: 9 }), run: fc.constantFrom(...RUNS) }),
  fc.record({ kind: fc.constant('settleAndDelete' as const), key: fc.integer({ min: 0, max: 9 }) }),
  fc.record({
    kind: fc.constant('rolledBack' as const),
    key: fc.integer({ min: 10, max: 12 }),
    run: fc.constantFrom(...RUNS),
  }),
);

describe('memory ledger: entries by run', () => {
  it('listByRun gives what a scan of the ledger gives, after any inserts, changes, deletions and rollbacks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
        const s = new MemoryStorage();
        const keys = Array.from({ length: 13 }, (_, i) => `k${i}`);
        for (const o of ops) {
          const key = `k${o.key}`;
          if (o.kind === 'insert') await s.ledger.insert(entry(key, o.run, o.at));
          else if (o.kind === 'move') await s.ledger.compareAndSet(key, 't0', { runId: o.run });
          else if (o.kind === 'settleAndDelete') {
            await s.ledger.compareAndSet(key, 't0', { state: 'succeeded', settledAt: 1, token: 't1' });
            await s.ledger.deleteSettledBefore(2, ['succeeded']);
          } else
            await s
              .transaction(async (tx) => {
                await tx.ledger.insert(entry(key, o.run, 0));
                throw new Error('rolled back');
              })
              .catch(() => undefined);
        }
        for (const run of ['r1', 'r2', '', 'none']) {
          const listed = (await s.ledger.listByRun(run)).map((e) => e.key);
          expect(listed).toEqual(await scanned(s, run, keys));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('the entries listed are copies', async () => {
    const s = new MemoryStorage();
    await s.ledger.insert(entry('k1', 'r1', 1));
    const [listed] = await s.ledger.listByRun('r1');
    listed!.state = 'failed';
    expect((await s.ledger.get('k1'))?.state).toBe('running');
  });
});
