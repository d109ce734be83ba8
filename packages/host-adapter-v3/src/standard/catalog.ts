import { defineStandardCapability, parseMediaEntityId, type MediaItem } from '@media-agent/sdk/media';
import { toV3Identity } from '../identity';
import { typeName } from './mapping';
import { retestMetadata } from './search-cause';
import type { V3Services, V3StandardHelpers } from './services';

/**
 * Catalog lookups (`media.search`, `media.detail`) with library presence (`library.exists`). A lookup the
 * host found nothing for asks its network test of TMDB again (`system.network.test`), so the error names
 * TMDB unreachable also when it was lost after start.
 * @param s - the services of one host
 * @param h - the shared reads and views
 * @returns `catalog.lookup` by id
 * @internal
 */
export function v3CatalogCapabilities(s: V3Services, h: V3StandardHelpers) {
  const { client, journal } = s;
  const { mediaItem, metadataCause } = h;
  return {
    'catalog.lookup': defineStandardCapability('catalog.lookup', async (input, ctx) => {
      const exact = parseMediaEntityId(input.query.trim());
      let raw: Array<Record<string, unknown>>;
      if (exact) {
        const r = await client.call<Record<string, unknown>>('media.detail', {
          pathParams: { media_id: exact.mediaId },
          query: { media_source: toV3Identity(exact).media_source, type_name: typeName(input.kind) },
          signal: ctx.signal,
        });
        raw = r.success && r.data ? [r.data] : [];
      } else {
        const r = await client.ok<Array<Record<string, unknown>>>('media.search', {
          query: { title: input.query, type: 'media', page: 1, count: Math.min(input.limit ?? 10, 200) },
          signal: ctx.signal,
        });
        raw = Array.isArray(r.data) ? r.data : [];
      }
      const items: MediaItem[] = [];
      for (const m of raw) {
        const item = await mediaItem(m, ctx.signal);
        if (
          item &&
          (input.kind === undefined || item.kind === input.kind) &&
          (input.year === undefined || item.year === input.year)
        )
          items.push(item);
      }
      const limited = items.slice(0, input.limit ?? 10);
      // A host that cannot reach TMDB answers an empty list exactly as for an unknown title: say which it is
      // (its network test asked again when the host found nothing at all: TMDB may be lost since start).
      if (raw.length === 0) await retestMetadata(s, ctx.signal);
      const cause = limited.length === 0 ? metadataCause(input.query) : undefined;
      if (cause) throw cause;
      if (limited.length === 1) journal.touch(ctx.runId, limited[0]!.mediaEntityId, limited[0]!.title);
      return { items: limited };
    }),
  };
}
