import { HostNoIndexersError } from '@media-agent/host-adapter-kit';
import { MediaStateError, parseMediaEntityId } from '@media-agent/sdk/media';
import type { V3Client } from '../client';
import { toV3Identity } from '../identity';
import { typeName } from './mapping';
import type { V3Services } from './services';

/** The URL MoviePilot's own network test uses for TMDB (the host substitutes its TMDB API key). @internal */
export const TMDB_TEST_URL = 'https://api.themoviedb.org/3/movie/550?api_key={TMDBAPIKEY}';

/**
 * The message a MoviePilot resource search answers (`success:false`, HTTP 200) when it ran and found
 * nothing on any site — also when the host has no usable site or could not recognise the title
 * (`app/api/endpoints/search.py` of https://github.com/jxxghp/MoviePilot).
 */
const NO_RESULT = /^未搜索到任何资源$/;
/** Host messages that say the search recognised no media before searching. */
const NOT_RECOGNISED =
  /未识别到.*媒体信息|媒体信息识别失败|没有找到对应的媒体信息|未知的媒体ID|媒体ID格式错误|媒体信息缺少有效ID/;
/** Host messages that say it has no usable indexer site (`未开启任何有效站点`). */
const NO_SITES = /(未开启|没有|无)(任何)?(有效|可用|索引)?站点/;

/** How a resource search's `success:false` answer reads. @internal */
export function searchRefusalKind(message: string): 'no_result' | 'not_recognised' | 'no_sites' | 'other' {
  const m = message.trim();
  if (NO_SITES.test(m)) return 'no_sites';
  if (NOT_RECOGNISED.test(m)) return 'not_recognised';
  if (NO_RESULT.test(m)) return 'no_result';
  return 'other';
}

/**
 * `HOST_NO_INDEXERS` for a host without a usable indexer site.
 * @param entity - the title searched for (`tmdb:693134`)
 * @param hostMessage - the host's own words, when it gave them
 * @internal
 */
export const noIndexers = (entity: string, hostMessage?: string) =>
  new HostNoIndexersError(
    `MoviePilot has no usable indexer site${hostMessage ? ` (host said: ${hostMessage})` : ' (it lists no active site)'}, so its search for ${entity} could find nothing — add or enable an indexer site on the host (Sites), then search again`,
    { title: entity, ...(hostMessage ? { hostMessage } : {}) },
  );

/**
 * The host's own network test of TMDB (`system.network.test`), run again to name why a title was not
 * recognised: updates `s.status`; a test that cannot run leaves it as it was.
 * @internal
 */
export async function retestMetadata(s: V3Services, signal: AbortSignal): Promise<void> {
  try {
    const r = await s.client.call('system.network.test', { query: { url: TMDB_TEST_URL, proxy: true }, signal });
    s.status.metadata = r.success ? 'reachable' : 'unreachable';
    s.status.metadataMessage = r.success ? null : r.message || null;
  } catch {
    // Advisory, as at start: a host that cannot run the test leaves the state as it was.
  }
}

/**
 * `MEDIA_NOT_FOUND` for a title the host recognised no media for: naming TMDB unreachable when the host's
 * network test says so (details `metadataUnreachable: true`, `cause: 'tmdb_unreachable'`), else the id and
 * the host's own words.
 * @param s - the services (TMDB reachability)
 * @param entity - `tmdb:693134`
 * @param hostMessage - the host's message, when it gave one
 * @internal
 */
export function titleNotRecognised(s: V3Services, entity: string, hostMessage?: string): MediaStateError {
  if (s.status.metadata === 'unreachable' && parseMediaEntityId(entity)?.mediaSource === 'tmdb')
    return new MediaStateError(
      'MEDIA_NOT_FOUND',
      `MoviePilot cannot reach TMDB (host metadata source unreachable), so it recognised no title for ${entity}${s.status.metadataMessage ? ` (its network test said: ${s.status.metadataMessage})` : ''} — check the host's network/proxy to TMDB; the title may well exist`,
      { title: entity, metadataUnreachable: true, cause: 'tmdb_unreachable' },
    );
  return new MediaStateError(
    'MEDIA_NOT_FOUND',
    `MoviePilot recognised no title for ${entity}${hostMessage ? ` (host said: ${hostMessage})` : ''}: check the id and its source (catalog.lookup gives both)`,
    { title: entity, ...(hostMessage ? { hostMessage } : {}) },
  );
}

/**
 * Whether the host recognises a title (`media.detail`), trying the kind given, else movie then series
 * (the route needs `type_name`; TMDB movie and series ids share one number space).
 * @returns the kind the host described it as, or `undefined` when it recognises none (transport
 *   failures propagate)
 * @internal
 */
export async function recognisedKind(
  client: V3Client,
  entity: string,
  kind: 'movie' | 'tv' | undefined,
  signal: AbortSignal,
): Promise<'movie' | 'tv' | undefined> {
  const ref = parseMediaEntityId(entity);
  if (!ref) return undefined;
  for (const k of kind ? [kind] : (['movie', 'tv'] as const)) {
    const r = await client.call<Record<string, unknown>>('media.detail', {
      pathParams: { media_id: ref.mediaId },
      query: { media_source: toV3Identity(ref).media_source, type_name: typeName(k) },
      signal,
    });
    if (r.success && r.data && typeof r.data === 'object') return k;
  }
  return undefined;
}

/**
 * How many indexer sites the host has active (`site.list` with `status=active`), or `undefined` when
 * the route cannot be read. The answer is reduced to the count at once (nothing else is kept).
 * @internal
 */
export async function activeSites(client: V3Client, signal: AbortSignal): Promise<number | undefined> {
  try {
    const r = await client.call<unknown[]>('site.list', { query: { status: 'active' }, signal });
    if (!r.success || !Array.isArray(r.data)) return undefined;
    return r.data.filter((x) => x && typeof x === 'object' && (x as { is_active?: unknown }).is_active !== false)
      .length;
  } catch {
    return undefined;
  }
}
