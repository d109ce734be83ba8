import type { RunRecord } from '../../src/core/run-records';
import { runRecord as conformanceRun } from '../../src/testing/storage-conformance/fixtures';

/** A complete queued run with every nullable field null, started by `user:test` at 1; override what the test needs. */
export function runRecord(id: string, overrides: Partial<RunRecord> = {}): RunRecord {
  return conformanceRun({ id, startedBy: 'user:test', createdAt: 1, updatedAt: 1, ...overrides });
}
