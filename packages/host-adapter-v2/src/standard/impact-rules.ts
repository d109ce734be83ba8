// What a download, an organize and a cancel do in real units, from the numbers the host gave: pure rules,
// each tested on its own (test/impact-rules.test.ts); the reads that feed them are in host-space.ts.
import type { CapabilityDefinition } from '@media-agent/sdk';

/** The impact record a capability's `impact()` returns (the SDK's `Impact`, see docs/approvals.md#impact). @internal */
export type V2Impact = Awaited<ReturnType<NonNullable<CapabilityDefinition['impact']>>>;
/** What an `impact()` is given besides its input (the SDK's `ImpactContext`). @internal */
export type V2ImpactContext = Parameters<NonNullable<CapabilityDefinition['impact']>>[1];

/** A directory and the free bytes of its volume, as the host reported them (either may be unknown). @internal */
export interface V2Space {
  /** The directory. */
  path?: string | undefined;
  /** Free bytes of its volume. */
  freeBytes?: number | undefined;
  /** What the host could not tell, for people to read. */
  notes: string[];
}

/** `path`, `freeBytesBefore` and `freeBytesAfter` (before less `taken`) for the fields that are known. */
function spaceFields(space: V2Space, taken: number): Pick<V2Impact, 'path' | 'freeBytesBefore' | 'freeBytesAfter'> {
  return {
    ...(space.path !== undefined ? { path: space.path } : {}),
    ...(space.freeBytes !== undefined
      ? { freeBytesBefore: Math.max(0, space.freeBytes), freeBytesAfter: space.freeBytes - taken }
      : {}),
  };
}

/**
 * The impact of downloading one torrent: its size downloaded into the download directory, whose free space
 * shrinks by that much. Undone by cancelling it (the host's downloader delete removes the torrent and its
 * files).
 * @param sizeBytes - the torrent's size (`TorrentInfo.size`)
 * @param space - the download directory and the downloader's free space
 * @param planning - true for `download.plan` (nothing is downloaded until the plan is submitted)
 * @internal
 */
export function downloadImpact(sizeBytes: number, space: V2Space, planning: boolean): V2Impact {
  const size = Math.max(0, Math.round(sizeBytes));
  const notes = [
    ...(planning ? ['planning downloads nothing; these are the numbers of submitting the plan'] : []),
    ...space.notes,
    ...(space.freeBytes !== undefined && space.freeBytes - size < 0
      ? ['the download does not fit in the free space of its directory']
      : []),
  ];
  return {
    downloadBytes: size,
    ...spaceFields(space, size),
    reversible: true,
    reversibleBy: 'inverse',
    ...(notes.length ? { notes } : {}),
  };
}

/** SDK organize modes of a MoviePilot 2.x transfer. @internal */
export type V2OrganizeMode = 'hardlink' | 'copy' | 'move';

/**
 * The impact of organizing a download into the library:
 * - `copy` writes the download's bytes again (`writeBytes` = its size) and creates the files;
 * - `hardlink` creates the files without new bytes (same volume);
 * - `move` moves the files (`filesMoved`), no new bytes.
 * Files of the title already at the target are overwritten unless the host's overwrite mode is `never` (then
 * the host skips them). Undone by the transfer history delete with `deletedest` (see `moviepilot.organize.revert`)
 * when the source still exists and nothing was overwritten: a `move` or an overwrite cannot be undone.
 * @param mode - the organize mode
 * @param sizeBytes - the download's size
 * @param files - how many files (or folders) are transferred
 * @param space - the library directory and its volume's free space
 * @param existing - whether the title's files are already at the target (the media server lists it there)
 * @param overwriteMode - the directory's `overwrite_mode` (`never`, `always`, `size`, `latest`), when known
 * @internal
 */
export function organizeImpact(
  mode: V2OrganizeMode,
  sizeBytes: number,
  files: number,
  space: V2Space,
  existing: boolean,
  overwriteMode: string | undefined,
): V2Impact {
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
 * The impact of cancelling a download: the host's downloader delete removes the torrent and the bytes it has
 * downloaded so far (MoviePilot removes torrents with their files), which cannot be brought back.
 * @param heldBytes - bytes downloaded so far (size × progress)
 * @param space - the download's directory and the downloader's free space
 * @internal
 */
export function cancelImpact(heldBytes: number, space: V2Space): V2Impact {
  const held = Math.max(0, Math.round(heldBytes));
  return {
    deleteBytes: held,
    filesDeleted: held > 0 ? 1 : 0,
    ...spaceFields(space, -held),
    reversible: false,
    ...(space.notes.length ? { notes: space.notes } : {}),
  };
}
