import { defineStandardCapability, MediaStateError } from '@media-agent/sdk/media';
import { entityOf, kindOf, mediaItem, type V2MediaInfo } from '../mapping';
import { kindScope, type V2StandardDeps, type V2StandardHelpers } from './services';

/**
 * Catalog lookups (`GET /api/v1/media/search`, `GET /api/v1/media/{mediaid}`) with library presence.
 * @param deps - the host view and plan service
 * @param h - the shared reads and checks
 * @returns `catalog.lookup` by id
 * @internal
 */
export function v2CatalogCapabilities(deps: V2StandardDeps, h: V2StandardHelpers) {
  const { view } = deps;
  const { client, tracking } = view;
  const { describe } = h;
  return {
    'catalog.lookup': defineStandardCapability('catalog.lookup', async (input, ctx) => {
      let query = input.query.trim();
      let year = input.year;
      const exact = /^(tmdb|douban|bangumi):([A-Za-z0-9_-]+)$/.exec(query);
      let infos: V2MediaInfo[];
      if (exact) {
        // An id may name a film and a series (one TMDB number space): list each the host describes.
        infos = await describe(`${exact[1]}:${exact[2]}`, input.kind, ctx.signal, kindScope(ctx));
      } else {
        const y = /(?:^|\s|\()((?:19|20)\d\d)\)?\s*$/.exec(query);
        if (y && year === undefined && query.slice(0, y.index).trim()) {
          year = Number(y[1]);
          query = query.slice(0, y.index).trim();
        }
        const found =
          (await client.call<V2MediaInfo[]>('media.search', {
            query: { title: query, type: 'media', page: 1, count: 20 },
            signal: ctx.signal,
          })) ?? [];
        infos = found.filter(
          (i) =>
            (input.kind === undefined || kindOf(i.type) === input.kind) &&
            (year === undefined || Number.parseInt(i.year ?? '0', 10) === year),
        );
      }
      const items = [];
      for (const info of infos.slice(0, input.limit ?? 10)) {
        const entity = entityOf(info);
        if (!entity) continue;
        view.rememberKind(entity, kindOf(info.type), kindScope(ctx));
        const item = mediaItem(info, (await view.inLibrary(entity, kindOf(info.type), ctx.signal)).present);
        if (item) items.push(item);
      }
      if (items.length === 1) await tracking.touch(ctx.runId, { entities: [items[0]!.mediaEntityId] });
      // A host that cannot reach TMDB answers 200 [] exactly as for an unknown title: ask its TMDB test
      // again (TMDB may have been lost after start) and say which it is.
      if (items.length === 0) await view.recheckMetadata(ctx.signal);
      if (items.length === 0 && view.metadataUnreachable)
        throw new MediaStateError(
          'MEDIA_NOT_FOUND',
          `${JSON.stringify(input.query)} not found (host metadata source unreachable): the MoviePilot host cannot reach TMDB, so it finds no title at all`,
          { query: input.query, metadataUnreachable: true },
        );
      return { items };
    }),
  };
}
