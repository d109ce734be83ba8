import { describe, expect, it } from 'vitest';
import { cancelImpact, downloadImpact, organizeImpact } from '../src/standard/impact-rules';

const space = { path: '/srv/dl', freeBytes: 100, notes: [] };

describe('V3 impact rules', () => {
  it('a download takes its size from the free space and cannot be undone through the API', () => {
    expect(downloadImpact(40, space, false)).toMatchObject({
      downloadBytes: 40,
      path: '/srv/dl',
      freeBytesBefore: 100,
      freeBytesAfter: 60,
      reversible: false,
    });
    expect(downloadImpact(140, space, true).notes).toEqual(
      expect.arrayContaining([expect.stringMatching(/does not fit/), expect.stringMatching(/planning/)]),
    );
    expect(downloadImpact(40, { notes: [] }, false)).not.toHaveProperty('freeBytesBefore');
  });

  it('organize: copy writes, hardlink does not, move moves; overwrites follow the overwrite mode', () => {
    expect(organizeImpact('copy', 30, 1, space, false, 'never')).toMatchObject({
      writeBytes: 30,
      freeBytesAfter: 70,
      reversible: true,
    });
    expect(organizeImpact('hardlink', 30, 3, space, false, 'never')).toMatchObject({
      filesCreated: 3,
      freeBytesAfter: 100,
    });
    expect(organizeImpact('move', 30, 1, space, false, 'never')).toMatchObject({ filesMoved: 1, reversible: false });
    expect(organizeImpact('hardlink', 30, 1, space, true, 'latest')).toMatchObject({
      filesOverwritten: 1,
      reversible: false,
    });
    expect(organizeImpact('hardlink', 30, 1, space, true, 'never')).not.toHaveProperty('filesOverwritten');
  });

  it('cancel deletes nothing on V3 and says what the download keeps', () => {
    const c = cancelImpact(25.4, space);
    expect(c).toMatchObject({
      deleteBytes: 0,
      filesDeleted: 0,
      freeBytesBefore: 100,
      freeBytesAfter: 100,
      reversible: true,
    });
    expect(c.notes).toEqual([expect.stringContaining('25 bytes')]);
  });
});
