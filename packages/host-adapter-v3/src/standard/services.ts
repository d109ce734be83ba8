import { planOfType } from '@media-agent/host-adapter-kit';
import {
  MediaStateError,
  mediaEntityId,
  parseMediaEntityId,
  type DownloadJob,
  type MediaItem,
  type PolicySettings,
  type Release,
} from '@media-agent/sdk/media';
import type { PlanService } from '@media-agent/sdk/authorization';
import type { V3Client } from '../client';
import { fromV3Identity, toV3Identity } from '../identity';
import type { V3JournalDownload, V3RunJournal } from '../journal';
import {
  type V3Context,
  type V3DownloadTask,
  type V3TransferRecord,
  releaseIdOf,
  resolutionOf,
  sourceOf,
  kindOf,
  typeName,
  downloadStatusOf,
  organizeStatusOf,
} from './mapping';

/** Adapter settings for downloads and organizes. @public */
export interface V3MediaSettings {
  /** Downloader name sent with `download.add` (default: the host's default downloader). */
  downloader?: string;
  /** `<storage>:<path>` save path from `download.paths` (default: the host's default). */
  savePath?: string;
  /** Storage the downloaded files are on (default `local`). */
  storage?: string;
}

/** Services the standard capabilities use. @internal */
export interface V3Services {
  client: V3Client;
  /** What `host.start()` learned about the host (TMDB reachability). */
  status: { metadata: 'reachable' | 'unreachable' | 'unknown'; metadataMessage: string | null };
  plans: PlanService;
  journal: V3RunJournal;
  settings: V3MediaSettings;
  /** Policies by kind: the revision, its settings and the settings before it (what `moviepilot.policy.revert` puts back). */
  policies: Map<
    string,
    { revision: number; settings: PolicySettings; previous?: { revision: number; settings: PolicySettings } }
  >;
  releases: Map<string, { context: V3Context; mediaEntityId: string }>;
  identities: Map<string, string>;
}

/** Reads and views shared by the standard capability families of one host. @internal */
export type V3StandardHelpers = ReturnType<typeof v3StandardHelpers>;

/**
 * The reads and views the standard capability families share: library lookup, media items, release
 * views and searches (cached in `s.releases`), download job views and plan checks.
 * @param s - the services of one host
 * @internal
 */
export function v3StandardHelpers(s: V3Services) {
  const { client } = s;
  const lookupLibrary = async (entity: string, signal: AbortSignal): Promise<string | null> => {
    const ref = parseMediaEntityId(entity);
    if (!ref) return null;
    const r = await client.ok<{ item?: { id?: string | number } }>('library.exists', {
      query: toV3Identity(ref),
      signal,
    });
    return r.data?.item && r.data.item.id !== undefined ? String(r.data.item.id) : null;
  };
  const mediaItem = async (m: Record<string, unknown>, signal: AbortSignal): Promise<MediaItem | undefined> => {
    const id = fromV3Identity(m.media_source, m.media_id);
    if (!id) return undefined;
    return {
      mediaSource: id.mediaSource,
      mediaId: id.mediaId,
      mediaEntityId: id.mediaEntityId,
      kind: kindOf(m.type),
      title: String(m.title ?? ''),
      originalTitle: String(m.original_title ?? m.title ?? ''),
      localizedTitle: typeof m.cn_title === 'string' ? m.cn_title : null,
      year: Number.parseInt(String(m.year ?? '0'), 10) || 0,
      overview: String(m.overview ?? ''),
      seasons: typeof m.number_of_seasons === 'number' ? m.number_of_seasons : null,
      inLibrary: (await lookupLibrary(id.mediaEntityId, signal)) !== null,
    };
  };
  const releaseView = (c: V3Context, entity: string, inLibrary: boolean): Release => ({
    releaseId: releaseIdOf(c),
    name: c.torrent_info.title,
    mediaEntityId: s.identities.get(releaseIdOf(c)) ?? entity,
    site: c.torrent_info.site_name ?? '',
    sizeBytes: Math.max(0, Math.round(c.torrent_info.size ?? 0)),
    resolution: resolutionOf(c),
    source: sourceOf(c),
    codec: /265|hevc|x265/i.test(`${c.meta_info?.video_encode ?? ''} ${c.torrent_info.title}`) ? 'H.265' : 'H.264',
    hdr: /hdr|dolby.?vision|\bdv\b/i.test(c.torrent_info.title),
    season: typeof c.meta_info?.begin_season === 'number' ? c.meta_info.begin_season : null,
    seeders: Math.max(0, c.torrent_info.seeders ?? 0),
    inLibrary,
  });
  const searchReleases = async (
    ref: { mediaSource: Parameters<typeof toV3Identity>[0]['mediaSource']; mediaId: string },
    kind: 'movie' | 'tv' | undefined,
    signal: AbortSignal,
  ) => {
    const entity = mediaEntityId(ref);
    const r = await client.ok<V3Context[]>('search.torrents', {
      pathParams: { media_id: ref.mediaId },
      query: { media_source: toV3Identity(ref).media_source, ...(kind ? { mtype: typeName(kind) } : {}) },
      signal,
    });
    const list = Array.isArray(r.data) ? r.data : [];
    for (const c of list) s.releases.set(releaseIdOf(c), { context: c, mediaEntityId: entity });
    return { entity, list };
  };
  const jobView = (
    d: V3JournalDownload,
    task: V3DownloadTask | undefined,
    transfers: V3TransferRecord[],
    now: number,
  ): DownloadJob => {
    const mine = transfers.filter((t) => t.download_hash === d.hash);
    const status = downloadStatusOf(task, mine);
    const organized = mine.find((t) => organizeStatusOf(t) === 'succeeded');
    return {
      id: d.hash,
      planId: d.planId,
      releaseId: d.releaseId,
      releaseName: d.releaseName,
      mediaEntityId: d.mediaEntityId,
      title: d.title,
      sizeBytes: d.sizeBytes,
      status,
      progress:
        status === 'imported' || status === 'completed' ? 1 : Math.min(1, Math.max(0, (task?.progress ?? 0) / 100)),
      submittedAt: d.submittedAt,
      updatedAt: now,
      organizeId: organized ? `th-${organized.id}` : null,
    };
  };
  const planOf = planOfType;

  /** `MEDIA_NOT_FOUND` for a lookup that found nothing while the host cannot reach TMDB, else undefined. */
  const metadataCause = (query: string): MediaStateError | undefined =>
    s.status.metadata === 'unreachable'
      ? new MediaStateError(
          'MEDIA_NOT_FOUND',
          `${JSON.stringify(query)} not found (host metadata source unreachable): the MoviePilot host cannot reach TMDB, so it finds no title at all${s.status.metadataMessage ? ` — host said: ${s.status.metadataMessage}` : ''}`,
          { query, metadataUnreachable: true },
        )
      : undefined;
  /** A journal entry for a downloader task this adapter did not submit (identity from the host). */
  function synthetic(task: V3DownloadTask | undefined): V3JournalDownload | undefined {
    const id = task ? fromV3Identity(task.media?.media_source, task.media?.media_id) : undefined;
    if (!task || !id) return undefined;
    return {
      hash: task.hash,
      planId: '',
      releaseId: '',
      releaseName: task.title,
      mediaEntityId: id.mediaEntityId,
      title: String(task.media?.title ?? task.title),
      sizeBytes: Math.max(0, Math.round(task.size ?? 0)),
      idempotencyKey: null,
      submittedAt: 0,
    };
  }
  return { lookupLibrary, mediaItem, releaseView, searchReleases, jobView, planOf, synthetic, metadataCause };
}
