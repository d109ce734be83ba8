import { describe, expect, it } from 'vitest';
import { formatBytes, formatDuration } from '../../src/runtime/context/size-words';

describe('sizes and durations in words', () => {
  it('bytes below 1 KiB, then KiB and MiB with at most one decimal', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(1023)).toBe('1023 bytes');
    expect(formatBytes(1024)).toBe('1 KiB');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(1_048_575)).toBe('1024 KiB');
    expect(formatBytes(1_048_576)).toBe('1 MiB');
    expect(formatBytes(5 * 1_048_576 + 100_000)).toBe('5.1 MiB');
  });

  it('whole minutes, else rounded seconds', () => {
    expect(formatDuration(900_000)).toBe('15 minutes');
    expect(formatDuration(0)).toBe('0 minutes');
    expect(formatDuration(90_000)).toBe('90 seconds');
    expect(formatDuration(1_499)).toBe('1 seconds');
  });
});
