import { createHash } from 'node:crypto';
import {
  MediaStateError,
  type DownloadJob,
  type MediaItem,
  type MediaKind,
  type OrganizeRecord,
  type Release,
} from '@media-agent/sdk/media';

/** MoviePilot 2.x `MediaInfo` fields the adapter reads. */
export interface V2MediaInfo {
  type?: string | null;
  title?: string | null;
  en_title?: string | null;
  original_title?: string | null;
  year?: string | null;
  tmdb_id?: number | null;
  douban_id?: string | null;
  overview?: string | null;
  number_of_seasons?: number | null;
  [k: string]: unknown;
}

/** `TorrentInfo` fields the adapter reads. */
export interface V2TorrentInfo {
  title?: string | null;
  size?: number | null;
  seeders?: number | null;
  site_name?: string | null;
  enclosure?: string | null;
  page_url?: string | null;
  description?: string | null;
  pubdate?: string | null;
  downloadvolumefactor?: number | null;
  [k: string]: unknown;
}

/** `Context` (search result). */
export interface V2Context {
  media_info?: V2MediaInfo | null;
  torrent_info?: V2TorrentInfo | null;
  meta_info?: Record<string, unknown> | null;
}

/** V2 `type` strings (电影 / 电视剧) ↔ media kind. */
export const kindOf = (type: string | null | undefined): MediaKind =>
  type === '电视剧' || type === 'tv' ? 'tv' : 'movie';
/** Media kind → the V2 `type_name` / `mtype` value. */
export const typeName = (kind: MediaKind | undefined): string => (kind === 'tv' ? '电视剧' : '电影');

/** V2 identifies media by TMDB, Douban (and Bangumi) ids: `tmdb:693134`, `douban:35575567`. */
export function v2MediaId(source: string, id: string): string {
  if (source !== 'tmdb' && source !== 'douban' && source !== 'bangumi')
    throw new MediaStateError(
      'MEDIA_NOT_FOUND',
      `MoviePilot 2.x identifies media by TMDB, Douban or Bangumi ids, not ${source}`,
      { mediaSource: source },
    );
  return `${source}:${id}`;
}

/** The media entity id of a V2 `MediaInfo`: TMDB first, else Douban. */
export function entityOf(info: V2MediaInfo): string | undefined {
  if (info.tmdb_id) return `tmdb:${info.tmdb_id}`;
  if (info.douban_id) return `douban:${info.douban_id}`;
  return undefined;
}

/** A V2 `MediaInfo` as a standard {@link MediaItem}. */
export function mediaItem(info: V2MediaInfo, inLibrary: boolean): MediaItem | undefined {
  const entity = entityOf(info);
  if (!entity) return undefined;
  const [source, id] = entity.split(':') as ['tmdb' | 'douban', string];
  const localized = info.title ?? null;
  const english = info.en_title ?? info.original_title ?? info.title ?? '';
  return {
    mediaSource: source,
    mediaId: id,
    mediaEntityId: entity,
    kind: kindOf(info.type),
    title: english,
    originalTitle: info.original_title ?? english,
    localizedTitle: localized && localized !== english ? localized : null,
    year: Number.parseInt(info.year ?? '0', 10) || 0,
    overview: info.overview ?? '',
    seasons: kindOf(info.type) === 'tv' ? (info.number_of_seasons ?? null) : null,
    inLibrary,
  };
}

/** Stable release id of a torrent: `r` + 20 hex of SHA-256(site | enclosure | title). */
export function releaseIdOf(t: V2TorrentInfo): string {
  return `r${createHash('sha256')
    .update(`${t.site_name ?? ''}|${t.enclosure ?? ''}|${t.title ?? ''}`)
    .digest('hex')
    .slice(0, 20)}`;
}

/** The info hash of a magnet link, when the enclosure is one. */
export function hashOfEnclosure(enclosure: string | null | undefined): string | null {
  return /btih:([0-9a-f]{40})/i.exec(enclosure ?? '')?.[1]?.toLowerCase() ?? null;
}

/** A torrent as a standard {@link Release} (quality parsed from its title). */
export function releaseOf(t: V2TorrentInfo, entity: string, inLibrary: boolean): Release {
  const name = t.title ?? '';
  const season = /\bS(\d{1,2})(?!\d|E)/i.exec(name)?.[1];
  return {
    releaseId: releaseIdOf(t),
    name,
    mediaEntityId: entity,
    site: t.site_name ?? '',
    sizeBytes: Math.max(0, Math.round(t.size ?? 0)),
    resolution: /2160p|4k|uhd/i.test(name)
      ? '2160p'
      : /1080[pi]/i.test(name)
        ? '1080p'
        : /720p/i.test(name)
          ? '720p'
          : '480p',
    source: /remux/i.test(name)
      ? 'Remux'
      : /blu-?ray|bdrip/i.test(name)
        ? 'BluRay'
        : /hdtv/i.test(name)
          ? 'HDTV'
          : 'WEB-DL',
    codec: /x265|h\.?265|hevc/i.test(name) ? 'H.265' : 'H.264',
    hdr: /hdr|dolby.?vision|\bdv\b/i.test(name),
    season: season ? Number(season) : null,
    seeders: Math.max(0, t.seeders ?? 0),
    inLibrary,
  };
}

/** `DownloadingTorrent` fields the adapter reads (`GET /api/v1/download/`). */
export interface V2Downloading {
  hash?: string | null;
  name?: string | null;
  title?: string | null;
  size?: number | null;
  progress?: number | null;
  state?: string | null;
  media?: { tmdbid?: number; type?: string } | null;
}

/** `DownloadHistory` fields (`GET /api/v1/history/download`). */
export interface V2DownloadHistory {
  id: number;
  path?: string | null;
  title?: string | null;
  type?: string | null;
  tmdbid?: number | null;
  doubanid?: string | null;
  download_hash?: string | null;
  torrent_name?: string | null;
  date?: string | null;
}

/** `TransferHistory` fields (`GET /api/v1/history/transfer` → `data.list`). */
export interface V2TransferHistory {
  id: number;
  src?: string | null;
  dest?: string | null;
  mode?: string | null;
  title?: string | null;
  tmdbid?: number | null;
  doubanid?: string | null;
  download_hash?: string | null;
  status: boolean;
  errmsg?: string | null;
  date?: string | null;
}

/** A V2 date string (`YYYY-MM-DD HH:MM:SS`, host time taken as UTC) in ms; 0 when absent. */
export const msOf = (date: string | null | undefined): number =>
  date ? Date.parse(`${date.replace(' ', 'T')}Z`) || 0 : 0;

/** A transfer history record as a standard organize record. */
export function organizeRecord(t: V2TransferHistory, planId: string | null): OrganizeRecord {
  return {
    id: `org-${t.id}`,
    downloadId: t.download_hash ?? null,
    planId,
    mediaEntityId: t.tmdbid ? `tmdb:${t.tmdbid}` : t.doubanid ? `douban:${t.doubanid}` : 'tmdb:0',
    title: t.title ?? '',
    status: t.status ? 'succeeded' : 'failed',
    mode: t.mode === 'copy' ? 'copy' : t.mode === 'move' ? 'move' : 'hardlink',
    libraryPath: t.status ? (t.dest ?? null) : null,
    automatic: planId === null,
    createdAt: msOf(t.date),
    error: t.status ? null : (t.errmsg ?? 'transfer failed'),
  };
}

/** Status of a download from the host's lists: active list, download history, transfer history. */
export function downloadStatus(
  active: V2Downloading | undefined,
  transfer: V2TransferHistory | undefined,
  cancelled: boolean,
): DownloadJob['status'] {
  if (cancelled) return 'removed';
  if (active) {
    if (active.state === 'paused' || active.state === 'error') return 'stalled';
    return (active.progress ?? 0) <= 0 ? 'queued' : 'downloading';
  }
  if (transfer) return transfer.status ? 'imported' : 'failed';
  return 'completed';
}
