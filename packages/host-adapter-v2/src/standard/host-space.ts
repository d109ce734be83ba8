// The host's own numbers behind an impact: its directory settings, the downloader's free space and a
// storage's free space. Reads only (GET); what the host will not tell becomes a note, never a guess.
import { MediaAgentError } from '@media-agent/sdk';
import type { V2HostClient } from '../client';
import { typeName } from '../mapping';
import type { V2Space } from './impact-rules';

/** A directory setting of the host (`TransferDirectoryConf`, fields the adapter reads). @internal */
export interface V2Directory {
  /** Download directory. */
  download_path?: string | null;
  /** Priority (lower first). */
  priority?: number | null;
  /** Media type served (`电影`, `电视剧`; empty or absent: all). */
  media_type?: string | null;
  /** Storage of the library path (`local`, …). */
  library_storage?: string | null;
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

/**
 * The host's directory setting serving a media kind (`GET /api/v1/system/setting/Directories`, superusers
 * only): the first by priority whose media type is the kind's or empty.
 * @returns the setting, or `undefined` with a note when the host did not tell
 * @internal
 */
export async function directoryFor(
  client: V2HostClient,
  kind: 'movie' | 'tv',
  signal: AbortSignal,
  notes: string[],
): Promise<V2Directory | undefined> {
  try {
    const data = await client.call<{ value?: V2Directory[] | null }>('system.setting', {
      pathParams: { key: 'Directories' },
      signal,
    });
    const type = typeName(kind);
    const found = [...(Array.isArray(data?.value) ? data.value : [])]
      .sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0))
      .find((d) => !d.media_type || d.media_type === type);
    if (!found) notes.push(`the host has no directory setting for ${type}`);
    return found;
  } catch (error) {
    notes.push(`the host's directory settings could not be read (${reason(error, signal)})`);
    return undefined;
  }
}

/**
 * The download directory of a kind and the downloader's free space (`GET /api/v1/dashboard/downloader`
 * `free_space`, the downloader's free bytes on its save path).
 * @param savePath - the directory the download is in, when the host already says (its download history)
 * @internal
 */
export async function downloadSpace(
  client: V2HostClient,
  kind: 'movie' | 'tv',
  signal: AbortSignal,
  savePath?: string,
): Promise<V2Space> {
  const notes: string[] = [];
  const path = savePath ?? (await directoryFor(client, kind, signal, notes))?.download_path ?? undefined;
  let freeBytes: number | undefined;
  try {
    const info = await client.call<{ free_space?: number | null }>('dashboard.downloader', { signal });
    if (typeof info?.free_space === 'number') freeBytes = info.free_space;
    else notes.push('the downloader did not report its free space');
  } catch (error) {
    notes.push(`the downloader's free space could not be read (${reason(error, signal)})`);
  }
  return { path, freeBytes, notes };
}

/**
 * The library directory of a kind and its storage's free space (`GET /api/v1/storage/usage/{library_storage}`
 * `available`), with the directory's overwrite mode.
 * @internal
 */
export async function librarySpace(
  client: V2HostClient,
  kind: 'movie' | 'tv',
  signal: AbortSignal,
): Promise<V2Space & { overwriteMode: string | undefined }> {
  const notes: string[] = [];
  const dir = await directoryFor(client, kind, signal, notes);
  let freeBytes: number | undefined;
  const storage = dir?.library_storage || 'local';
  try {
    const usage = await client.call<{ total?: number; available?: number }>('storage.usage', {
      pathParams: { name: storage },
      signal,
    });
    if (usage && (usage.total ?? 0) > 0 && typeof usage.available === 'number') freeBytes = usage.available;
    else notes.push(`the host reports no usage of its ${storage} storage`);
  } catch (error) {
    notes.push(`the free space of the ${storage} storage could not be read (${reason(error, signal)})`);
  }
  return {
    path: dir?.library_path ?? undefined,
    freeBytes,
    notes,
    overwriteMode: dir?.overwrite_mode ?? undefined,
  };
}
