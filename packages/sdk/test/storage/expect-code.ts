import { expect } from 'vitest';
import type { ErrorCode } from '../../src/core/error-codes';
import { isMediaAgentError } from '../../src/core/errors';

/** Asserts that `promise` rejects with a media-agent error of `code`; resolves to that error. */
export async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<unknown> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected a rejection with ${code}`).toBeDefined();
  expect(
    isMediaAgentError(error, code),
    `expected ${code}, got ${String((error as { code?: unknown }).code)}: ${String(error)}`,
  ).toBe(true);
  return error;
}
