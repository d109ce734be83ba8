import { MediaStateError, defineStandardCapability, mediaEntityId } from '@media-agent/sdk/media';
import { v3Unsupported } from '../errors';
import { fromV3Identity } from '../identity';
import { type V3Context, releaseIdOf, rank } from './mapping';
import type { V3Services, V3StandardHelpers } from './services';

/**
 * Release search and inspection (`search.torrents`, `search.results`) and re-identification of a release.
 * @param s - the services of one host
 * @param h - the shared reads and views
 * @returns `release.search`, `release.inspect`, `identity.resolve` by id
 * @internal
 */
export function v3ReleaseCapabilities(s: V3Services, h: V3StandardHelpers) {
  const { client, journal } = s;
  const { lookupLibrary, releaseView, searchReleases, metadataCause } = h;
  return {
    'release.search': defineStandardCapability('release.search', async (input, ctx) => {
      const { entity, list } = await searchReleases(input, undefined, ctx.signal);
      journal.touch(ctx.runId, entity, entity);
      const cause = list.length === 0 ? metadataCause(entity) : undefined;
      if (cause) throw cause;
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
