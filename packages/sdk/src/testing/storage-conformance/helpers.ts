/**
 * What every storage conformance case file uses: the signature cases register with, and the assertions and
 * set-up steps several cases repeat.
 */
import assert from 'node:assert/strict';
import type { ErrorCode } from '../../core/error-codes';
import { isMediaAgentError } from '../../core/errors';
import type { RunRecord } from '../../core/run-records';
import type { StorageAdapter, StorageSession } from '../../ports/storage-adapter';
import { runRecord } from './fixtures';

/**
 * Registers one conformance case: `body` gets a fresh store, migrated unless `options.migrate` is `false`; the
 * store is closed and cleaned up after the case, whatever its outcome.
 */
export type ConformanceCase = (
  name: string,
  body: (storage: StorageAdapter) => Promise<void>,
  options?: { migrate?: boolean },
) => void;

/** Asserts that `promise` rejects with a MediaAgentError of `code`. */
export async function rejectsWithCode(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(
      isMediaAgentError(error, code),
      `expected a MediaAgentError with code ${code}, got ${String((error as { code?: unknown })?.code ?? error)}`,
    );
    return true;
  });
}

/**
 * Runs `body` in a transaction of `storage` that then throws, and asserts that the transaction rejects with
 * that very error (any other error, such as a failed assertion in `body`, is rethrown as it is): what `body`
 * wrote must be rolled back.
 */
export async function rolledBack(storage: StorageAdapter, body: (tx: StorageSession) => Promise<void>): Promise<void> {
  const boom = new Error('boom');
  await assert.rejects(
    storage.transaction(async (tx) => {
      await body(tx);
      throw boom;
    }),
    (error: unknown) => {
      if (error !== boom) throw error;
      return true;
    },
  );
}

/** Inserts one {@link runRecord} per element of `overrides`, in order. */
export async function insertRuns(storage: StorageAdapter, ...overrides: Partial<RunRecord>[]): Promise<void> {
  for (const o of overrides) await storage.runs.insert(runRecord(o));
}

/** The ids of `list`, in order: what list-order assertions compare. */
export function ids(list: readonly { id: string }[]): string[] {
  return list.map((r) => r.id);
}
