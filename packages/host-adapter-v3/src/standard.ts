import { createHash } from 'node:crypto';
import { MediaStateError, defineStandardCapability, mediaEntityId, parseMediaEntityId, planReceipt, RESOLUTIONS, type DownloadJob, type MediaItem, type PolicySettings, type Release, type StandardImplementations, type StandardOutput, type Task, type StandardInput } from '@media-agent/sdk/media';
import { type PlanService, type Verifier, MediaAgentError } from '@media-agent/sdk';
import type { V3Client } from './client';
import { V3UnsupportedError, V3HostError } from './errors';
import { fromV3Identity, toV3Identity } from './identity';
import type { V3JournalDownload, V3RunJournal } from './journal';

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
  plans: PlanService;
  journal: V3RunJournal;
  settings: V3MediaSettings;
  policies: Map<string, { revision: number; settings: PolicySettings }>;
  releases: Map<string, { context: V3Context; mediaEntityId: string }>;
  identities: Map<string, string>;
}

/** A search result candidate (`search.torrents`, `search.results`). @internal */
export interface V3Context {
  meta_info?: { name?: string; year?: string | null; resource_pix?: string; resource_type?: string; video_encode?: string; begin_season?: number | null } | null;
  media_info?: Record<string, unknown> | null;
  torrent_info: { title: string; description?: string; enclosure: string; site_name?: string; size?: number; seeders?: number; pubdate?: string; downloadvolumefactor?: number; page_url?: string };
}

interface V3DownloadTask {
  hash: string;
  title: string;
  size?: number;
  progress?: number;
  state?: string;
  media?: Record<string, unknown>;
}

interface V3TransferRecord {
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
const TRANSFER_TYPE = { hardlink: 'link', copy: 'copy', move: 'move' } as const;

/** Release id of a candidate: `r` + 16 hex of SHA-256 over site and enclosure. @internal */
export function releaseIdOf(c: V3Context): string {
  return `r${createHash('sha256').update(`${c.torrent_info.site_name ?? ''}\n${c.torrent_info.enclosure}`).digest('hex').slice(0, 16)}`;
}

const rank = (r: string) => RESOLUTIONS.indexOf(r as (typeof RESOLUTIONS)[number]);
function resolutionOf(c: V3Context): Release['resolution'] {
  const s = `${c.meta_info?.resource_pix ?? ''} ${c.torrent_info.title}`.toLowerCase();
  if (/2160p|4k|uhd/.test(s)) return '2160p';
  if (/1080[pi]/.test(s)) return '1080p';
  if (/720p/.test(s)) return '720p';
  return '480p';
}
function sourceOf(c: V3Context): Release['source'] {
  const s = `${c.meta_info?.resource_type ?? ''} ${c.torrent_info.title}`.toLowerCase();
  if (s.includes('remux')) return 'Remux';
  if (/blu-?ray|bdrip/.test(s)) return 'BluRay';
  if (s.includes('hdtv')) return 'HDTV';
  return 'WEB-DL';
}
const kindOf = (type: unknown): 'movie' | 'tv' => (type === '电视剧' || type === 'tv' || type === 'TV' ? 'tv' : 'movie');
const typeName = (kind: 'movie' | 'tv' | undefined) => (kind === 'tv' ? '电视剧' : '电影');

/** SDK download status of a V3 downloader task plus the transfer history. @internal */
export function downloadStatusOf(task: V3DownloadTask | undefined, transfers: V3TransferRecord[]): DownloadJob['status'] {
  if (transfers.some((t) => (t.state ?? (t.status ? 'completed' : 'failed')) === 'completed')) return 'imported';
  if (!task) return 'removed';
  const s = String(task.state ?? '').toLowerCase();
  if (s === 'completed' || s === 'seeding' || (task.progress ?? 0) >= 100) return 'completed';
  if (s === 'queued' || s === 'pending') return 'queued';
  if (s === 'stalled' || s === 'paused') return 'stalled';
  if (s === 'error' || s === 'failed') return 'failed';
  return 'downloading';
}

/** Reads the downloader's task list and the transfer history (used by task.inspect, verifiers and GoalFacts). @internal */
export async function readHostState(client: V3Client, signal?: AbortSignal): Promise<{ tasks: V3DownloadTask[]; transfers: V3TransferRecord[] }> {
  const [tasks, history] = await Promise.all([
    client.ok<V3DownloadTask[]>('download.tasks.active', signal ? { signal } : {}),
    client.ok<{ list: V3TransferRecord[]; total: number }>('transfer.history', { query: { page: 1, count: 200 }, ...(signal ? { signal } : {}) }),
  ]);
  return { tasks: Array.isArray(tasks.data) ? tasks.data : [], transfers: history.data?.list ?? [] };
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
 */
export function v3StandardCapabilities(s: V3Services): StandardImplementations {
  const { client, plans, journal } = s;

  const lookupLibrary = async (entity: string, signal: AbortSignal): Promise<string | null> => {
    const ref = parseMediaEntityId(entity);
    if (!ref) return null;
    const r = await client.ok<{ item?: { id?: string | number } }>('library.exists', { query: toV3Identity(ref), signal });
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
  const searchReleases = async (ref: { mediaSource: Parameters<typeof toV3Identity>[0]['mediaSource']; mediaId: string }, kind: 'movie' | 'tv' | undefined, signal: AbortSignal) => {
    const entity = mediaEntityId(ref);
    const r = await client.ok<V3Context[]>('search.torrents', { pathParams: { media_id: ref.mediaId }, query: { media_source: toV3Identity(ref).media_source, ...(kind ? { mtype: typeName(kind) } : {}) }, signal });
    const list = Array.isArray(r.data) ? r.data : [];
    for (const c of list) s.releases.set(releaseIdOf(c), { context: c, mediaEntityId: entity });
    return { entity, list };
  };
  const jobView = (d: V3JournalDownload, task: V3DownloadTask | undefined, transfers: V3TransferRecord[], now: number): DownloadJob => {
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
      progress: status === 'imported' || status === 'completed' ? 1 : Math.min(1, Math.max(0, (task?.progress ?? 0) / 100)),
      submittedAt: d.submittedAt,
      updatedAt: now,
      organizeId: organized ? `th-${organized.id}` : null,
    };
  };
  const planOf = (plan: { type: string; id: string } | undefined, type: 'download' | 'organize') => {
    if (!plan || plan.type !== type) throw new MediaStateError('MEDIA_PLAN_CONFLICT', `plan ${plan?.id ?? '?'} is not a ${type} plan`, { planId: plan?.id });
    return plan;
  };

  const implementations = {
    'catalog.lookup': defineStandardCapability('catalog.lookup', async (input, ctx) => {
      const exact = parseMediaEntityId(input.query.trim());
      let raw: Array<Record<string, unknown>>;
      if (exact) {
        const r = await client.call<Record<string, unknown>>('media.detail', { pathParams: { media_id: exact.mediaId }, query: { media_source: toV3Identity(exact).media_source, type_name: typeName(input.kind) }, signal: ctx.signal });
        raw = r.success && r.data ? [r.data] : [];
      } else {
        const r = await client.ok<Array<Record<string, unknown>>>('media.search', { query: { title: input.query, type: 'media', page: 1, count: Math.min(input.limit ?? 10, 200) }, signal: ctx.signal });
        raw = Array.isArray(r.data) ? r.data : [];
      }
      const items: MediaItem[] = [];
      for (const m of raw) {
        const item = await mediaItem(m, ctx.signal);
        if (item && (input.kind === undefined || item.kind === input.kind) && (input.year === undefined || item.year === input.year)) items.push(item);
      }
      const limited = items.slice(0, input.limit ?? 10);
      if (limited.length === 1) journal.touch(ctx.runId, limited[0]!.mediaEntityId, limited[0]!.title);
      return { items: limited };
    }),

    'release.search': defineStandardCapability('release.search', async (input, ctx) => {
      const { entity, list } = await searchReleases(input, undefined, ctx.signal);
      journal.touch(ctx.runId, entity, entity);
      const inLibrary = (await lookupLibrary(entity, ctx.signal)) !== null;
      const policy = s.policies.get('acquisition')?.settings ?? {};
      const minRes = [input.minResolution, policy.minResolution].filter((r): r is NonNullable<typeof r> => r !== undefined).map(rank);
      const maxSize = Math.min(input.maxSizeBytes ?? Infinity, policy.maxSizeBytes ?? Infinity);
      const releases = list
        .map((c) => releaseView(c, entity, inLibrary))
        .filter((r) => (input.season === undefined || r.season === input.season) && minRes.every((m) => rank(r.resolution) >= m) && r.sizeBytes <= maxSize)
        .sort((a, b) => rank(b.resolution) - rank(a.resolution) || b.seeders - a.seeders || a.releaseId.localeCompare(b.releaseId))
        .slice(0, input.limit ?? 10);
      return { mediaEntityId: entity, releases };
    }),

    'release.inspect': defineStandardCapability('release.inspect', async (input, ctx) => {
      let known = s.releases.get(input.releaseId);
      if (!known) {
        const r = await client.ok<V3Context[]>('search.results', { signal: ctx.signal });
        const c = (Array.isArray(r.data) ? r.data : []).find((x) => releaseIdOf(x) === input.releaseId);
        const id = c?.media_info ? fromV3Identity(c.media_info.media_source, c.media_info.media_id) : undefined;
        if (c && id) known = { context: c, mediaEntityId: id.mediaEntityId };
      }
      if (!known) throw new MediaStateError('MEDIA_NOT_FOUND', `no release ${JSON.stringify(input.releaseId)} in the latest searches; search releases again`, { releaseId: input.releaseId });
      journal.touch(ctx.runId, known.mediaEntityId, known.mediaEntityId);
      const release = releaseView(known.context, known.mediaEntityId, (await lookupLibrary(known.mediaEntityId, ctx.signal)) !== null);
      const published = Date.parse(`${(known.context.torrent_info.pubdate ?? '').replace(' ', 'T')}Z`);
      return { release, files: [{ path: `${release.name}`, sizeBytes: release.sizeBytes }], freeleech: known.context.torrent_info.downloadvolumefactor === 0, publishedAt: Number.isFinite(published) ? published : 0 };
    }),

    'identity.resolve': defineStandardCapability('identity.resolve', async (input, ctx) => {
      if (input.subjectType === 'download') throw new V3UnsupportedError('identity.resolve', 'a download is re-identified when it is organized: use organize.plan with mediaSource and mediaId');
      const entity = mediaEntityId(input);
      const known = s.releases.get(input.subjectId);
      if (!known) throw new MediaStateError('MEDIA_NOT_FOUND', `no release ${JSON.stringify(input.subjectId)} in the latest searches`, { releaseId: input.subjectId });
      const previous = s.identities.get(input.subjectId) ?? known.mediaEntityId;
      s.identities.set(input.subjectId, entity);
      journal.touch(ctx.runId, entity, entity);
      return { subjectType: 'release' as const, subjectId: input.subjectId, mediaEntityId: entity, previousMediaEntityId: previous };
    }),

    'download.plan': defineStandardCapability('download.plan', async (input, ctx) => {
      const entity = mediaEntityId(input);
      journal.touch(ctx.runId, entity, entity);
      let known = s.releases.get(input.releaseId);
      if (!known || known.mediaEntityId !== entity) {
        await searchReleases(input, input.kind, ctx.signal);
        known = s.releases.get(input.releaseId);
      }
      if (!known) throw new MediaStateError('MEDIA_NOT_FOUND', `no release ${JSON.stringify(input.releaseId)} for ${entity}`, { releaseId: input.releaseId, mediaEntityId: entity });
      const title = String(known.context.media_info?.title ?? known.context.meta_info?.name ?? entity);
      journal.touch(ctx.runId, entity, title);
      const torrent = known.context.torrent_info;
      const download = { releaseId: input.releaseId, releaseName: torrent.title, title, sizeBytes: Math.max(0, Math.round(torrent.size ?? 0)) };
      if ((await lookupLibrary(entity, ctx.signal)) !== null) throw new MediaStateError('MEDIA_ALREADY_IN_LIBRARY', `${title} (${entity}) is already in the library: nothing to download`, { mediaEntityId: entity });
      const active = await client.ok<V3DownloadTask[]>('download.tasks.active', { signal: ctx.signal });
      const same = (Array.isArray(active.data) ? active.data : []).find((t) => t.title === torrent.title || (fromV3Identity(t.media?.media_source, t.media?.media_id)?.mediaEntityId === entity && t.state !== 'completed'));
      if (same) throw new MediaStateError('MEDIA_ALREADY_DOWNLOADING', `${title} is already being downloaded as ${same.hash}`, { mediaEntityId: entity, downloadId: same.hash });
      const payload = {
        type: 'download',
        mediaEntityId: entity,
        title,
        kind: input.kind,
        releaseId: input.releaseId,
        releaseName: torrent.title,
        site: torrent.site_name ?? '',
        sizeBytes: download.sizeBytes,
        identity: toV3Identity(input),
        torrent_in: JSON.parse(JSON.stringify(torrent)) as Record<string, unknown>,
        allowUnrecognized: false,
      };
      const record = await plans.create({ type: 'download', payload: payload as never, actor: ctx.actor, mediaEntityId: entity, mediaKind: input.kind, bytes: download.sizeBytes });
      journal.addPlan(ctx.runId, { id: record.id, type: 'download', mediaEntityId: entity });
      return { plan: planReceipt(record), download };
    }),

    'download.submit': defineStandardCapability(
      'download.submit',
      async (input, ctx) => {
        const plan = planOf(ctx.plan, 'download') as NonNullable<typeof ctx.plan>;
        const p = plan.payload as unknown as DownloadPlanPayload;
        journal.addPlan(ctx.runId, { id: plan.id, type: 'download', mediaEntityId: p.mediaEntityId });
        const body: Record<string, unknown> = { torrent_in: p.torrent_in, ...p.identity, ...(p.allowUnrecognized ? { allow_unrecognized: true } : {}) };
        if (s.settings.downloader) body.downloader = s.settings.downloader;
        if (s.settings.savePath) body.save_path = s.settings.savePath;
        const r = await client.call<{ download_id?: string; requires_confirmation?: boolean } | null>('download.add', { body, signal: ctx.signal });
        if (!r.success && r.data?.requires_confirmation && !p.allowUnrecognized) {
          // The host could not recognise the media: a person must confirm. The plan is revised (new
          // payload hash and revision), so the next submit is denied until that revision is approved.
          await plans.revise(plan.id, { ...(plan.payload as object), allowUnrecognized: true } as never, plan.revision);
          throw new MediaAgentError('HOST_REQUIRES_CONFIRMATION', `MoviePilot could not recognise the media of ${p.releaseName} (${r.message}); the plan was revised to download it unrecognised — a person must approve the new revision before submitting again`, { planId: plan.id });
        }
        if (!r.success || !r.data?.download_id) throw new V3HostError('download.add', r.status, r.message, r.data);
        const d: V3JournalDownload = {
          hash: r.data.download_id,
          planId: plan.id,
          releaseId: p.releaseId,
          releaseName: p.releaseName,
          mediaEntityId: p.mediaEntityId,
          title: p.title,
          sizeBytes: p.sizeBytes,
          idempotencyKey: ctx.idempotencyKey ?? null,
          submittedAt: ctx.clock.now(),
        };
        journal.addDownload(ctx.runId, d);
        return ctx.pending({ download: jobView(d, { hash: d.hash, title: d.releaseName, state: 'queued', progress: 0 }, [], ctx.clock.now()) });
      },
      { verify: verifyV3DownloadSubmit(s), descriptionNote: 'On MoviePilot V3 this calls download.add; when the host cannot recognise the media, the plan is revised and needs a new approval before it is sent with allow_unrecognized.' },
    ),

    'download.recheck': defineStandardCapability('download.recheck', async () => {
      throw new V3UnsupportedError('download.recheck', 'torrent start/stop/recheck left the V3 operation catalog (downloader-operation skill); ask a person to use the downloader');
    }),

    'organize.plan': defineStandardCapability('organize.plan', async (input, ctx) => {
      const { tasks, transfers } = await readHostState(client, ctx.signal);
      const task = tasks.find((t) => t.hash === input.downloadId);
      const known = journal.download(input.downloadId);
      const status = downloadStatusOf(task, transfers.filter((t) => t.download_hash === input.downloadId));
      if (status !== 'completed') throw new MediaStateError('MEDIA_INVALID_STATE', `download ${input.downloadId} is ${status}; only a completed, not yet organized download can be organized`, { downloadId: input.downloadId, status });
      const history = await client.ok<Array<{ path?: string; download_hash?: string; media_source?: string; media_id?: string; title?: string }>>('download.history.list', { query: { page: 1, count: 200 }, signal: ctx.signal });
      const h = (Array.isArray(history.data) ? history.data : []).find((x) => x.download_hash === input.downloadId);
      if (!h?.path) throw new MediaStateError('MEDIA_NOT_FOUND', `MoviePilot has no download history (save path) for ${input.downloadId}`, { downloadId: input.downloadId });
      const id = input.mediaSource && input.mediaId ? { mediaSource: input.mediaSource, mediaId: input.mediaId, mediaEntityId: mediaEntityId({ mediaSource: input.mediaSource, mediaId: input.mediaId }) } : fromV3Identity(h.media_source, h.media_id);
      if (!id) throw new MediaStateError('MEDIA_INVALID_STATE', `download ${input.downloadId} has no media identity; give mediaSource and mediaId`, { downloadId: input.downloadId });
      const mode = input.mode ?? s.policies.get('organize')?.settings.organizeMode ?? 'hardlink';
      const fileitem = { storage: s.settings.storage ?? 'local', type: 'dir', path: h.path, name: h.path.split('/').pop() ?? h.path };
      const request = { fileitem, ...toV3Identity(id), transfer_type: TRANSFER_TYPE[mode] };
      const preview = await client.ok<{ items?: Array<{ source: string; target: string; target_dir?: string }> }>('transfer.file', { body: { ...request, preview: true }, signal: ctx.signal });
      const items = preview.data?.items ?? [];
      const title = known?.title ?? h.title ?? id.mediaEntityId;
      journal.touch(ctx.runId, id.mediaEntityId, title);
      const payload = { type: 'organize', downloadId: input.downloadId, mediaEntityId: id.mediaEntityId, title, mode, targetPath: items[0]?.target_dir ?? '', files: items.map((i) => ({ from: i.source, to: i.target })), request };
      const record = await plans.create({ type: 'organize', payload: payload as never, actor: ctx.actor, mediaEntityId: id.mediaEntityId, bytes: 0 });
      journal.addPlan(ctx.runId, { id: record.id, type: 'organize', mediaEntityId: id.mediaEntityId });
      return { plan: planReceipt(record), organize: { downloadId: payload.downloadId, mediaEntityId: payload.mediaEntityId, title, mode, targetPath: payload.targetPath, files: payload.files } };
    }),

    'organize.execute': defineStandardCapability('organize.execute', async (input, ctx) => {
      const plan = planOf(ctx.plan, 'organize') as NonNullable<typeof ctx.plan>;
      const p = plan.payload as unknown as OrganizePlanPayload;
      journal.addPlan(ctx.runId, { id: plan.id, type: 'organize', mediaEntityId: p.mediaEntityId });
      journal.addOrganize(ctx.runId, { planId: plan.id, downloadId: p.downloadId, mediaEntityId: p.mediaEntityId, idempotencyKey: ctx.idempotencyKey ?? null });
      const view = (records: V3TransferRecord[], error: string | null) => {
        const states = records.map(organizeStatusOf);
        const status = states.length > 0 && states.every((x) => x === 'succeeded') ? 'succeeded' : states.some((x) => x === 'running') ? 'running' : states.length === 0 ? 'running' : 'failed';
        return {
          organize: {
            id: records.length ? `th-${records[0]!.id}` : `plan-${plan.id}`,
            downloadId: p.downloadId,
            planId: plan.id,
            mediaEntityId: p.mediaEntityId,
            title: p.title,
            status,
            mode: p.mode,
            libraryPath: status === 'succeeded' ? (records[0]?.dest ?? p.targetPath) : null,
            automatic: false,
            createdAt: ctx.clock.now(),
            error,
          } as StandardOutput<'organize.execute'>['organize'],
        };
      };
      // Reconcile: a batch the host already holds (any receipt for these files) is never resubmitted.
      const before = (await readHostState(client, ctx.signal)).transfers.filter((t) => t.download_hash === p.downloadId || t.src === p.request.fileitem.path);
      if (before.length > 0) {
        const out = view(before, null);
        if (out.organize.status === 'running') return ctx.pending(out);
        if (out.organize.status === 'failed') throw new MediaStateError('MEDIA_INVALID_STATE', `MoviePilot already holds a failed transfer of these files (history ${before.map((t) => t.id).join(', ')}); retry it with task.retry`, { planId: plan.id });
        return out;
      }
      const r = await client.call<{ items?: Array<{ source: string; target?: string; target_dir?: string; state: string; message?: string; history_id?: number }> }>('transfer.file', { body: { ...p.request }, signal: ctx.signal });
      const receipts = r.data?.items ?? [];
      if (receipts.length === 0) throw new V3HostError('transfer.file', r.status, r.message || 'no receipts', r.data);
      const records: V3TransferRecord[] = receipts.map((x, i) => ({ id: x.history_id ?? i, src: x.source, dest: x.target_dir ?? x.target ?? '', state: x.state, download_hash: p.downloadId }));
      const states = receipts.map((x) => x.state);
      if (states.every((x) => x === 'completed')) return view(records, null);
      if (states.some((x) => x === 'accepted' || x === 'retry_wait')) return ctx.pending(view(records.filter((x) => x.state !== 'failed'), states.includes('failed') ? 'part of the batch failed; the accepted part is pending and is never resubmitted' : null));
      throw new MediaStateError('MEDIA_INVALID_STATE', `MoviePilot did not organize the files: ${receipts.map((x) => `${x.source}: ${x.state}${x.message ? ` (${x.message})` : ''}`).join('; ')}`, { planId: plan.id });
    }),

    'task.inspect': defineStandardCapability('task.inspect', async (input, ctx) => {
      const { tasks, transfers } = await readHostState(client, ctx.signal);
      const now = ctx.clock.now();
      const out: Task[] = [];
      const hashes = new Set([...tasks.map((t) => t.hash), ...journal.downloads().map((d) => d.hash)]);
      for (const hash of hashes) {
        const task = tasks.find((t) => t.hash === hash);
        const d = journal.download(hash) ?? synthetic(task!);
        if (!d) continue;
        const job = jobView(d, task, transfers, now);
        out.push({ id: hash, type: 'download', status: job.status, mediaEntityId: job.mediaEntityId, title: job.title, planId: journal.download(hash)?.planId ?? null, idempotencyKey: d.idempotencyKey, updatedAt: now, download: job, organize: null });
      }
      for (const t of transfers) {
        const id = fromV3Identity(t.media_source, t.media_id);
        if (!id) continue;
        const o = journal.organizes().find((x) => x.downloadId === t.download_hash);
        const status = organizeStatusOf(t);
        const createdAt = Date.parse(t.date ?? '') || now;
        out.push({
          id: `th-${t.id}`,
          type: 'organize',
          status,
          mediaEntityId: id.mediaEntityId,
          title: t.title ?? id.mediaEntityId,
          planId: o?.planId ?? null,
          idempotencyKey: o?.idempotencyKey ?? null,
          updatedAt: now,
          download: null,
          organize: { id: `th-${t.id}`, downloadId: t.download_hash ?? null, planId: o?.planId ?? null, mediaEntityId: id.mediaEntityId, title: t.title ?? '', status, mode: t.mode === 'copy' ? 'copy' : t.mode === 'move' ? 'move' : 'hardlink', libraryPath: status === 'succeeded' ? t.dest : null, automatic: !o, createdAt, error: t.errmsg || null },
        });
      }
      const tasksOut = out
        .filter(
          (t) =>
            (input.taskId === undefined || t.id === input.taskId) &&
            (input.planId === undefined || t.planId === input.planId) &&
            (input.mediaEntityId === undefined || t.mediaEntityId === input.mediaEntityId) &&
            (input.idempotencyKey === undefined || t.idempotencyKey === input.idempotencyKey) &&
            (input.type === undefined || t.type === input.type) &&
            (input.status === undefined || t.status === input.status),
        )
        .slice(0, input.limit ?? 20);
      return { tasks: tasksOut };
    }),

    'task.retry': defineStandardCapability('task.retry', async (input, ctx) => {
      const m = /^th-(\d+)$/.exec(input.taskId);
      if (!m) throw new V3UnsupportedError('task.retry', 'restarting a torrent left the V3 operation catalog; only organize records (th-<id>) can be redone');
      await client.ok('transfer.history.redo', { pathParams: { history_id: m[1]! }, signal: ctx.signal });
      const { transfers } = await readHostState(client, ctx.signal);
      const t = transfers.find((x) => String(x.id) === m[1]);
      const id = t ? fromV3Identity(t.media_source, t.media_id) : undefined;
      if (!t || !id) throw new MediaStateError('MEDIA_NOT_FOUND', `no transfer record ${m[1]}`, { taskId: input.taskId });
      const status = organizeStatusOf(t);
      return {
        task: {
          id: input.taskId, type: 'organize' as const, status, mediaEntityId: id.mediaEntityId, title: t.title ?? '', planId: null, idempotencyKey: ctx.idempotencyKey ?? null, updatedAt: ctx.clock.now(), download: null,
          organize: { id: input.taskId, downloadId: t.download_hash ?? null, planId: null, mediaEntityId: id.mediaEntityId, title: t.title ?? '', status, mode: 'hardlink' as const, libraryPath: status === 'succeeded' ? t.dest : null, automatic: false, createdAt: ctx.clock.now(), error: t.errmsg || null },
        },
      };
    }),

    'task.cancel': defineStandardCapability('task.cancel', async () => {
      throw new V3UnsupportedError('task.cancel', 'deleting a torrent (download.delete) left the V3 operation catalog for the downloader-operation skill');
    }),

    'policy.preview': defineStandardCapability('policy.preview', async (input) => {
      const current = s.policies.get(input.kind) ?? { revision: 0, settings: {} };
      const proposed = { ...current.settings, ...input.settings };
      const keys = [...new Set([...Object.keys(current.settings), ...Object.keys(proposed)])].sort();
      const changes = keys
        .filter((k) => JSON.stringify((current.settings as Record<string, unknown>)[k]) !== JSON.stringify((proposed as Record<string, unknown>)[k]))
        .map((k) => ({ field: k, from: (current.settings as Record<string, unknown>)[k] ?? null, to: (proposed as Record<string, unknown>)[k] ?? null }));
      return { kind: input.kind, revision: current.revision, current: current.settings, proposed, changes };
    }),

    'policy.apply': defineStandardCapability('policy.apply', async (input) => {
      const current = s.policies.get(input.kind) ?? { revision: 0, settings: {} };
      const next = { revision: current.revision + 1, settings: { ...current.settings, ...input.settings } };
      s.policies.set(input.kind, next);
      return { kind: input.kind, revision: next.revision, settings: next.settings };
    }),

    'inventory.query': defineStandardCapability('inventory.query', async (input, ctx) => {
      const q = (input.query ?? '').trim();
      const items: StandardOutput<'inventory.query'>['items'] = [];
      if (q) {
        const exact = parseMediaEntityId(q);
        const candidates: Array<Record<string, unknown>> = [];
        if (exact) {
          const r = await client.call<Record<string, unknown>>('media.detail', { pathParams: { media_id: exact.mediaId }, query: { media_source: toV3Identity(exact).media_source, type_name: typeName(input.kind) }, signal: ctx.signal });
          if (r.success && r.data) candidates.push(r.data);
        } else {
          const r = await client.ok<Array<Record<string, unknown>>>('media.search', { query: { title: q, type: 'media', page: 1, count: 8 }, signal: ctx.signal });
          candidates.push(...(Array.isArray(r.data) ? r.data : []));
        }
        for (const m of candidates) {
          const id = fromV3Identity(m.media_source, m.media_id);
          if (!id || (input.kind && kindOf(m.type) !== input.kind)) continue;
          const itemId = await lookupLibrary(id.mediaEntityId, ctx.signal);
          if (candidates.length === 1 || itemId !== null) journal.touch(ctx.runId, id.mediaEntityId, String(m.title ?? id.mediaEntityId));
          if (itemId === null) continue;
          items.push({ mediaEntityId: id.mediaEntityId, kind: kindOf(m.type), title: String(m.title ?? ''), localizedTitle: typeof m.cn_title === 'string' ? m.cn_title : null, year: Number.parseInt(String(m.year ?? '0'), 10) || 0, libraryPath: `mediaserver:${itemId}`, sizeBytes: 0, resolution: null, addedAt: 0 });
        }
      } else {
        const r = await client.ok<Array<Record<string, unknown>>>('library.latest', { query: { page: 1, count: Math.min(input.limit ?? 50, 200) }, signal: ctx.signal });
        for (const m of Array.isArray(r.data) ? r.data : []) {
          const id = fromV3Identity(m.media_source, m.media_id) ?? (m.tmdbid ? fromV3Identity('themoviedb', m.tmdbid) : undefined);
          if (!id || (input.kind && kindOf(m.type) !== input.kind)) continue;
          items.push({ mediaEntityId: id.mediaEntityId, kind: kindOf(m.type), title: String(m.title ?? ''), localizedTitle: null, year: Number.parseInt(String(m.year ?? '0'), 10) || 0, libraryPath: `mediaserver:${String(m.id ?? '')}`, sizeBytes: 0, resolution: null, addedAt: 0 });
        }
      }
      return { total: items.length, items: items.slice(0, input.limit ?? 50) };
    }),
  };
  return implementations;

  function synthetic(task: V3DownloadTask | undefined): V3JournalDownload | undefined {
    const id = task ? fromV3Identity(task.media?.media_source, task.media?.media_id) : undefined;
    if (!task || !id) return undefined;
    return { hash: task.hash, planId: '', releaseId: '', releaseName: task.title, mediaEntityId: id.mediaEntityId, title: String(task.media?.title ?? task.title), sizeBytes: Math.max(0, Math.round(task.size ?? 0)), idempotencyKey: null, submittedAt: 0 };
  }
}

/** The frozen payload of a V3 download plan. @internal */
interface DownloadPlanPayload {
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
interface OrganizePlanPayload {
  downloadId: string;
  mediaEntityId: string;
  title: string;
  mode: 'hardlink' | 'copy' | 'move';
  targetPath: string;
  request: { fileitem: { path: string }; media_source: string; media_id: string; transfer_type: string };
}

/**
 * The read-only verifier of `download.submit` on V3: reads the downloader's task
 * list (`mp.download.tasks.active`, through the invocation path) and looks for the plan's torrent —
 * by hash when one is known, else by torrent title and size. Found: `succeeded` with that job (and
 * the job is journaled for the run). Not found: `failed` (verifiably not added, so the submit may run).
 * @internal
 */
export function verifyV3DownloadSubmit(s: V3Services): Verifier<StandardInput<'download.submit'>, StandardOutput<'download.submit'>> {
  return async ({ input, entry, read }) => {
    const plan = await s.plans.get(input.planId);
    const p = plan.payload as unknown as DownloadPlanPayload;
    const known = s.journal.downloads().find((d) => d.planId === plan.id);
    const r = (await read('mp.download.tasks.active', {})) as { data: V3DownloadTask[] };
    const tasks = Array.isArray(r.data) ? r.data : [];
    const size = Math.round(Number(p.torrent_in.size ?? p.sizeBytes));
    const match = (known && tasks.find((t) => t.hash === known.hash)) ?? tasks.find((t) => t.title === p.torrent_in.title && Math.round(Number(t.size ?? -1)) === size);
    if (!match) return { status: 'failed', reason: `the downloader has no task ${known ? `with hash ${known.hash}` : `titled ${JSON.stringify(p.torrent_in.title)} of ${size} bytes`}` };
    const d: V3JournalDownload = { hash: match.hash, planId: plan.id, releaseId: p.releaseId, releaseName: p.releaseName, mediaEntityId: p.mediaEntityId, title: p.title, sizeBytes: p.sizeBytes, idempotencyKey: entry.key, submittedAt: entry.claimedAt };
    s.journal.addDownload(entry.runId ?? undefined, d);
    const status = downloadStatusOf(match, []);
    return {
      status: 'succeeded',
      output: { download: { id: d.hash, planId: d.planId, releaseId: d.releaseId, releaseName: d.releaseName, mediaEntityId: d.mediaEntityId, title: d.title, sizeBytes: d.sizeBytes, status, progress: Math.min(1, (match.progress ?? 0) / 100), submittedAt: d.submittedAt, updatedAt: entry.claimedAt, organizeId: null } },
    };
  };
}
