import { defineStandardCapability, MediaStateError } from '@media-agent/sdk/media';
import { HostOperationError } from '../errors';
import { msOf, releaseIdOf, releaseOf, v2MediaId, type V2Context } from '../mapping';
import { type V2StandardDeps, type V2StandardHelpers, isNoResult, notFound } from './services';

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
      let contexts: V2Context[] = [];
      try {
        contexts =
          (await client.call<V2Context[]>('search.media', {
            pathParams: { mediaid: entity },
            query: { season: input.season !== undefined ? String(input.season) : undefined },
            signal: ctx.signal,
          })) ?? [];
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
        .filter(
          (r) =>
            (input.minResolution === undefined || rank(r.resolution) >= rank(input.minResolution)) &&
            (input.maxSizeBytes === undefined || r.sizeBytes <= input.maxSizeBytes),
        )
        .sort((a, b) => rank(b.resolution) - rank(a.resolution) || b.seeders - a.seeders)
        .slice(0, input.limit ?? 10);
      return { mediaEntityId: entity, releases: list };
    }),
    'release.inspect': defineStandardCapability('release.inspect', async (input, ctx) => {
      const r = await findRelease(input.releaseId, ctx.signal);
      const library = await view.inLibrary(r.entity, undefined, ctx.signal);
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
      if (!(await detail(entity, input.kind, ctx.signal))) throw notFound('title', entity);
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
