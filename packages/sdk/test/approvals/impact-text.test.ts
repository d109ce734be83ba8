// The one-line summary of an impact, in the household's units.
import { describe, expect, it } from 'vitest';
import { describeImpact, formatBytes, formatDuration } from '../../src/index';

describe('formatBytes', () => {
  it('uses decimal units with one decimal below 100, as disks and torrent sites state sizes', () => {
    expect(formatBytes(58.2e9)).toBe('58.2 GB');
    expect(formatBytes(412e9)).toBe('412 GB');
    expect(formatBytes(18.8e9)).toBe('18.8 GB');
    expect(formatBytes(900)).toBe('900 B');
    expect(formatBytes(1e9)).toBe('1 GB');
    expect(formatBytes(1.5e12)).toBe('1.5 TB');
    expect(formatBytes(-3.25e9)).toBe('-3.3 GB');
    expect(formatBytes(Number.NaN)).toBe('unknown size');
  });
  it('formatDuration picks the largest whole unit', () => {
    expect(formatDuration(45_000)).toBe('45 s');
    expect(formatDuration(12 * 60_000)).toBe('12 min');
    expect(formatDuration(3 * 3_600_000)).toBe('3 h');
  });
});

describe('describeImpact', () => {
  it('a download: bytes, where, free space after, reversibility', () => {
    expect(
      describeImpact({ downloadBytes: 58.2e9, path: '/media/movies', freeBytesAfter: 412e9, reversible: true }),
    ).toBe('downloads 58.2 GB to /media/movies; 412 GB free after; can be undone');
  });
  it('an organize that moves and overwrites', () => {
    expect(
      describeImpact({
        filesMoved: 24,
        filesOverwritten: 2,
        reversible: true,
        reversibleBy: 'quarantine',
        quarantineDays: 14,
      }),
    ).toBe('moves 24 files, overwrites 2; kept in quarantine for 14 days');
  });
  it('a delete that cannot be undone', () => {
    expect(describeImpact({ deleteBytes: 18.8e9, filesDeleted: 3, reversible: false })).toBe(
      'deletes 18.8 GB in 3 files; cannot be undone',
    );
  });
  it('a call that does not fit says how much is missing', () => {
    expect(describeImpact({ downloadBytes: 60e9, freeBytesAfter: -2e9, reversible: true })).toBe(
      'downloads 60 GB; does not fit: 2 GB short; can be undone',
    );
  });
  it('an impact with nothing measurable still says whether it can be undone', () => {
    expect(describeImpact({ reversible: false })).toBe('cannot be undone');
  });
});
