import { describe, expect, it } from 'vitest';
import { cancelImpact, downloadImpact, organizeImpact } from '../src/standard/impact-rules';

const space = { path: '/srv/dl', freeBytes: 100, notes: [] };

describe('V2 impact rules', () => {
  it('a download takes its size from the free space; one that does not fit says so; unknown space stays unknown', () => {
    expect(downloadImpact(40, space, false)).toEqual({
      downloadBytes: 40,
      path: '/srv/dl',
      freeBytesBefore: 100,
      freeBytesAfter: 60,
      reversible: true,
      reversibleBy: 'inverse',
    });
    expect(downloadImpact(140, space, true)).toMatchObject({
      freeBytesAfter: -40,
      notes: [expect.any(String), expect.stringMatching(/does not fit/)],
    });
    const unknown = downloadImpact(40, { notes: ['no free space'] }, false);
    expect(unknown).not.toHaveProperty('freeBytesBefore');
    expect(unknown.notes).toEqual(['no free space']);
  });

  it('organize: copy writes, hardlink does not, move moves; overwrites follow the overwrite mode; move and overwrite are not reversible', () => {
    expect(organizeImpact('copy', 30, 1, space, false, 'never')).toMatchObject({
      writeBytes: 30,
      filesCreated: 1,
      freeBytesAfter: 70,
      reversible: true,
    });
    expect(organizeImpact('hardlink', 30, 2, space, false, 'never')).toMatchObject({
      filesCreated: 2,
      freeBytesAfter: 100,
      reversible: true,
    });
    expect(organizeImpact('move', 30, 1, space, false, 'never')).toMatchObject({ filesMoved: 1, reversible: false });
    expect(organizeImpact('copy', 30, 1, space, true, 'always')).toMatchObject({
      filesOverwritten: 1,
      filesCreated: 0,
      reversible: false,
    });
    expect(organizeImpact('copy', 30, 1, space, true, 'never')).not.toHaveProperty('filesOverwritten');
    expect(organizeImpact('copy', 30, 1, space, true, 'size').notes).toEqual([expect.stringMatching(/larger/)]);
    expect(organizeImpact('copy', 30, 1, space, true, undefined).notes).toEqual([expect.stringMatching(/not known/)]);
  });

  it('cancel deletes what is held and gives the space back, for good', () => {
    expect(cancelImpact(25.4, space)).toEqual({
      deleteBytes: 25,
      filesDeleted: 1,
      path: '/srv/dl',
      freeBytesBefore: 100,
      freeBytesAfter: 125,
      reversible: false,
    });
    expect(cancelImpact(0, space)).toMatchObject({ deleteBytes: 0, filesDeleted: 0 });
  });
});
