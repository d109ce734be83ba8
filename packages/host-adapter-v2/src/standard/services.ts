import { planOfType } from '@media-agent/host-adapter-kit';
import { MediaStateError, type Task } from '@media-agent/sdk/media';
import type { HandlerContext } from '@media-agent/sdk';
import type { PlanService } from '@media-agent/sdk/authorization';
import {
  entityOf,
  kindOf,
  releaseIdOf,
  typeName,
  type V2Context,
  type V2MediaInfo,
  type V2TorrentInfo,
} from '../mapping';
import { HostMediaAmbiguousError } from '../errors';
import type { V2HostView } from '../host-view';

/**
 * The messages MoviePilot answers `GET /api/v1/search/media/{mediaid}` with when the search ran and
 * found nothing (`app/api/endpoints/search.py` of https://github.com/jxxghp/MoviePilot).
 */
const NO_RESULT_MESSAGES = ['未搜索到任何资源'];
/** Whether a search answered "no result" rather than failing. @internal */
export const isNoResult = (message: string) => NO_RESULT_MESSAGES.includes(message.trim());

/**
 * Host messages that say the search could not recognise the media before searching (`未识别到媒体信息`,
 * `未识别到豆瓣媒体信息`, `未知的媒体ID`, `媒体ID格式错误`, `媒体信息缺少有效ID`: `app/api/endpoints/search.py` of
 * https://github.com/jxxghp/MoviePilot).
 */
const NOT_RECOGNISED =
  /未识别到.*媒体信息|媒体信息识别失败|没有找到对应的媒体信息|未知的媒体ID|媒体ID格式错误|媒体信息缺少有效ID/;
/** Whether a search failed because the host recognised no title. @internal */
export const isNotRecognised = (message: string) => NOT_RECOGNISED.test(message);
/** Host messages that say it has no usable indexer site (`未开启任何有效站点`). */
const NO_SITES = /(未开启|没有|无)(任何)?(有效|可用|索引)?站点/;
/** Whether a search failed because the host has no usable indexer site. @internal */
export const isNoSites = (message: string) => NO_SITES.test(message);

/**
 * `MEDIA_NOT_FOUND` for a title the host recognised no media for, naming the cause when the host said at
 * start that it cannot reach TMDB (its metadata source), or the host's own words.
 * @param view - the host view (TMDB reachability from `host.start()`)
 * @param entity - `tmdb:693134`
 * @param hostMessage - the host's own message, when it gave one
 * @internal
 */
export async function titleNotRecognised(
  view: V2HostView,
  entity: string,
  hostMessage?: string,
  signal?: AbortSignal,
): Promise<MediaStateError> {
  // The host recognised nothing: ask its TMDB test again, so a TMDB lost after start is named as the cause.
  await view.recheckMetadata(signal);
  if (view.metadataUnreachable)
    return new MediaStateError(
      'MEDIA_NOT_FOUND',
      `MoviePilot cannot reach TMDB, so it recognised no title for ${entity}${view.metadataMessage ? ` (its network test said: ${view.metadataMessage})` : ''} — check the host's network/proxy to TMDB; the title may well exist`,
      { title: entity, metadataUnreachable: true, cause: 'tmdb_unreachable' },
    );
  return new MediaStateError(
    'MEDIA_NOT_FOUND',
    `MoviePilot recognised no title for ${entity}${hostMessage ? ` (host said: ${hostMessage})` : ''}: check the id and its source (catalog.lookup gives both)`,
    { title: entity, ...(hostMessage ? { hostMessage } : {}) },
  );
}

/** `MEDIA_NOT_FOUND` naming what was looked for. @internal */
export const notFound = (what: string, id: string) =>
  new MediaStateError('MEDIA_NOT_FOUND', `no ${what} ${JSON.stringify(id)} on the MoviePilot host`, { [what]: id });

/** What the standard capability families of one host use: its view of the host state and its plans. @internal */
export interface V2StandardDeps {
  /** Reads of the host state. */
  view: V2HostView;
  /** The host's plan service. */
  plans: PlanService;
}

/** Reads and checks shared by the standard capability families of one host. @internal */
export type V2StandardHelpers = ReturnType<typeof v2StandardHelpers>;

/** The scope a media kind is remembered in: the run, else the task, else the actor. @param ctx - the handler context */
export const kindScope = (ctx: { runId?: string | null; taskId?: string | null; actor: string }): string =>
  ctx.runId ?? ctx.taskId ?? ctx.actor;

/** `HOST_MEDIA_AMBIGUOUS`: the id names a film and a series; the model must say which. */
function ambiguousMedia(entity: string, found: V2MediaInfo[]): HostMediaAmbiguousError {
  const named = found.map(
    (i) => `${kindOf(i.type) === 'movie' ? 'the film' : 'the series'} ${i.title ?? '?'}${i.year ? ` (${i.year})` : ''}`,
  );
  return new HostMediaAmbiguousError(
    `${entity} names both ${named.join(' and ')} on TMDB (film and series ids share one number space): look it up with catalog.lookup and its kind (movie or tv) first, then search`,
    { title: entity, kinds: found.map((i) => kindOf(i.type)) },
  );
}

/**
 * The reads and checks the standard capability families share: the release cache, media detail,
 * release lookup (cache, else the host's last search), task views, plan checks and transfers.
 * @param deps - the host view and plan service
 * @internal
 */
export function v2StandardHelpers(deps: V2StandardDeps) {
  const { view } = deps;
  const { client } = view;
  const releases = new Map<string, { torrent: V2TorrentInfo; media: V2MediaInfo; entity: string }>();

  /**
   * What the host describes an id as (media detail): of the kind given, else of each kind the id names
   * (TMDB film and series ids share one number space: both may answer). Each answer's kind is remembered
   * for the scope.
   */
  const describe = async (
    entity: string,
    kind: 'movie' | 'tv' | undefined,
    signal: AbortSignal,
    scope: string,
  ): Promise<V2MediaInfo[]> => {
    const found: V2MediaInfo[] = [];
    for (const k of kind ? [kind] : (['movie', 'tv'] as const)) {
      const info = await client.call<V2MediaInfo>('media.detail', {
        pathParams: { mediaid: entity },
        query: { type_name: typeName(k) },
        signal,
      });
      if (info && entityOf(info) && kindOf(info.type) === k) found.push(info);
    }
    if (found.length === 1) view.rememberKind(entity, kindOf(found[0]!.type), scope);
    return found;
  };
  /** The one title an id names (kind given, or only one kind answers); `undefined` when none; HOST_MEDIA_AMBIGUOUS when both do. */
  const detail = async (entity: string, kind: 'movie' | 'tv' | undefined, signal: AbortSignal, scope: string) => {
    const found = await describe(entity, kind, signal, scope);
    if (found.length > 1) throw ambiguousMedia(entity, found);
    return found[0];
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
  const planOf = (ctx: HandlerContext, type: 'download' | 'organize', planId: string) =>
    planOfType(ctx.plan, type, planId);
  const transferFor = async (hash: string, signal: AbortSignal) =>
    (await view.transfers(signal))
      .filter((t) => t.download_hash === hash)
      .sort((a, b) => Number(b.status) - Number(a.status) || b.id - a.id)[0];
  return { releases, describe, detail, findRelease, taskOf, downloadOrThrow, planOf, transferFor };
}
