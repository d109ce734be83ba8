import { defineStandardCapability, parseMediaEntityId, type StandardOutput } from '@media-agent/sdk/media';
import { fromV3Identity, toV3Identity } from '../identity';
import { kindOf, typeName } from './mapping';
import type { V3Services, V3StandardHelpers } from './services';

/**
 * Library inventory (`library.exists`, `library.latest`).
 * @param s - the services of one host
 * @param h - the shared reads and views
 * @returns `inventory.query` by id
 * @internal
 */
export function v3InventoryCapabilities(s: V3Services, h: V3StandardHelpers) {
  const { client, journal } = s;
  const { lookupLibrary } = h;
  return {
    'inventory.query': defineStandardCapability('inventory.query', async (input, ctx) => {
      const q = (input.query ?? '').trim();
      const items: StandardOutput<'inventory.query'>['items'] = [];
      if (q) {
        const exact = parseMediaEntityId(q);
        const candidates: Array<Record<string, unknown>> = [];
        if (exact) {
          const r = await client.call<Record<string, unknown>>('media.detail', {
            pathParams: { media_id: exact.mediaId },
            query: { media_source: toV3Identity(exact).media_source, type_name: typeName(input.kind) },
            signal: ctx.signal,
          });
          if (r.success && r.data) candidates.push(r.data);
        } else {
          const r = await client.ok<Array<Record<string, unknown>>>('media.search', {
            query: { title: q, type: 'media', page: 1, count: 8 },
            signal: ctx.signal,
          });
          candidates.push(...(Array.isArray(r.data) ? r.data : []));
        }
        for (const m of candidates) {
          const id = fromV3Identity(m.media_source, m.media_id);
          if (!id || (input.kind && kindOf(m.type) !== input.kind)) continue;
          const itemId = await lookupLibrary(id.mediaEntityId, ctx.signal);
          if (candidates.length === 1 || itemId !== null)
            journal.touch(ctx.runId, id.mediaEntityId, String(m.title ?? id.mediaEntityId));
          if (itemId === null) continue;
          items.push({
            mediaEntityId: id.mediaEntityId,
            kind: kindOf(m.type),
            title: String(m.title ?? ''),
            localizedTitle: typeof m.cn_title === 'string' ? m.cn_title : null,
            year: Number.parseInt(String(m.year ?? '0'), 10) || 0,
            libraryPath: `mediaserver:${itemId}`,
            sizeBytes: 0,
            resolution: null,
            addedAt: 0,
          });
        }
      } else {
        const r = await client.ok<Array<Record<string, unknown>>>('library.latest', {
          query: { page: 1, count: Math.min(input.limit ?? 50, 200) },
          signal: ctx.signal,
        });
        for (const m of Array.isArray(r.data) ? r.data : []) {
          const id =
            fromV3Identity(m.media_source, m.media_id) ??
            (m.tmdbid ? fromV3Identity('themoviedb', m.tmdbid) : undefined);
          if (!id || (input.kind && kindOf(m.type) !== input.kind)) continue;
          items.push({
            mediaEntityId: id.mediaEntityId,
            kind: kindOf(m.type),
            title: String(m.title ?? ''),
            localizedTitle: null,
            year: Number.parseInt(String(m.year ?? '0'), 10) || 0,
            libraryPath: `mediaserver:${String(m.id ?? '')}`,
            sizeBytes: 0,
            resolution: null,
            addedAt: 0,
          });
        }
      }
      return { total: items.length, items: items.slice(0, input.limit ?? 50) };
    }),
  };
}
