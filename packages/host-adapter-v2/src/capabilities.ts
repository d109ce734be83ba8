import { defineCapability, type Capability, type HandlerContext, type PlanService, type Verifier } from '@media-agent/sdk';
import { defineStandardCapability, MediaStateError, planReceipt, type DownloadJob, type StandardImplementations, type StandardOutput, type Task } from '@media-agent/sdk/media';
import Type from 'typebox';
import type { V2HostClient } from './client';
import { HostOperationError } from './errors';
import {
  downloadStatus,
  entityOf,
  hashOfEnclosure,
  kindOf,
  mediaItem,
  msOf,
  organizeRecord,
  releaseIdOf,
  releaseOf,
  typeName,
  v2MediaId,
  type V2Context,
  type V2DownloadHistory,
  type V2Downloading,
  type V2MediaInfo,
  type V2TorrentInfo,
  type V2TransferHistory,
} from './mapping';
import type { TrackedDownload, V2Tracking } from './tracking';

/** The frozen payload of a V2 download plan. */
interface DownloadPayload {
  type: 'download';
  mediaEntityId: string;
  title: string;
  kind: 'movie' | 'tv';
  releaseId: string;
  releaseName: string;
  site: string;
  sizeBytes: number;
  resolution: string;
  hash: string | null;
  media_in: V2MediaInfo;
  torrent_in: V2TorrentInfo;
}

/** The frozen payload of a V2 organize plan (the `ManualTransferItem` it sends). */
interface OrganizePayload {
  type: 'organize';
  downloadId: string;
  mediaEntityId: string;
  title: string;
  mode: 'hardlink' | 'copy' | 'move';
  targetPath: string;
  files: Array<{ from: string; to: string }>;
  transfer: Record<string, unknown>;
}

/**
 * The messages MoviePilot answers `GET /api/v1/search/media/{mediaid}` with when the search ran and
 * found nothing (`app/api/endpoints/search.py` of https://github.com/jxxghp/MoviePilot).
 */
const NO_RESULT_MESSAGES = ['未搜索到任何资源'];
const isNoResult = (message: string) => NO_RESULT_MESSAGES.includes(message.trim());

const notFound = (what: string, id: string) => new MediaStateError('MEDIA_NOT_FOUND', `no ${what} ${JSON.stringify(id)} on the MoviePilot host`, { [what]: id });
const HOST_LIBRARY = '(the host library directory for this media type)';
const TRANSFER_MODE = { hardlink: 'link', copy: 'copy', move: 'move' } as const;

/**
 * Reads of the host state shared by capabilities, verifiers and goal facts.
 * @internal
 */
export class V2HostView {
  /** Set at `host.start()` when the host's own connectivity check says it cannot reach TMDB. */
  metadataUnreachable = false;

  constructor(
    readonly client: V2HostClient,
    readonly tracking: V2Tracking,
  ) {}

  /** `GET /api/v1/mediaserver/exists` — true when the library has the title (`success:false` means no). */
  async inLibrary(entity: string, kind?: 'movie' | 'tv', signal?: AbortSignal): Promise<{ present: boolean; path: string | null }> {
    const [source, id] = entity.split(':');
    if (source !== 'tmdb') return { present: false, path: null };
    try {
      const data = await this.client.call<{ item?: { path?: string } }>('library.exists', { query: { tmdbid: Number(id), mtype: kind ? typeName(kind) : undefined }, signal });
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
    return (await this.client.call<V2DownloadHistory[]>('history.download', { query: { page: 1, count: 100 }, signal })) ?? [];
  }

  async transfers(signal?: AbortSignal): Promise<V2TransferHistory[]> {
    const data = await this.client.call<{ list?: V2TransferHistory[] }>('history.transfer', { query: { page: 1, count: 100 }, signal });
    return data?.list ?? [];
  }

  /** Every download the host knows (active and history), with status, joined with the adapter's tracking. */
  async downloads(signal?: AbortSignal): Promise<Array<{ job: DownloadJob; tracked: TrackedDownload | undefined; history: V2DownloadHistory | undefined; key: string | null }>> {
    const [active, history, transfers, tracking] = await Promise.all([this.active(signal), this.downloadHistory(signal), this.transfers(signal), this.tracking.read()]);
    const hashes = new Set<string>([...active.map((a) => a.hash ?? ''), ...history.map((h) => h.download_hash ?? '')].filter(Boolean));
    const out = [];
    for (const hash of hashes) {
      const a = active.find((x) => x.hash === hash);
      const h = history.find((x) => x.download_hash === hash);
      const tracked = tracking.downloads[hash];
      const transfer = transfers.filter((t) => t.download_hash === hash).sort((x, y) => Number(y.status) - Number(x.status))[0];
      const entity = tracked?.mediaEntityId ?? (h?.tmdbid ? `tmdb:${h.tmdbid}` : a?.media?.tmdbid ? `tmdb:${a.media.tmdbid}` : h?.doubanid ? `douban:${h.doubanid}` : 'tmdb:0');
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
      all.find((d) => d.job.releaseName === payload.releaseName && (d.job.sizeBytes === payload.sizeBytes || d.job.sizeBytes === 0))
    );
  }
}

/**
 * The MoviePilot 2.x implementations of the 15 standard media capabilities, with
 * read-only verifiers for `download.submit` (downloader task list: hash, else title + size) and
 * `organize.execute` (transfer history). The mapping to endpoints is the table in the package README.
 * @param deps - the client, the host's plan service and the adapter's tracking
 * @returns the 15 capabilities by id, for `registerStandardCapabilities`
 * @internal
 */
export function v2StandardCapabilities(deps: { view: V2HostView; plans: PlanService }): StandardImplementations {
  const { view, plans } = deps;
  const { client, tracking } = view;
  const releases = new Map<string, { torrent: V2TorrentInfo; media: V2MediaInfo; entity: string }>();

  const detail = async (entity: string, kind: 'movie' | 'tv' | undefined, signal: AbortSignal): Promise<V2MediaInfo | undefined> => {
    for (const k of kind ? [kind] : (['movie', 'tv'] as const)) {
      const info = await client.call<V2MediaInfo>('media.detail', { path: { mediaid: entity }, query: { type_name: typeName(k) }, signal });
      if (info && entityOf(info)) return info;
    }
    return undefined;
  };
  const findRelease = async (releaseId: string, signal: AbortSignal) => {
    const cached = releases.get(releaseId);
    if (cached) return cached;
    const last = (await client.call<V2Context[]>('search.last', { signal })) ?? [];
    for (const c of last) {
      if (!c.torrent_info || !c.media_info) continue;
      const entity = entityOf(c.media_info);
      if (entity) releases.set(releaseIdOf(c.torrent_info), { torrent: c.torrent_info, media: c.media_info, entity });
    }
    const found = releases.get(releaseId);
    if (!found) throw notFound('release', releaseId);
    return found;
  };
  const taskOf = (d: Awaited<ReturnType<V2HostView['downloads']>>[number]): Task => ({
    id: d.job.id,
    type: 'download',
    status: d.job.status,
    mediaEntityId: d.job.mediaEntityId,
    title: d.job.title,
    planId: d.job.planId || null,
    idempotencyKey: d.key,
    updatedAt: d.job.updatedAt,
    download: d.job,
    organize: null,
  });
  const downloadOrThrow = async (hash: string, signal: AbortSignal) => {
    const d = (await view.downloads(signal)).find((x) => x.job.id === hash);
    if (!d) throw notFound('download', hash);
    return d;
  };
  const planOf = (ctx: HandlerContext, type: 'download' | 'organize', planId: string) => {
    const plan = ctx.plan;
    if (!plan) throw new MediaStateError('MEDIA_NOT_FOUND', `no plan ${JSON.stringify(planId)}: make one with ${type}.plan first`, { planId });
    if (plan.type !== type) throw new MediaStateError('MEDIA_PLAN_CONFLICT', `plan ${plan.id} is a ${plan.type} plan, not a ${type} plan`, { planId: plan.id });
    return plan;
  };
  const transferFor = async (hash: string, signal: AbortSignal) => (await view.transfers(signal)).filter((t) => t.download_hash === hash).sort((a, b) => Number(b.status) - Number(a.status) || b.id - a.id)[0];

  return {
    'catalog.lookup': defineStandardCapability('catalog.lookup', async (input, ctx) => {
      let query = input.query.trim();
      let year = input.year;
      const exact = /^(tmdb|douban|bangumi):([A-Za-z0-9_-]+)$/.exec(query);
      let infos: V2MediaInfo[];
      if (exact) {
        const info = await detail(`${exact[1]}:${exact[2]}`, input.kind, ctx.signal);
        infos = info ? [info] : [];
      } else {
        const y = /(?:^|\s|\()((?:19|20)\d\d)\)?\s*$/.exec(query);
        if (y && year === undefined && query.slice(0, y.index).trim()) {
          year = Number(y[1]);
          query = query.slice(0, y.index).trim();
        }
        const found = (await client.call<V2MediaInfo[]>('media.search', { query: { title: query, type: 'media', page: 1, count: 20 }, signal: ctx.signal })) ?? [];
        infos = found.filter((i) => (input.kind === undefined || kindOf(i.type) === input.kind) && (year === undefined || Number.parseInt(i.year ?? '0', 10) === year));
      }
      const items = [];
      for (const info of infos.slice(0, input.limit ?? 10)) {
        const entity = entityOf(info);
        if (!entity) continue;
        const item = mediaItem(info, (await view.inLibrary(entity, kindOf(info.type), ctx.signal)).present);
        if (item) items.push(item);
      }
      if (items.length === 1) await tracking.touch(ctx.runId, { entities: [items[0]!.mediaEntityId] });
      // A host that cannot reach TMDB answers 200 [] exactly as for an unknown title: say which it is.
      if (items.length === 0 && view.metadataUnreachable)
        throw new MediaStateError('MEDIA_NOT_FOUND', `${JSON.stringify(input.query)} not found (host metadata source unreachable): the MoviePilot host cannot reach TMDB, so it finds no title at all`, { query: input.query, metadataUnreachable: true });
      return { items };
    }),

    'release.search': defineStandardCapability('release.search', async (input, ctx) => {
      const entity = v2MediaId(input.mediaSource, input.mediaId);
      await tracking.touch(ctx.runId, { entities: [entity] });
      let contexts: V2Context[] = [];
      try {
        contexts = (await client.call<V2Context[]>('search.media', { path: { mediaid: entity }, query: { season: input.season !== undefined ? String(input.season) : undefined }, signal: ctx.signal })) ?? [];
      } catch (error) {
        // Only the host's explicit no-result message means "no releases"; anything else (media not
        // recognized, no indexer sites, site authentication) is a failure with the host's message.
        if (!(error instanceof HostOperationError) || !isNoResult(error.hostMessage)) throw error;
      }
      const library = await view.inLibrary(entity, undefined, ctx.signal);
      const rank = (r: string) => ['480p', '720p', '1080p', '2160p'].indexOf(r);
      const list = contexts
        .filter((c) => c.torrent_info)
        .map((c) => {
          releases.set(releaseIdOf(c.torrent_info!), { torrent: c.torrent_info!, media: c.media_info ?? {}, entity });
          return releaseOf(c.torrent_info!, entity, library.present);
        })
        .filter((r) => (input.minResolution === undefined || rank(r.resolution) >= rank(input.minResolution)) && (input.maxSizeBytes === undefined || r.sizeBytes <= input.maxSizeBytes))
        .sort((a, b) => rank(b.resolution) - rank(a.resolution) || b.seeders - a.seeders)
        .slice(0, input.limit ?? 10);
      return { mediaEntityId: entity, releases: list };
    }),

    'release.inspect': defineStandardCapability('release.inspect', async (input, ctx) => {
      const r = await findRelease(input.releaseId, ctx.signal);
      const library = await view.inLibrary(r.entity, undefined, ctx.signal);
      const release = releaseOf(r.torrent, r.entity, library.present);
      return { release, files: [{ path: release.name, sizeBytes: release.sizeBytes }], freeleech: r.torrent.downloadvolumefactor === 0, publishedAt: msOf(r.torrent.pubdate ?? null) };
    }),

    'identity.resolve': defineStandardCapability('identity.resolve', async (input, ctx) => {
      const entity = v2MediaId(input.mediaSource, input.mediaId);
      if (!(await detail(entity, input.kind, ctx.signal))) throw notFound('title', entity);
      let previous: string | null = null;
      if (input.subjectType === 'release') {
        const r = await findRelease(input.subjectId, ctx.signal);
        previous = r.entity;
        releases.set(input.subjectId, { ...r, entity });
      } else {
        const d = await downloadOrThrow(input.subjectId, ctx.signal);
        if (d.job.status === 'imported') throw new MediaStateError('MEDIA_INVALID_STATE', `download ${d.job.id} is already imported; organize it again instead`, { downloadId: d.job.id });
        previous = d.job.mediaEntityId;
      }
      await tracking.update((s) => void (s.identities[`${input.subjectType}:${input.subjectId}`] = entity));
      await tracking.touch(ctx.runId, { entities: [entity] });
      return { subjectType: input.subjectType, subjectId: input.subjectId, mediaEntityId: entity, previousMediaEntityId: previous };
    }),

    'download.plan': defineStandardCapability('download.plan', async (input, ctx) => {
      const entity = v2MediaId(input.mediaSource, input.mediaId);
      await tracking.touch(ctx.runId, { entities: [entity] });
      const r = await findRelease(input.releaseId, ctx.signal);
      const identities = (await tracking.read()).identities;
      const releaseEntity = identities[`release:${input.releaseId}`] ?? r.entity;
      if (releaseEntity !== entity) throw new MediaStateError('MEDIA_INVALID_STATE', `release ${input.releaseId} is a release of ${releaseEntity}, not ${entity}`, { releaseId: input.releaseId, mediaEntityId: entity });
      if (kindOf(r.media.type) !== input.kind) throw new MediaStateError('MEDIA_INVALID_STATE', `${entity} is a ${kindOf(r.media.type)}, not a ${input.kind}`, { mediaEntityId: entity });
      if ((await view.inLibrary(entity, input.kind, ctx.signal)).present) throw new MediaStateError('MEDIA_ALREADY_IN_LIBRARY', `${r.media.en_title ?? r.media.title} (${entity}) is already in the library: nothing to download`, { mediaEntityId: entity });
      const active = (await view.downloads(ctx.signal)).find((d) => d.job.mediaEntityId === entity && ['queued', 'downloading', 'stalled'].includes(d.job.status));
      if (active) throw new MediaStateError('MEDIA_ALREADY_DOWNLOADING', `${active.job.title} is already being downloaded as ${active.job.id}`, { mediaEntityId: entity, downloadId: active.job.id });
      const release = releaseOf(r.torrent, entity, false);
      const title = r.media.en_title ?? r.media.title ?? release.name;
      const payload: DownloadPayload = {
        type: 'download',
        mediaEntityId: entity,
        title,
        kind: input.kind,
        releaseId: release.releaseId,
        releaseName: release.name,
        site: release.site,
        sizeBytes: release.sizeBytes,
        resolution: release.resolution,
        hash: hashOfEnclosure(r.torrent.enclosure),
        media_in: r.media,
        torrent_in: r.torrent,
      };
      const record = await plans.create({ type: 'download', payload: payload as never, actor: ctx.actor, mediaEntityId: entity, mediaKind: input.kind, bytes: release.sizeBytes });
      await tracking.touch(ctx.runId, { plans: [record.id] });
      return { plan: planReceipt(record), download: { releaseId: release.releaseId, releaseName: release.name, title, sizeBytes: release.sizeBytes } };
    }),

    'download.submit': defineStandardCapability(
      'download.submit',
      async (input, ctx) => {
        const plan = planOf(ctx, 'download', input.planId);
        const p = plan.payload as unknown as DownloadPayload;
        await tracking.touch(ctx.runId, { entities: [p.mediaEntityId], plans: [plan.id] });
        const previous = await view.downloadForPlan(p, plan.id, ctx.signal);
        if (previous && previous.job.status !== 'removed') throw new MediaStateError('MEDIA_PLAN_CONFLICT', `plan ${plan.id} was already submitted as download ${previous.job.id}`, { planId: plan.id, downloadId: previous.job.id });
        const data = await client.call<{ download_id?: string }>('download.add', { body: { media_in: p.media_in, torrent_in: p.torrent_in }, signal: ctx.signal });
        const hash = data?.download_id ?? p.hash;
        if (!hash) throw new MediaStateError('MEDIA_INVALID_STATE', 'MoviePilot accepted the download but returned no download_id');
        const tracked: TrackedDownload = { hash, planId: plan.id, releaseId: p.releaseId, releaseName: p.releaseName, mediaEntityId: p.mediaEntityId, title: p.title, sizeBytes: p.sizeBytes, submittedAt: ctx.clock.now(), idempotencyKey: ctx.idempotencyKey ?? null, cancelled: false };
        await tracking.update((s) => void (s.downloads[hash] = tracked));
        await tracking.touch(ctx.runId, { downloads: [hash] });
        const d = (await view.downloads(ctx.signal)).find((x) => x.job.id === hash);
        return ctx.pending({ download: d?.job ?? { id: hash, planId: plan.id, releaseId: p.releaseId, releaseName: p.releaseName, mediaEntityId: p.mediaEntityId, title: p.title, sizeBytes: p.sizeBytes, status: 'queued', progress: 0, submittedAt: tracked.submittedAt, updatedAt: tracked.submittedAt, organizeId: null } });
      },
      { verify: verifyV2DownloadSubmit, descriptionNote: 'On MoviePilot 2.x this is POST /api/v1/download/.' },
    ),

    'download.recheck': defineStandardCapability('download.recheck', async (input, ctx) => {
      const d = await downloadOrThrow(input.downloadId, ctx.signal);
      if (d.job.status !== 'stalled' && d.job.status !== 'failed') throw new MediaStateError('MEDIA_INVALID_STATE', `download ${d.job.id} is ${d.job.status}; only stalled or failed downloads can be rechecked or resumed`, { downloadId: d.job.id });
      await client.call('download.start', { path: { hashString: d.job.id }, signal: ctx.signal });
      await tracking.touch(ctx.runId, { downloads: [d.job.id], entities: [d.job.mediaEntityId] });
      return { action: input.action ?? 'recheck', download: (await downloadOrThrow(d.job.id, ctx.signal)).job };
    }),

    'organize.plan': defineStandardCapability('organize.plan', async (input, ctx) => {
      const d = await downloadOrThrow(input.downloadId, ctx.signal);
      const identities = (await tracking.read()).identities;
      const entity = input.mediaSource && input.mediaId ? v2MediaId(input.mediaSource, input.mediaId) : (identities[`download:${d.job.id}`] ?? d.job.mediaEntityId);
      await tracking.touch(ctx.runId, { entities: [entity] });
      if (d.job.status !== 'completed') throw new MediaStateError('MEDIA_INVALID_STATE', `download ${d.job.id} is ${d.job.status}; only a completed, not yet imported download can be organized`, { downloadId: d.job.id, status: d.job.status });
      const path = d.history?.path;
      if (!path) throw new MediaStateError('MEDIA_INVALID_STATE', `the host's download history has no path for ${d.job.id}`, { downloadId: d.job.id });
      const mode = input.mode ?? 'hardlink';
      const [source, id] = entity.split(':');
      const kind = kindOf(d.history?.type);
      const transfer: Record<string, unknown> = {
        fileitem: { storage: 'local', type: 'dir', path, name: path.split('/').pop() ?? path },
        ...(source === 'tmdb' ? { tmdbid: Number(id) } : { doubanid: id }),
        type_name: typeName(kind),
        transfer_type: TRANSFER_MODE[mode],
        scrape: false,
        from_history: false,
      };
      const payload: OrganizePayload = { type: 'organize', downloadId: d.job.id, mediaEntityId: entity, title: d.job.title, mode, targetPath: HOST_LIBRARY, files: [{ from: path, to: HOST_LIBRARY }], transfer };
      const record = await plans.create({ type: 'organize', payload: payload as never, actor: ctx.actor, mediaEntityId: entity, mediaKind: kind, bytes: 0 });
      await tracking.touch(ctx.runId, { plans: [record.id] });
      return { plan: planReceipt(record), organize: { downloadId: payload.downloadId, mediaEntityId: entity, title: payload.title, mode, targetPath: payload.targetPath, files: payload.files } };
    }),

    'organize.execute': defineStandardCapability(
      'organize.execute',
      async (input, ctx) => {
        const plan = planOf(ctx, 'organize', input.planId);
        const p = plan.payload as unknown as OrganizePayload;
        await tracking.touch(ctx.runId, { entities: [p.mediaEntityId], plans: [plan.id], downloads: [p.downloadId] });
        const done = await transferFor(p.downloadId, ctx.signal);
        if (!done?.status) {
          await client.call('transfer.manual', { query: { background: false }, body: p.transfer, signal: ctx.signal });
        }
        const record = await transferFor(p.downloadId, ctx.signal);
        if (!record) throw new MediaStateError('MEDIA_INVALID_STATE', `MoviePilot accepted the transfer of ${p.downloadId} but its transfer history has no record`, { downloadId: p.downloadId });
        await tracking.touch(ctx.runId, { organizes: [String(record.id)] });
        return { organize: organizeRecord(record, plan.id) };
      },
      { verify: verifyV2OrganizeExecute, aliases: ['transfer.file', '手动整理'], descriptionNote: 'On MoviePilot 2.x this is POST /api/v1/transfer/manual (host superusers only).' },
    ),

    'task.inspect': defineStandardCapability('task.inspect', async (input, ctx) => {
      const downloads = input.type === 'organize' ? [] : await view.downloads(ctx.signal);
      let tasks: Task[] = downloads.map(taskOf);
      if (input.planId !== undefined && !tasks.some((t) => t.planId === input.planId)) {
        // a plan whose submit answer was lost: find its download by hash, else title + size
        const plan = await plans.get(input.planId).catch(() => undefined);
        if (plan?.type === 'download') {
          const match = await view.downloadForPlan(plan.payload as unknown as DownloadPayload, plan.id, ctx.signal);
          if (match) tasks = tasks.map((t) => (t.id === match.job.id ? { ...t, planId: plan.id, download: t.download ? { ...t.download, planId: plan.id } : null } : t));
        }
      }
      if (input.type !== 'download') {
        for (const t of await view.transfers(ctx.signal)) {
          const org = organizeRecord(t, null);
          tasks.push({ id: org.id, type: 'organize', status: org.status, mediaEntityId: org.mediaEntityId, title: org.title, planId: null, idempotencyKey: null, updatedAt: org.createdAt, download: null, organize: org });
        }
      }
      tasks = tasks.filter(
        (t) =>
          (input.taskId === undefined || t.id === input.taskId) &&
          (input.planId === undefined || t.planId === input.planId) &&
          (input.mediaEntityId === undefined || t.mediaEntityId === input.mediaEntityId) &&
          (input.idempotencyKey === undefined || t.idempotencyKey === input.idempotencyKey) &&
          (input.type === undefined || t.type === input.type) &&
          (input.status === undefined || t.status === input.status),
      );
      return { tasks: tasks.slice(0, input.limit ?? 20) };
    }),

    'task.retry': defineStandardCapability('task.retry', async (input, ctx) => {
      const d = await downloadOrThrow(input.taskId, ctx.signal);
      if (d.job.status !== 'stalled' && d.job.status !== 'failed' && d.job.status !== 'downloading' && d.job.status !== 'queued')
        throw new MediaStateError('MEDIA_INVALID_STATE', `download ${d.job.id} is ${d.job.status}; only stalled or failed downloads are retried`, { taskId: d.job.id });
      await client.call('download.start', { path: { hashString: d.job.id }, signal: ctx.signal });
      await tracking.touch(ctx.runId, { downloads: [d.job.id] });
      return { task: taskOf(await downloadOrThrow(d.job.id, ctx.signal)) };
    }),

    'task.cancel': defineStandardCapability('task.cancel', async (input, ctx) => {
      const d = await downloadOrThrow(input.taskId, ctx.signal);
      if (d.job.status === 'imported') throw new MediaStateError('MEDIA_INVALID_STATE', `download ${d.job.id} is already imported; the library is not touched`, { taskId: d.job.id });
      if (d.job.status !== 'removed') {
        try {
          await client.call('download.delete', { path: { hashString: d.job.id }, signal: ctx.signal });
        } catch (error) {
          if (!(error instanceof HostOperationError)) throw error; // already gone from the downloader
        }
        await tracking.update((s) => {
          const t = s.downloads[d.job.id];
          if (t) t.cancelled = true;
          else s.downloads[d.job.id] = { hash: d.job.id, planId: '', releaseId: '', releaseName: d.job.releaseName, mediaEntityId: d.job.mediaEntityId, title: d.job.title, sizeBytes: d.job.sizeBytes, submittedAt: d.job.submittedAt, idempotencyKey: null, cancelled: true };
        });
      }
      await tracking.touch(ctx.runId, { downloads: [d.job.id] });
      return { task: taskOf(await downloadOrThrow(d.job.id, ctx.signal)) };
    }),

    'policy.preview': defineStandardCapability('policy.preview', async (input, ctx) => {
      const current = await readPolicy(client, input.kind, ctx.signal);
      const proposed = { ...current.settings, ...input.settings };
      const keys = [...new Set([...Object.keys(current.settings), ...Object.keys(proposed)])].sort();
      const changes = keys
        .filter((k) => JSON.stringify((current.settings as Record<string, unknown>)[k]) !== JSON.stringify((proposed as Record<string, unknown>)[k]))
        .map((k) => ({ field: k, from: (current.settings as Record<string, unknown>)[k] ?? null, to: (proposed as Record<string, unknown>)[k] ?? null }));
      return { kind: input.kind, revision: current.revision, current: current.settings, proposed, changes };
    }),

    'policy.apply': defineStandardCapability('policy.apply', async (input, ctx) => {
      const current = await readPolicy(client, input.kind, ctx.signal);
      if (ctx.idempotencyKey && current.key === ctx.idempotencyKey) return { kind: input.kind, revision: current.revision, settings: current.settings };
      const next = { revision: current.revision + 1, settings: { ...current.settings, ...input.settings }, key: ctx.idempotencyKey ?? null };
      await client.call('userconfig.set', { path: { key: policyKey(input.kind) }, body: next, signal: ctx.signal });
      return { kind: input.kind, revision: next.revision, settings: next.settings };
    }),

    'inventory.query': defineStandardCapability('inventory.query', async (input, ctx) => {
      const q = (input.query ?? '').trim();
      const exact = /^(tmdb|douban|bangumi):([A-Za-z0-9_-]+)$/.exec(q);
      const items: StandardOutput<'inventory.query'>['items'] = [];
      if (q) {
        let data: { item?: Record<string, unknown> } | null = null;
        try {
          data = await client.call('library.exists', { query: exact ? (exact[1] === 'tmdb' ? { tmdbid: Number(exact[2]) } : { title: q }) : { title: q }, signal: ctx.signal });
        } catch (error) {
          if (!(error instanceof HostOperationError)) throw error;
        }
        const item = data?.item as { title?: string; year?: string; type?: string; tmdbid?: number; path?: string; added?: string } | undefined;
        if (item?.tmdbid && (input.kind === undefined || kindOf(item.type) === input.kind)) {
          items.push({ mediaEntityId: `tmdb:${item.tmdbid}`, kind: kindOf(item.type), title: item.title ?? q, localizedTitle: null, year: Number.parseInt(item.year ?? '0', 10) || 0, libraryPath: item.path ?? '', sizeBytes: 0, resolution: null, addedAt: msOf(item.added) });
          await tracking.touch(ctx.runId, { entities: [`tmdb:${item.tmdbid}`] });
        }
      } else {
        const seen = new Set<string>();
        for (const t of await view.transfers(ctx.signal)) {
          if (!t.status || !t.tmdbid || seen.has(`tmdb:${t.tmdbid}`)) continue;
          seen.add(`tmdb:${t.tmdbid}`);
          items.push({ mediaEntityId: `tmdb:${t.tmdbid}`, kind: 'movie', title: t.title ?? '', localizedTitle: null, year: 0, libraryPath: t.dest ?? '', sizeBytes: 0, resolution: null, addedAt: msOf(t.date) });
        }
      }
      return { total: items.length, items: items.slice(0, input.limit ?? 50) };
    }),
  };
}

const policyKey = (kind: string) => `media_agent_policy_${kind}`;

async function readPolicy(client: V2HostClient, kind: string, signal: AbortSignal): Promise<{ revision: number; settings: Record<string, unknown>; key: string | null }> {
  const data = await client.call<{ value?: { revision?: number; settings?: Record<string, unknown>; key?: string | null } | null }>('userconfig.get', { path: { key: policyKey(kind) }, signal });
  const v = data?.value;
  return { revision: v?.revision ?? 0, settings: v?.settings ?? {}, key: v?.key ?? null };
}

/**
 * The V2 verifier of `download.submit`: reads the downloader's task list through `task.inspect`
 * (by plan: the info hash, else torrent title + size). A matching download settles the unknown call
 * `succeeded`; none settles it `failed` (verifiably not added).
 * @public
 */
export const verifyV2DownloadSubmit: Verifier<{ planId: string }, StandardOutput<'download.submit'>> = async ({ input, read }) => {
  const result = (await read('task.inspect', { planId: input.planId, type: 'download' })) as StandardOutput<'task.inspect'>;
  const job = result.tasks.find((t) => t.type === 'download' && t.download !== null && t.download.status !== 'removed')?.download;
  if (!job) return { status: 'failed', reason: `the downloader has no task for plan ${input.planId} (by hash, title or size)` };
  return { status: 'succeeded', output: { download: { ...job, planId: input.planId } } };
};

/**
 * The V2 verifier of `organize.execute`: reads the transfer history through `task.inspect`. A
 * succeeded transfer of the plan's download settles the call `succeeded`; none settles it `failed`.
 * @public
 */
export const verifyV2OrganizeExecute: Verifier<{ planId: string }, StandardOutput<'organize.execute'>> = async ({ input, read }) => {
  const downloadId = await planDownload(read, input.planId);
  const history = (await read('task.inspect', { type: 'organize', limit: 100 })) as StandardOutput<'task.inspect'>;
  const record = history.tasks.find((t) => t.organize !== null && t.organize.downloadId === downloadId && t.organize.status === 'succeeded')?.organize;
  if (!record) return { status: 'failed', reason: `the transfer history has no successful transfer of ${downloadId ?? 'the plan'}` };
  return { status: 'succeeded', output: { organize: { ...record, planId: input.planId, automatic: false } } };
};

async function planDownload(read: (id: string, input: unknown) => Promise<unknown>, planId: string): Promise<string | undefined> {
  const out = (await read('moviepilot.plan.inspect', { planId })) as { downloadId: string | null };
  return out.downloadId ?? undefined;
}

/**
 * A read capability the organize verifier uses: the download an organize plan targets.
 * @internal
 */
export function planInspectCapability(plans: PlanService): Capability {
  return defineCapability({
    id: 'moviepilot.plan.inspect',
    version: 1,
    title: 'Inspect an organize or download plan',
    description: 'Shows which host download an SDK plan (download or organize) targets.',
    kind: 'read',
    replay: 'safe',
    input: Type.Object({ planId: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false }),
    output: Type.Object({ planId: Type.String(), type: Type.String(), downloadId: Type.Union([Type.String(), Type.Null()]), mediaEntityId: Type.Union([Type.String(), Type.Null()]) }),
    handler: async (input) => {
      const plan = await plans.get(input.planId);
      const payload = plan.payload as { downloadId?: string; hash?: string | null };
      return { planId: plan.id, type: plan.type, downloadId: payload.downloadId ?? payload.hash ?? null, mediaEntityId: plan.mediaEntityId };
    },
  }) as unknown as Capability;
}

const SubscriptionRef = {
  mediaSource: Type.Union([Type.Literal('tmdb'), Type.Literal('douban')], { description: 'tmdb or douban (MoviePilot 2.x identities).' }),
  mediaId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
  season: Type.Optional(Type.Integer({ minimum: 1 })),
};
const SubscriptionView = Type.Union([Type.Object({ id: Type.Integer(), name: Type.String(), state: Type.String(), season: Type.Union([Type.Integer(), Type.Null()]) }), Type.Null()]);

/**
 * Host capabilities for subscriptions: `moviepilot.subscription.find` (read, `GET /api/v1/subscribe/media/{mediaid}`)
 * and `moviepilot.subscription.add` (execute, `POST /api/v1/subscribe/`, replay `never`, settled by looking the
 * subscription up).
 * @internal
 */
export function subscriptionCapabilities(view: V2HostView): Capability[] {
  const { client, tracking } = view;
  const find = defineCapability({
    id: 'moviepilot.subscription.find',
    version: 1,
    title: 'Find the subscription of a title',
    description: 'Looks up the MoviePilot subscription (订阅) of one title by TMDB or Douban id; null when there is none.',
    kind: 'read',
    replay: 'safe',
    tags: ['subscription', 'subscribe'],
    aliases: ['订阅', '查看订阅'],
    input: Type.Object(SubscriptionRef, { additionalProperties: false }),
    output: Type.Object({ subscription: SubscriptionView }),
    handler: async (input, ctx) => {
      const s = await client.call<{ id?: number | null; name?: string | null; state?: string | null; season?: number | null }>('subscribe.media', {
        path: { mediaid: `${input.mediaSource}:${input.mediaId}` },
        query: { season: input.season },
        signal: ctx.signal,
      });
      return { subscription: s?.id ? { id: s.id, name: s.name ?? '', state: s.state ?? '', season: s.season ?? null } : null };
    },
  });
  const add = defineCapability({
    id: 'moviepilot.subscription.add',
    version: 1,
    title: 'Subscribe to a title',
    description: 'Adds a MoviePilot subscription (订阅): the host then searches and downloads new releases of the title by itself.',
    kind: 'execute',
    replay: 'never',
    policy: 'acquisition',
    tags: ['subscription', 'subscribe', 'acquire'],
    aliases: ['订阅', '添加订阅'],
    input: Type.Object({ ...SubscriptionRef, kind: Type.Union([Type.Literal('movie'), Type.Literal('tv')]), name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
    output: Type.Object({ subscriptionId: Type.Integer() }),
    target: (i) => ({ mediaEntityId: `${i.mediaSource}:${i.mediaId}`, mediaKind: i.kind }),
    verify: async ({ input, read }) => {
      const out = (await read('moviepilot.subscription.find', { mediaSource: input.mediaSource, mediaId: input.mediaId, ...(input.season ? { season: input.season } : {}) })) as { subscription: { id: number } | null };
      return out.subscription ? { status: 'succeeded', output: { subscriptionId: out.subscription.id } } : { status: 'failed', reason: 'the host has no subscription of this title' };
    },
    handler: async (input, ctx) => {
      const body = { name: input.name, type: typeName(input.kind), ...(input.mediaSource === 'tmdb' ? { tmdbid: Number(input.mediaId) } : { doubanid: input.mediaId }), ...(input.season ? { season: input.season } : {}) };
      const data = await client.call<{ id?: number }>('subscribe.create', { body, signal: ctx.signal });
      await tracking.touch(ctx.runId, { entities: [`${input.mediaSource}:${input.mediaId}`] });
      if (typeof data?.id !== 'number') throw new MediaStateError('MEDIA_INVALID_STATE', 'MoviePilot accepted the subscription but returned no id');
      return { subscriptionId: data.id };
    },
  });
  return [find as unknown as Capability, add as unknown as Capability];
}
