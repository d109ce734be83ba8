import { defineStandardCapability, type StandardOutput } from '@media-agent/sdk/media';
import { HostOperationError } from '../errors';
import { kindOf, msOf, typeName } from '../mapping';
import { kindScope, type V2StandardDeps, type V2StandardHelpers } from './services';

/**
 * Library inventory (`GET /api/v1/mediaserver/exists`, the transfer history).
 * @param deps - the host view and plan service
 * @param h - the shared reads and checks
 * @returns `inventory.query` by id
 * @internal
 */
export function v2InventoryCapabilities(deps: V2StandardDeps, h: V2StandardHelpers) {
  const { view } = deps;
  const { client, tracking } = view;
  return {
    'inventory.query': defineStandardCapability('inventory.query', async (input, ctx) => {
      const q = (input.query ?? '').trim();
      const exact = /^(tmdb|douban|bangumi):([A-Za-z0-9_-]+)$/.exec(q);
      const items: StandardOutput<'inventory.query'>['items'] = [];
      if (q) {
        let data: { item?: Record<string, unknown> } | null = null;
        try {
          // The media type the adapter knows (asked for, or seen in a lookup): TMDB movie and series ids collide.
          const kind =
            input.kind ?? (exact?.[1] === 'tmdb' ? view.kindOf(`tmdb:${exact[2]}`, kindScope(ctx)) : undefined);
          const mtype = kind ? typeName(kind) : undefined;
          data = await client.call('library.exists', {
            query: exact?.[1] === 'tmdb' ? { tmdbid: Number(exact[2]), mtype } : { title: q, mtype },
            signal: ctx.signal,
          });
        } catch (error) {
          if (!(error instanceof HostOperationError)) throw error;
        }
        const item = data?.item as
          | { title?: string; year?: string; type?: string; tmdbid?: number; path?: string; added?: string }
          | undefined;
        if (item?.tmdbid && (input.kind === undefined || kindOf(item.type) === input.kind)) {
          items.push({
            mediaEntityId: `tmdb:${item.tmdbid}`,
            kind: kindOf(item.type),
            title: item.title ?? q,
            localizedTitle: null,
            year: Number.parseInt(item.year ?? '0', 10) || 0,
            libraryPath: item.path ?? '',
            sizeBytes: 0,
            resolution: null,
            addedAt: msOf(item.added),
          });
          await tracking.touch(ctx.runId, { entities: [`tmdb:${item.tmdbid}`] });
        }
      } else {
        const seen = new Set<string>();
        for (const t of await view.transfers(ctx.signal)) {
          if (!t.status || !t.tmdbid || seen.has(`tmdb:${t.tmdbid}`)) continue;
          seen.add(`tmdb:${t.tmdbid}`);
          items.push({
            mediaEntityId: `tmdb:${t.tmdbid}`,
            kind: 'movie',
            title: t.title ?? '',
            localizedTitle: null,
            year: 0,
            libraryPath: t.dest ?? '',
            sizeBytes: 0,
            resolution: null,
            addedAt: msOf(t.date),
          });
        }
      }
      return { total: items.length, items: items.slice(0, input.limit ?? 50) };
    }),
  };
}
