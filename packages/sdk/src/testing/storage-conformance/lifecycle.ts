/** Conformance cases for the adapter's life: migrating the schema, and every call after `close()`. */
import assert from 'node:assert/strict';
import { STORAGE_SCHEMA_VERSION } from '../../ports/storage-adapter';
import { ledgerEntry } from './fixtures';
import { type ConformanceCase, rejectsWithCode } from './helpers';

/** Registers the lifecycle cases: `migrate()` and `schemaVersion()`, and `STORAGE_CLOSED` once closed. */
export function lifecycleCases(test: ConformanceCase): void {
  test(
    'migrate() sets schemaVersion() to STORAGE_SCHEMA_VERSION and is idempotent (data survives a second migrate)',
    async (s) => {
      assert.equal(await s.schemaVersion(), 0);
      await s.migrate();
      assert.equal(await s.schemaVersion(), STORAGE_SCHEMA_VERSION);
      await s.settings.set('k', 'v');
      await s.migrate();
      await s.migrate();
      assert.equal(await s.schemaVersion(), STORAGE_SCHEMA_VERSION);
      assert.equal(await s.settings.get('k'), 'v');
    },
    { migrate: false },
  );

  test('a closed adapter rejects every call with STORAGE_CLOSED', async (s) => {
    await s.settings.set('k', 1);
    await s.close();
    await rejectsWithCode(s.settings.get('k'), 'STORAGE_CLOSED');
    await rejectsWithCode(s.ledger.insert(ledgerEntry()), 'STORAGE_CLOSED');
    await rejectsWithCode(s.audit.list(), 'STORAGE_CLOSED');
    await rejectsWithCode(s.runs.acquireLease('w', 1, 1), 'STORAGE_CLOSED');
    await rejectsWithCode(s.events.listAfter(), 'STORAGE_CLOSED');
    await rejectsWithCode(
      s.transaction(async () => undefined),
      'STORAGE_CLOSED',
    );
    await rejectsWithCode(s.migrate(), 'STORAGE_CLOSED');
    await rejectsWithCode(s.schemaVersion(), 'STORAGE_CLOSED');
    await s.close();
  });
}
