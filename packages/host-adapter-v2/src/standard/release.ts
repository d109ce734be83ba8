import { defineStandardCapability, MediaStateError } from '@media-agent/sdk/media';
import { HostNoIndexersError, HostOperationError, HostProtocolError } from '../errors';
import { msOf, releaseIdOf, releaseOf, typeName, v2MediaId, type V2Context } from '../mapping';
import {
  type V2StandardDeps,
  type V2StandardHelpers,
  isNoResult,
  isNoSites,
  isNotRecognised,
  kindScope,
  titleNotRecognised,
} from './services';

/**
 * `HOST_NO_INDEXERS` for a host without a usable indexer site.
 * @param entity - the title searched for
 * @param hostMessage - the host's own words, when it gave them
 */
const noIndexers = (entity: string, hostMessage?: string) =>
  new HostNoIndexersError(
    `MoviePilot has no usable indexer site${hostMessage ? ` (host said: ${hostMessage})` : ' (it lists no active site)'}, so its search for ${entity} could find nothing — add or enable an indexer site on the host (Sites), then search again`,
    { title: entity, ...(hostMessage ? { hostMessage } : {}) },
  );

/**
 * Release search and inspection (`GET /api/v1/search/media/{mediaid}`, `GET /api/v1/search/last`) and re-identification of a release.
 * @param deps - the host view and plan service
 * @param h - the shared reads and checks
 * @returns `release.search`, `release.inspect`, `identity.resolve` by id
 * @internal
 */
export function v2ReleaseCapabilities(deps: V2StandardDeps, h: V2StandardHelpers) {
  const { view } = deps;
  const { client, tracking } = view;
  const { releases, detail, findRelease, downloadOrThrow } = h;
  return {
    'release.search': defineStandardCapability('release.search', async (input, ctx) => {
      const entity = v2MediaId(input.mediaSource, input.mediaId);
      await tracking.touch(ctx.runId, { entities: [entity] });
      // The host searches by media type (TMDB movie and series ids share one number space): send the kind
      // the adapter knows (from a lookup), else the one the host describes the id as. No description at
      // all means the host cannot recognise the title, so its search could not run.
      const scope = kindScope(ctx);
      if (view.kindOf(entity, scope) === undefined && !(await detail(entity, undefined, ctx.signal, scope)))
        throw await titleNotRecognised(view, entity, undefined, ctx.signal);
      const mtype = view.kindOf(entity, scope)!; // remembered in this run by the lookup or by detail()
      let contexts: V2Context[] = [];
      let empty = false;
      try {
        const answer = await client.call<V2Context[] | null>('search.media', {
          pathParams: { mediaid: entity },
          query: {
            mtype: typeName(mtype),
            season: input.season !== undefined ? String(input.season) : undefined,
          },
          signal: ctx.signal,
        });
        // A success must carry the list its contract declares: `data: null` is no answer, not "no releases".
        if (!Array.isArray(answer))
          throw new HostProtocolError(
            'search.media',
            `MoviePilot answered search.media for ${entity} with success but ${answer === null ? 'no data' : `a ${typeof answer}`} where a list of releases is declared; nothing was taken from it`,
            { received: answer === null ? 'null' : typeof answer },
          );
        contexts = answer;
        empty = contexts.length === 0;
      } catch (error) {
        if (!(error instanceof HostOperationError)) throw error;
        if (isNotRecognised(error.hostMessage))
          throw await titleNotRecognised(view, entity, error.hostMessage, ctx.signal);
        if (isNoSites(error.hostMessage)) throw noIndexers(entity, error.hostMessage);
        // Anything but the host's explicit no-result message (site authentication, …) is a failure.
        if (!isNoResult(error.hostMessage)) throw error;
        empty = true;
      }
      if (empty) {
        // MoviePilot answers "未搜索到任何资源" alike when no site has a release, when it could not recognise
        // the title (TMDB unreachable, unknown id) and when it has no indexer site: tell them apart.
        if (!(await detail(entity, mtype, ctx.signal, scope)))
          throw await titleNotRecognised(view, entity, undefined, ctx.signal);
        if ((await view.activeSites(ctx.signal)) === 0) throw noIndexers(entity);
      }
      const library = await view.inLibrary(entity, mtype, ctx.signal);
      const rank = (r: string) => ['480p', '720p', '1080p', '2160p'].indexOf(r);
      const list = contexts
        .filter((c) => c.torrent_info)
        .map((c) => {
          releases.set(releaseIdOf(c.torrent_info!), { torrent: c.torrent_info!, media: c.media_info ?? {}, entity });
          return releaseOf(c.torrent_info!, entity, library.present);
        })
        .filter(
          (r) =>
            (input.minResolution === undefined || rank(r.resolution) >= rank(input.minResolution)) &&
            (input.maxSizeBytes === undefined || r.sizeBytes <= input.maxSizeBytes),
        )
        .sort((a, b) => rank(b.resolution) - rank(a.resolution) || b.seeders - a.seeders)
        .slice(0, input.limit ?? 10);
      return { mediaEntityId: entity, mediaSource: input.mediaSource, mediaId: input.mediaId, releases: list };
    }),
    'release.inspect': defineStandardCapability('release.inspect', async (input, ctx) => {
      const r = await findRelease(input.releaseId, ctx.signal);
      const library = await view.inLibrary(r.entity, view.kindOf(r.entity, kindScope(ctx)), ctx.signal);
      const release = releaseOf(r.torrent, r.entity, library.present);
      return {
        release,
        files: [{ path: release.name, sizeBytes: release.sizeBytes }],
        freeleech: r.torrent.downloadvolumefactor === 0,
        publishedAt: msOf(r.torrent.pubdate ?? null),
      };
    }),
    'identity.resolve': defineStandardCapability('identity.resolve', async (input, ctx) => {
      const entity = v2MediaId(input.mediaSource, input.mediaId);
      if (!(await detail(entity, input.kind, ctx.signal, kindScope(ctx))))
        throw await titleNotRecognised(view, entity, undefined, ctx.signal);
      let previous: string | null = null;
      if (input.subjectType === 'release') {
        const r = await findRelease(input.subjectId, ctx.signal);
        previous = r.entity;
        releases.set(input.subjectId, { ...r, entity });
      } else {
        const d = await downloadOrThrow(input.subjectId, ctx.signal);
        if (d.job.status === 'imported')
          throw new MediaStateError(
            'MEDIA_INVALID_STATE',
            `download ${d.job.id} is already imported; organize it again instead`,
            { downloadId: d.job.id },
          );
        previous = d.job.mediaEntityId;
      }
      await tracking.update((s) => void (s.identities[`${input.subjectType}:${input.subjectId}`] = entity));
      await tracking.touch(ctx.runId, { entities: [entity] });
      return {
        subjectType: input.subjectType,
        subjectId: input.subjectId,
        mediaEntityId: entity,
        previousMediaEntityId: previous,
      };
    }),
  };
}
