import type { LedgerEntry } from '../../src/core/records';
import { ledgerEntry as conformanceEntry } from '../../src/testing/storage-conformance/fixtures';

/**
 * A complete running claim of `cap.test` in scope `run:1` with every nullable field null and the clock at 1;
 * override what the test needs.
 */
export function ledgerEntry(key: string, overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  return conformanceEntry({
    key,
    scopeId: 'run:1',
    argsHash: 'h',
    token: 'tok',
    invocationId: 'inv',
    claimedAt: 1,
    updatedAt: 1,
    ...overrides,
  });
}
