import type { DownloadJob } from '@media-agent/sdk/media';
import type { V2HostClient } from './client';
import { HostOperationError } from './errors';
import {
  downloadStatus,
  msOf,
  typeName,
  type V2DownloadHistory,
  type V2Downloading,
  type V2TransferHistory,
} from './mapping';
import type { TrackedDownload, V2Tracking } from './tracking';
import type { DownloadPayload } from './standard/payloads';

/** How many media kinds a host view remembers. */
const MAX_KINDS = 10_000;

/**
 * Reads of the host state shared by capabilities, verifiers and goal facts.
 * @internal
 */
export class V2HostView {
  /** Set at `host.start()` when the host's own connectivity check says it cannot reach TMDB. */
  metadataUnreachable = false;
  /** The host's own words from that failed check (e.g. `网络连接失败！`), or `null`. */
  metadataMessage: string | null = null;
  /**
   * The kind of each media entity the adapter has seen, per run (TMDB movie and series ids share one
   * number space: one person's series must not turn another's film search into a series search).
   */
  readonly #kinds = new Map<string, 'movie' | 'tv'>();
  /**
   * Runs the host's TMDB network test again and updates {@link V2HostView.metadataUnreachable} (set by the
   * host; a no-op until then). Called when the host recognises nothing, so a TMDB lost after start is named.
   */
  recheckMetadata: (signal?: AbortSignal) => Promise<void> = async () => undefined;

  constructor(
    readonly client: V2HostClient,
    readonly tracking: V2Tracking,
  ) {}

  /**
   * Remembers the kind of a media entity the host described (catalog lookups, media detail) for one run.
   * @param entity - `tmdb:693134`
   * @param kind - `movie` or `tv`
   * @param scope - the run (else the task, else the actor) it was described for
   */
  rememberKind(entity: string, kind: 'movie' | 'tv', scope: string): void {
    const key = `${scope}\n${entity}`;
    this.#kinds.delete(key);
    this.#kinds.set(key, kind);
    // Bounded: the oldest entries go first (a forgotten kind is asked of the host again).
    if (this.#kinds.size > MAX_KINDS) this.#kinds.delete(this.#kinds.keys().next().value!);
  }

  /** The kind of a media entity described in this scope, or `undefined`. @param entity - `tmdb:…` @param scope - see {@link V2HostView.rememberKind} */
  kindOf(entity: string, scope: string): 'movie' | 'tv' | undefined {
    return this.#kinds.get(`${scope}\n${entity}`);
  }

  /**
   * How many indexer sites the host has active (`GET /api/v1/site/`), or `undefined` when the
   * credentials do not open the route or it cannot be read. The answer (which carries each site's cookie
   * and API key) is reduced to the count inside the client; nothing else of it is kept.
   */
  async activeSites(signal?: AbortSignal): Promise<number | undefined> {
    try {
      return await this.client.call<number>('site.list', {
        signal,
        select: (body) =>
          Array.isArray(body)
            ? body.filter((x) => x && typeof x === 'object' && (x as { is_active?: unknown }).is_active !== false)
                .length
            : undefined,
      });
    } catch (error) {
      if (signal?.aborted) throw error; // a cancelled search stops here
      return undefined;
    }
  }

  /** `GET /api/v1/mediaserver/exists` — true when the library has the title (`success:false` means no). */
  async inLibrary(
    entity: string,
    kind?: 'movie' | 'tv',
    signal?: AbortSignal,
  ): Promise<{ present: boolean; path: string | null }> {
    const [source, id] = entity.split(':');
    if (source !== 'tmdb') return { present: false, path: null };
    try {
      const data = await this.client.call<{ item?: { path?: string } }>('library.exists', {
        query: { tmdbid: Number(id), mtype: kind ? typeName(kind) : undefined },
        signal,
      });
      return { present: !!data?.item, path: data?.item?.path ?? null };
    } catch (error) {
      if (error instanceof HostOperationError) return { present: false, path: null };
      throw error;
    }
  }

  async active(signal?: AbortSignal): Promise<V2Downloading[]> {
    return (await this.client.call<V2Downloading[]>('download.list', { signal })) ?? [];
  }

  async downloadHistory(signal?: AbortSignal): Promise<V2DownloadHistory[]> {
    return (
      (await this.client.call<V2DownloadHistory[]>('history.download', { query: { page: 1, count: 100 }, signal })) ??
      []
    );
  }

  async transfers(signal?: AbortSignal): Promise<V2TransferHistory[]> {
    const data = await this.client.call<{ list?: V2TransferHistory[] }>('history.transfer', {
      query: { page: 1, count: 100 },
      signal,
    });
    return data?.list ?? [];
  }

  /** Every download the host knows (active and history), with status, joined with the adapter's tracking. */
  async downloads(signal?: AbortSignal): Promise<
    Array<{
      job: DownloadJob;
      tracked: TrackedDownload | undefined;
      history: V2DownloadHistory | undefined;
      key: string | null;
    }>
  > {
    const [active, history, transfers, tracking] = await Promise.all([
      this.active(signal),
      this.downloadHistory(signal),
      this.transfers(signal),
      this.tracking.read(),
    ]);
    const hashes = new Set<string>(
      [...active.map((a) => a.hash ?? ''), ...history.map((h) => h.download_hash ?? '')].filter(Boolean),
    );
    const out = [];
    for (const hash of hashes) {
      const a = active.find((x) => x.hash === hash);
      const h = history.find((x) => x.download_hash === hash);
      const tracked = tracking.downloads[hash];
      const transfer = transfers
        .filter((t) => t.download_hash === hash)
        .sort((x, y) => Number(y.status) - Number(x.status))[0];
      const entity =
        tracked?.mediaEntityId ??
        (h?.tmdbid
          ? `tmdb:${h.tmdbid}`
          : a?.media?.tmdbid
            ? `tmdb:${a.media.tmdbid}`
            : h?.doubanid
              ? `douban:${h.doubanid}`
              : 'tmdb:0');
      const status = downloadStatus(a, transfer, tracked?.cancelled ?? false);
      const progress = a ? Math.min(1, Math.max(0, (a.progress ?? 0) / 100)) : status === 'queued' ? 0 : 1;
      out.push({
        job: {
          id: hash,
          planId: tracked?.planId ?? '',
          releaseId: tracked?.releaseId ?? '',
          releaseName: tracked?.releaseName ?? a?.name ?? h?.torrent_name ?? '',
          mediaEntityId: entity,
          title: tracked?.title ?? h?.title ?? a?.title ?? '',
          sizeBytes: Math.round(tracked?.sizeBytes ?? a?.size ?? 0),
          status,
          progress: status === 'removed' ? progress : progress,
          submittedAt: tracked?.submittedAt ?? msOf(h?.date),
          updatedAt: transfer ? msOf(transfer.date) : (tracked?.submittedAt ?? msOf(h?.date)),
          organizeId: transfer?.status ? `org-${transfer.id}` : null,
        },
        tracked,
        history: h,
        key: tracked?.idempotencyKey ?? null,
      });
    }
    return out;
  }

  /**
   * The host download that executes a download plan: by info hash (known from the submit's answer
   * or the magnet link), else by torrent title + size.
   */
  async downloadForPlan(payload: DownloadPayload, planId: string, signal?: AbortSignal) {
    const all = await this.downloads(signal);
    return (
      all.find((d) => d.tracked?.planId === planId) ??
      (payload.hash ? all.find((d) => d.job.id === payload.hash) : undefined) ??
      all.find(
        (d) =>
          d.job.releaseName === payload.releaseName && (d.job.sizeBytes === payload.sizeBytes || d.job.sizeBytes === 0),
      )
    );
  }
}
