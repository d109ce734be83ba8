import { describe, expect, it } from 'vitest';
import { resolveToolResultLimits, TOOL_RESULT_STORE_DEFAULTS } from '../../src/runtime/context/tool-result-limits';

const invalid = (options: Parameters<typeof resolveToolResultLimits>[0], message: RegExp) =>
  expect(() => resolveToolResultLimits(options)).toThrow(
    expect.objectContaining({ code: 'OPTIONS_INVALID', message: expect.stringMatching(message) }),
  );

describe('tool-result store limits', () => {
  it('fills in the defaults', () => {
    expect(resolveToolResultLimits({})).toEqual({ ...TOOL_RESULT_STORE_DEFAULTS });
    expect(resolveToolResultLimits({ previewBytes: 100 })).toMatchObject({
      previewBytes: 100,
      maxResultBytes: 1_048_576,
    });
  });

  it('refuses numbers that are not positive integers, naming the option', () => {
    invalid({ ttlMs: 0 }, /ttlMs must be a positive integer; got 0/);
    invalid({ maxResultsPerRun: 1.5 }, /maxResultsPerRun/);
    invalid({ previewBytes: Number.NaN }, /previewBytes/);
    invalid({ maxTotalBytes: 2 ** 60 }, /maxTotalBytes/);
  });

  it('keeps the sizes in order: preview below the result limit, then per run, then in all', () => {
    invalid({ previewBytes: 1_048_576 }, /previewBytes \(1048576\) must be below maxResultBytes/);
    invalid({ maxResultBytes: 5_000_000 }, /maxResultBytes \(5000000\) must be at most maxBytesPerRun/);
    invalid({ maxBytesPerRun: 100_000_000 }, /maxBytesPerRun .* must be at most maxTotalBytes/);
    expect(resolveToolResultLimits({ maxResultBytes: 4_194_304 }).maxResultBytes).toBe(4_194_304);
  });

  it('needs a page budget of at least 16', () => {
    invalid({ pageBudgetChars: 15 }, /pageBudgetChars must be at least 16/);
    expect(resolveToolResultLimits({ pageBudgetChars: 16 }).pageBudgetChars).toBe(16);
  });
});
