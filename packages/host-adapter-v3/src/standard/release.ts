import { HostOperationError } from '@media-agent/host-adapter-kit';
import { MediaStateError, defineStandardCapability, mediaEntityId } from '@media-agent/sdk/media';
import { v3Unsupported } from '../errors';
import { fromV3Identity } from '../identity';
import { type V3Context, releaseIdOf, rank } from './mapping';
import {
  activeSites,
  noIndexers,
  recognisedKind,
  retestMetadata,
  searchRefusalKind,
  titleNotRecognised,
} from './search-cause';
import type { V3Services, V3StandardHelpers } from './services';

/**
 * Release search and inspection (`search.torrents`, `search.results`) and re-identification of a release.
 * A search that finds nothing says why: `MEDIA_NOT_FOUND` when the host recognises no title (naming TMDB
 * unreachable when its network test says so), `HOST_NO_INDEXERS` when it has no active indexer site, an
 * empty list only when neither holds. `identity.resolve` to a title the host does not recognise is
 * `MEDIA_NOT_FOUND`, the release left as it was.
 * @param s - the services of one host
 * @param h - the shared reads and views
 * @returns `release.search`, `release.inspect`, `identity.resolve` by id
 * @internal
 */
export function v3ReleaseCapabilities(s: V3Services, h: V3StandardHelpers) {
  const { client, journal } = s;
  const { lookupLibrary, releaseView, searchReleases } = h;
  /** `MEDIA_NOT_FOUND` for a title the host does not recognise, its network test of TMDB asked again first. */
  const notRecognised = async (entity: string, signal: AbortSignal, hostMessage?: string) => {
    await retestMetadata(s, signal);
    return titleNotRecognised(s, entity, hostMessage);
  };
  return {
    'release.search': defineStandardCapability('release.search', async (input, ctx) => {
      const entity = mediaEntityId(input);
      let list: V3Context[];
      try {
        list = (await searchReleases(input, undefined, ctx.signal)).list;
      } catch (error) {
        // A 3.x host answers a search that could not run, or found nothing, with success:false and its words.
        if (!(error instanceof HostOperationError) || error.operation !== 'search.torrents') throw error;
        const why = searchRefusalKind(error.hostMessage);
        if (why === 'not_recognised') throw await notRecognised(entity, ctx.signal, error.hostMessage);
        if (why === 'no_sites') throw noIndexers(entity, error.hostMessage);
        if (why === 'other') throw error;
        list = [];
      }
      journal.touch(ctx.runId, entity, entity);
      if (list.length === 0) {
        // "Nothing found" reads alike when no site has a release, when the host recognised no title (TMDB
        // unreachable, an unknown id) and when it has no usable indexer site: an empty list only for the first.
        if (!(await recognisedKind(client, entity, undefined, ctx.signal)))
          throw await notRecognised(entity, ctx.signal);
        if ((await activeSites(client, ctx.signal)) === 0) throw noIndexers(entity);
      }
      const inLibrary = (await lookupLibrary(entity, ctx.signal)) !== null;
      const policy = s.policies.get('acquisition')?.settings ?? {};
      const minRes = [input.minResolution, policy.minResolution]
        .filter((r): r is NonNullable<typeof r> => r !== undefined)
        .map(rank);
      const maxSize = Math.min(input.maxSizeBytes ?? Infinity, policy.maxSizeBytes ?? Infinity);
      const releases = list
        .map((c) => releaseView(c, entity, inLibrary))
        .filter(
          (r) =>
            (input.season === undefined || r.season === input.season) &&
            minRes.every((m) => rank(r.resolution) >= m) &&
            r.sizeBytes <= maxSize,
        )
        .sort(
          (a, b) =>
            rank(b.resolution) - rank(a.resolution) || b.seeders - a.seeders || a.releaseId.localeCompare(b.releaseId),
        )
        .slice(0, input.limit ?? 10);
      return { mediaEntityId: entity, mediaSource: input.mediaSource, mediaId: input.mediaId, releases };
    }),
    'release.inspect': defineStandardCapability('release.inspect', async (input, ctx) => {
      let known = s.releases.get(input.releaseId);
      if (!known) {
        const r = await client.ok<V3Context[]>('search.results', { signal: ctx.signal });
        const c = (Array.isArray(r.data) ? r.data : []).find((x) => releaseIdOf(x) === input.releaseId);
        const id = c?.media_info ? fromV3Identity(c.media_info.media_source, c.media_info.media_id) : undefined;
        if (c && id) known = { context: c, mediaEntityId: id.mediaEntityId };
      }
      if (!known)
        throw new MediaStateError(
          'MEDIA_NOT_FOUND',
          `no release ${JSON.stringify(input.releaseId)} in the latest searches; search releases again`,
          { releaseId: input.releaseId },
        );
      journal.touch(ctx.runId, known.mediaEntityId, known.mediaEntityId);
      const release = releaseView(
        known.context,
        known.mediaEntityId,
        (await lookupLibrary(known.mediaEntityId, ctx.signal)) !== null,
      );
      const published = Date.parse(`${(known.context.torrent_info.pubdate ?? '').replace(' ', 'T')}Z`);
      return {
        release,
        files: [{ path: `${release.name}`, sizeBytes: release.sizeBytes }],
        freeleech: known.context.torrent_info.downloadvolumefactor === 0,
        publishedAt: Number.isFinite(published) ? published : 0,
      };
    }),
    'identity.resolve': defineStandardCapability('identity.resolve', async (input, ctx) => {
      if (input.subjectType === 'download')
        throw v3Unsupported(
          'identity.resolve',
          'a download is re-identified when it is organized: use organize.plan with mediaSource and mediaId',
        );
      const entity = mediaEntityId(input);
      const known = s.releases.get(input.subjectId);
      if (!known)
        throw new MediaStateError(
          'MEDIA_NOT_FOUND',
          `no release ${JSON.stringify(input.subjectId)} in the latest searches`,
          { releaseId: input.subjectId },
        );
      // The title the release is bound to must be one the host recognises (else later plans send an unknown id).
      if (!(await recognisedKind(client, entity, input.kind, ctx.signal)))
        throw await notRecognised(entity, ctx.signal);
      const previous = s.identities.get(input.subjectId) ?? known.mediaEntityId;
      s.identities.set(input.subjectId, entity);
      journal.touch(ctx.runId, entity, entity);
      return {
        subjectType: 'release' as const,
        subjectId: input.subjectId,
        mediaEntityId: entity,
        previousMediaEntityId: previous,
      };
    }),
  };
}
