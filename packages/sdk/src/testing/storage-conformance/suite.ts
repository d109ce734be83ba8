/**
 * The storage conformance suite's entry: the public types a store author passes in, and
 * {@link describeStorageConformance}, which registers the cases of every file in this folder.
 */
import type { StorageAdapter } from '../../ports/storage-adapter';
import { approvalsCases } from './approvals';
import { auditCases } from './audit';
import { auditBatchingCases } from './audit-batching';
import { budgetsCases } from './budgets';
import { concurrencyCases } from './concurrency';
import { decisionsCases } from './decisions';
import { eventsCases } from './events';
import { grantUsageCases } from './grant-usage';
import { grantsCases } from './grants';
import type { ConformanceCase } from './helpers';
import { inboxCases } from './inbox';
import { intentsCases } from './intents';
import { leasesCases } from './leases';
import { ledgerCases } from './ledger';
import { lifecycleCases } from './lifecycle';
import { messagesCases } from './messages';
import { outboxCases } from './outbox';
import { plansCases } from './plans';
import { policiesCases } from './policies';
import { recordsCases } from './records';
import { retentionCases } from './retention';
import { runsCases } from './runs';
import { schedulesCases } from './schedules';
import { settingsCases } from './settings';
import { transactionsCases } from './transactions';

/**
 * The test-framework functions the conformance suite registers its cases with: vitest's, mocha's
 * or `node:test`'s `describe` and `it` fit as they are.
 * @public
 */
export interface ConformanceTestApi {
  /** Declares a group of cases; `fn` registers them synchronously. */
  describe(name: string, fn: () => void): unknown;
  /** Declares one case; `fn` rejects when the case fails. */
  it(name: string, fn: () => Promise<void>): unknown;
}

/**
 * Creates a fresh, empty, not yet migrated adapter for one case.
 * `cleanup` (optional) runs after the case has closed the adapter, e.g. to delete a temp file.
 * @public
 */
export type StorageConformanceFactory = () => Promise<{ storage: StorageAdapter; cleanup?: () => Promise<void> }>;

/** The case files, in registration order: each registers its cases with the {@link ConformanceCase} it gets. */
const CASE_FILES: readonly ((test: ConformanceCase) => void)[] = [
  lifecycleCases,
  settingsCases,
  recordsCases,
  ledgerCases,
  approvalsCases,
  grantsCases,
  plansCases,
  policiesCases,
  auditCases,
  auditBatchingCases,
  transactionsCases,
  concurrencyCases,
  runsCases,
  leasesCases,
  eventsCases,
  messagesCases,
  inboxCases,
  decisionsCases,
  grantUsageCases,
  budgetsCases,
  retentionCases,
  schedulesCases,
  intentsCases,
  outboxCases,
];

/**
 * Registers the storage conformance suite: the rules every {@link StorageAdapter} must satisfy
 * (one case per rule, titled by the rule), asserting with `node:assert/strict`.
 *
 * @remarks
 * Each case asks `factory` for a fresh, empty store, calls `migrate()` (except the migration case),
 * runs, then closes the adapter and calls `cleanup`. Use it from any framework:
 * `describeStorageConformance('sqlite', factory, { describe, it })`.
 *
 * @param name - adapter name, used as the `describe` title
 * @param factory - creates a fresh, empty, not yet migrated adapter per case
 * @param t - the framework's `describe` and `it`
 * @public
 */
export function describeStorageConformance(
  name: string,
  factory: StorageConformanceFactory,
  t: ConformanceTestApi,
): void {
  const test: ConformanceCase = (title, body, options = {}) =>
    t.it(title, async (): Promise<void> => {
      const { storage, cleanup } = await factory();
      try {
        if (options.migrate !== false) await storage.migrate();
        await body(storage);
      } finally {
        try {
          await storage.close();
        } finally {
          await cleanup?.();
        }
      }
    });

  t.describe(`StorageAdapter conformance: ${name}`, () => {
    for (const register of CASE_FILES) register(test);
  });
}
