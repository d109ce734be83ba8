// The host's own numbers behind an impact: its download paths, directory settings, the downloader's free
// space and the library storage's free space. Reads only (GET operations of the catalog); what the host will
// not tell becomes a note, never a guess.
import { MediaAgentError } from '@media-agent/sdk';
import type { V3Client } from '../client';
import { typeName } from './mapping';
import type { V3Space } from './impact-rules';

/** A directory setting of the host (`TransferDirectoryConf`, fields the adapter reads). @internal */
export interface V3Directory {
  /** Download directory. */
  download_path?: string | null;
  /** Priority (lower first). */
  priority?: number | null;
  /** Media type served (`电影`, `电视剧`; empty or absent: all). */
  media_type?: string | null;
  /** Library directory. */
  library_path?: string | null;
  /** Overwrite mode of existing files (`never`, `always`, `size`, `latest`). */
  overwrite_mode?: string | null;
}

/** Why a read did not answer, for a note (a host error's message; anything else is rethrown). */
function reason(error: unknown, signal: AbortSignal): string {
  if (signal.aborted || !(error instanceof MediaAgentError)) throw error;
  return `${error.code}: ${error.message}`.slice(0, 200);
}

/** The first entry by priority serving a media type (empty or absent media type: all). */
function serving<T extends { priority?: number | null; media_type?: string | null }>(
  list: unknown,
  kind: 'movie' | 'tv',
): T | undefined {
  const type = typeName(kind);
  return [...((Array.isArray(list) ? list : []) as T[])]
    .sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0))
    .find((d) => !d.media_type || d.media_type === type);
}

/**
 * The download directory of a kind (`download.paths`: the entry whose `save_path` the adapter sends, else the
 * first by priority serving the kind) and the downloader's free space (`dashboard.downloader` `free_space`,
 * superusers only).
 * @param savePath - the adapter's configured `<storage>:<path>` save path, when any
 * @param downloadPath - the directory the download is in, when the host already says (its download history)
 * @internal
 */
export async function downloadSpace(
  client: V3Client,
  kind: 'movie' | 'tv',
  signal: AbortSignal,
  savePath: string | undefined,
  downloadPath?: string,
): Promise<V3Space> {
  const notes: string[] = [];
  let path = downloadPath;
  if (path === undefined)
    try {
      const r = await client.ok<Array<{ download_path?: string; save_path?: string }>>('download.paths', { signal });
      const list = Array.isArray(r.data) ? r.data : [];
      const entry =
        (savePath ? list.find((d) => d.save_path === savePath) : undefined) ??
        serving<{ download_path?: string; save_path?: string; priority?: number }>(list, kind);
      path = entry?.download_path;
      if (!path) notes.push(`the host lists no download path for ${typeName(kind)}`);
    } catch (error) {
      notes.push(`the host's download paths could not be read (${reason(error, signal)})`);
    }
  let freeBytes: number | undefined;
  try {
    const r = await client.ok<{ free_space?: number | null }>('dashboard.downloader', { signal });
    if (typeof r.data?.free_space === 'number') freeBytes = r.data.free_space;
    else notes.push('the downloader did not report its free space');
  } catch (error) {
    notes.push(`the downloader's free space could not be read (${reason(error, signal)})`);
  }
  return { path, freeBytes, notes };
}

/**
 * The library directory of a kind (`storage.settings`, superusers only) with its overwrite mode, and the
 * library volume's free space (`dashboard.storage`: `total_storage` − `used_storage`).
 * @param targetPath - the target directory when the plan already names it (the host's transfer preview)
 * @internal
 */
export async function librarySpace(
  client: V3Client,
  kind: 'movie' | 'tv',
  signal: AbortSignal,
  targetPath?: string,
): Promise<V3Space & { overwriteMode: string | undefined }> {
  const notes: string[] = [];
  let dir: V3Directory | undefined;
  try {
    dir = serving<V3Directory>((await client.ok<V3Directory[]>('storage.settings', { signal })).data, kind);
    if (!dir) notes.push(`the host has no directory setting for ${typeName(kind)}`);
  } catch (error) {
    notes.push(`the host's directory settings could not be read (${reason(error, signal)})`);
  }
  let freeBytes: number | undefined;
  try {
    const r = await client.ok<{ total_storage?: number | null; used_storage?: number | null }>('dashboard.storage', {
      signal,
    });
    const total = r.data?.total_storage ?? 0;
    if (total > 0) freeBytes = total - (r.data?.used_storage ?? 0);
    else notes.push('the host reports no library storage');
  } catch (error) {
    notes.push(`the library storage could not be read (${reason(error, signal)})`);
  }
  return {
    path: targetPath || (dir?.library_path ?? undefined),
    freeBytes,
    notes,
    overwriteMode: dir?.overwrite_mode ?? undefined,
  };
}
