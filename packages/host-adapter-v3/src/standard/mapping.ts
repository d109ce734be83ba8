import { createHash } from 'node:crypto';
import { RESOLUTIONS, type DownloadJob, type Release } from '@media-agent/sdk/media';

/** A search result candidate (`search.torrents`, `search.results`). @internal */
export interface V3Context {
  meta_info?: {
    name?: string;
    year?: string | null;
    resource_pix?: string;
    resource_type?: string;
    video_encode?: string;
    begin_season?: number | null;
  } | null;
  media_info?: Record<string, unknown> | null;
  torrent_info: {
    title: string;
    description?: string;
    enclosure: string;
    site_name?: string;
    size?: number;
    seeders?: number;
    pubdate?: string;
    downloadvolumefactor?: number;
    page_url?: string;
  };
}

/** A downloader task (`download.tasks.active`). @internal */
export interface V3DownloadTask {
  hash: string;
  title: string;
  size?: number;
  progress?: number;
  state?: string;
  media?: Record<string, unknown>;
}

/** A transfer history record (`transfer.history`). @internal */
export interface V3TransferRecord {
  id: number;
  src: string;
  dest: string;
  mode?: string;
  title?: string;
  media_source?: string;
  media_id?: string;
  download_hash?: string | null;
  status?: boolean;
  state?: string;
  errmsg?: string;
  date?: string;
}

/** MoviePilot transfer type of an SDK organize mode. @internal */
export const TRANSFER_TYPE = { hardlink: 'link', copy: 'copy', move: 'move' } as const;

/** Release id of a candidate: `r` + 16 hex of SHA-256 over site and enclosure. @internal */
export function releaseIdOf(c: V3Context): string {
  return `r${createHash('sha256')
    .update(`${c.torrent_info.site_name ?? ''}\n${c.torrent_info.enclosure}`)
    .digest('hex')
    .slice(0, 16)}`;
}

/** Index of a resolution in the SDK's `RESOLUTIONS` (higher is better). @internal */
export const rank = (r: string) => RESOLUTIONS.indexOf(r as (typeof RESOLUTIONS)[number]);
/** Resolution of a candidate, from its metadata and title. @internal */
export function resolutionOf(c: V3Context): Release['resolution'] {
  const s = `${c.meta_info?.resource_pix ?? ''} ${c.torrent_info.title}`.toLowerCase();
  if (/2160p|4k|uhd/.test(s)) return '2160p';
  if (/1080[pi]/.test(s)) return '1080p';
  if (/720p/.test(s)) return '720p';
  return '480p';
}
/** Source of a candidate (Remux, BluRay, HDTV, else WEB-DL), from its metadata and title. @internal */
export function sourceOf(c: V3Context): Release['source'] {
  const s = `${c.meta_info?.resource_type ?? ''} ${c.torrent_info.title}`.toLowerCase();
  if (s.includes('remux')) return 'Remux';
  if (/blu-?ray|bdrip/.test(s)) return 'BluRay';
  if (s.includes('hdtv')) return 'HDTV';
  return 'WEB-DL';
}
/** SDK kind of a MoviePilot media type (`电视剧` or `tv`: tv). @internal */
export const kindOf = (type: unknown): 'movie' | 'tv' =>
  type === '电视剧' || type === 'tv' || type === 'TV' ? 'tv' : 'movie';
/** MoviePilot media type name of an SDK kind. @internal */
export const typeName = (kind: 'movie' | 'tv' | undefined) => (kind === 'tv' ? '电视剧' : '电影');

/** SDK download status of a V3 downloader task plus the transfer history. @internal */
export function downloadStatusOf(
  task: V3DownloadTask | undefined,
  transfers: V3TransferRecord[],
): DownloadJob['status'] {
  if (transfers.some((t) => (t.state ?? (t.status ? 'completed' : 'failed')) === 'completed')) return 'imported';
  if (!task) return 'removed';
  const s = String(task.state ?? '').toLowerCase();
  if (s === 'completed' || s === 'seeding' || (task.progress ?? 0) >= 100) return 'completed';
  if (s === 'queued' || s === 'pending') return 'queued';
  if (s === 'stalled' || s === 'paused') return 'stalled';
  if (s === 'error' || s === 'failed') return 'failed';
  return 'downloading';
}

/** The organize state of a transfer record. @internal */
export function organizeStatusOf(t: V3TransferRecord): 'running' | 'succeeded' | 'failed' {
  const state = t.state ?? (t.status ? 'completed' : 'failed');
  return state === 'completed' ? 'succeeded' : state === 'accepted' || state === 'retry_wait' ? 'running' : 'failed';
}

/**
 * The MoviePilot 3.x implementations of the 15 standard media capabilities; see
 * the mapping table in the package README. `download.plan`/`organize.plan` create SDK plan artifacts
 * with the host's `PlanService`; `download.submit` carries the standard-style verifier
 * {@link verifyV3DownloadSubmit} (downloader task list: hash, else title + size).
 * @internal
/** The frozen payload of a V3 download plan. @internal */
export interface DownloadPlanPayload {
  mediaEntityId: string;
  title: string;
  releaseId: string;
  releaseName: string;
  sizeBytes: number;
  identity: { media_source: string; media_id: string };
  torrent_in: Record<string, unknown>;
  allowUnrecognized: boolean;
}

/** The frozen payload of a V3 organize plan. @internal */
export interface OrganizePlanPayload {
  downloadId: string;
  mediaEntityId: string;
  title: string;
  mode: 'hardlink' | 'copy' | 'move';
  targetPath: string;
  /** The files the host's transfer preview listed (source → target). */
  files: Array<{ from: string; to: string }>;
  request: { fileitem: { path: string }; media_source: string; media_id: string; transfer_type: string };
}
