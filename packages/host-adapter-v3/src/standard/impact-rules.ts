// What a download, an organize and a cancel do in real units, from the numbers the host gave: pure rules,
// each tested on its own (test/impact-rules.test.ts); the reads that feed them are in host-space.ts.
import type { CapabilityDefinition } from '@media-agent/sdk';

/** The impact record a capability's `impact()` returns (the SDK's `Impact`, see docs/approvals.md#impact). @internal */
export type V3Impact = Awaited<ReturnType<NonNullable<CapabilityDefinition['impact']>>>;
/** What an `impact()` is given besides its input (the SDK's `ImpactContext`). @internal */
export type V3ImpactContext = Parameters<NonNullable<CapabilityDefinition['impact']>>[1];

/** A directory and the free bytes of its volume, as the host reported them (either may be unknown). @internal */
export interface V3Space {
  /** The directory. */
  path?: string | undefined;
  /** Free bytes of its volume. */
  freeBytes?: number | undefined;
  /** What the host could not tell, for people to read. */
  notes: string[];
}

/** `path`, `freeBytesBefore` and `freeBytesAfter` (before less `taken`) for the fields that are known. */
function spaceFields(space: V3Space, taken: number): Pick<V3Impact, 'path' | 'freeBytesBefore' | 'freeBytesAfter'> {
  return {
    ...(space.path !== undefined ? { path: space.path } : {}),
    ...(space.freeBytes !== undefined
      ? { freeBytesBefore: Math.max(0, space.freeBytes), freeBytesAfter: space.freeBytes - taken }
      : {}),
  };
}

/**
 * The impact of downloading one torrent: its size downloaded into the download directory, whose free space
 * shrinks by that much. Not reversible through the API: deleting a torrent left the MoviePilot 3.x operation
 * catalog (a person removes it in the downloader).
 * @param sizeBytes - the torrent's size (`TorrentInfo.size`)
 * @param space - the download directory and the downloader's free space
 * @param planning - true for `download.plan` (nothing is downloaded until the plan is submitted)
 * @internal
 */
export function downloadImpact(sizeBytes: number, space: V3Space, planning: boolean): V3Impact {
  const size = Math.max(0, Math.round(sizeBytes));
  const notes = [
    ...(planning ? ['planning downloads nothing; these are the numbers of submitting the plan'] : []),
    ...space.notes,
    ...(space.freeBytes !== undefined && space.freeBytes - size < 0
      ? ['the download does not fit in the free space of its directory']
      : []),
    'MoviePilot 3.x cannot remove a download through its API: a person removes it in the downloader',
  ];
  return { downloadBytes: size, ...spaceFields(space, size), reversible: false, notes };
}

/** SDK organize modes of a MoviePilot 3.x transfer. @internal */
export type V3OrganizeMode = 'hardlink' | 'copy' | 'move';

/**
 * The impact of organizing a download into the library:
 * - `copy` writes the download's bytes again (`writeBytes` = its size) and creates the files;
 * - `hardlink` creates the files without new bytes (same volume);
 * - `move` moves the files (`filesMoved`), no new bytes.
 * Files of the title already at the target are overwritten unless the host's overwrite mode is `never` (then
 * the host skips them). Undone by the transfer history delete with `deletedest` (`moviepilot.organize.revert`)
 * when the source still exists and nothing was overwritten: a `move` or an overwrite cannot be undone.
 * @param mode - the organize mode
 * @param sizeBytes - the download's size
 * @param files - how many files are transferred
 * @param space - the library directory and its volume's free space
 * @param existing - whether the title's files are already at the target (the library lists it)
 * @param overwriteMode - the directory's `overwrite_mode` (`never`, `always`, `size`, `latest`), when known
 * @internal
 */
export function organizeImpact(
  mode: V3OrganizeMode,
  sizeBytes: number,
  files: number,
  space: V3Space,
  existing: boolean,
  overwriteMode: string | undefined,
): V3Impact {
  const size = Math.max(0, Math.round(sizeBytes));
  const overwrites = existing && overwriteMode !== undefined && overwriteMode !== 'never';
  const writeBytes = mode === 'copy' ? size : 0;
  const reversible = mode !== 'move' && !overwrites;
  const notes = [...space.notes];
  if (existing && overwriteMode === 'never')
    notes.push('the title is already at the target and the host never overwrites: it will skip those files');
  else if (existing && overwriteMode === undefined)
    notes.push("the title is already at the target; the host's overwrite mode is not known");
  else if (overwrites && overwriteMode !== 'always')
    notes.push(
      `the host overwrites existing files when the new one is ${overwriteMode === 'size' ? 'larger' : 'newer'}`,
    );
  if (mode === 'move') notes.push('moving removes the files from the download directory: it cannot be undone');
  return {
    ...(writeBytes ? { writeBytes } : {}),
    ...(mode === 'move' ? { filesMoved: files } : { filesCreated: overwrites ? 0 : files }),
    ...(overwrites ? { filesOverwritten: files } : {}),
    ...spaceFields(space, writeBytes),
    transferMode: mode,
    reversible,
    ...(reversible ? { reversibleBy: 'inverse' as const } : {}),
    ...(notes.length ? { notes } : {}),
  };
}

/**
 * The impact of `task.cancel` on MoviePilot 3.x: deleting a torrent left its operation catalog, so the call
 * deletes nothing (it fails with `HOST_OPERATION_UNSUPPORTED`); the download keeps what it holds.
 * @param heldBytes - bytes the download holds now (size × progress)
 * @param space - the download's directory and the downloader's free space
 * @internal
 */
export function cancelImpact(heldBytes: number, space: V3Space): V3Impact {
  return {
    deleteBytes: 0,
    filesDeleted: 0,
    ...spaceFields(space, 0),
    reversible: true,
    notes: [
      ...space.notes,
      `MoviePilot 3.x cannot remove a download through its API: nothing is deleted, the download keeps its ${Math.max(0, Math.round(heldBytes))} bytes`,
    ],
  };
}
