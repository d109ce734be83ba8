import { MEDIA_SOURCES, type MediaSource } from '@media-agent/sdk/media';

/**
 * SDK media source → MoviePilot 3.x `MediaSource` value (`contracts/v3-notes.md` §6: the identity is `media_source` +
 * `media_id`; `themoviedb` is the built-in TMDB source).
 * @public
 */
export const V3_SOURCE_OF: Readonly<Record<MediaSource, string>> = Object.freeze({
  tmdb: 'themoviedb',
  douban: 'douban',
  imdb: 'imdb',
  tvdb: 'tvdb',
  bangumi: 'bangumi',
});

/**
 * The V3 identity pair of an SDK `{ mediaSource, mediaId }`; always both fields.
 * @param ref - SDK pair
 * @returns `{ media_source, media_id }`
 * @public
 */
export function toV3Identity(ref: { mediaSource: MediaSource; mediaId: string }): {
  media_source: string;
  media_id: string;
} {
  return { media_source: V3_SOURCE_OF[ref.mediaSource], media_id: ref.mediaId };
}

/**
 * The SDK pair of a V3 identity, or undefined for sources the SDK does not model (e.g. `anilist`, `musicbrainz`).
 * @param source - V3 `media_source`
 * @param id - V3 `media_id`
 * @public
 */
export function fromV3Identity(
  source: unknown,
  id: unknown,
): { mediaSource: MediaSource; mediaId: string; mediaEntityId: string } | undefined {
  const s =
    (Object.entries(V3_SOURCE_OF) as Array<[MediaSource, string]>).find(([, v]) => v === source)?.[0] ??
    (MEDIA_SOURCES as readonly string[]).find((x) => x === source);
  if (!s || id === undefined || id === null || !/^[A-Za-z0-9_-]{1,64}$/.test(String(id))) return undefined;
  return { mediaSource: s as MediaSource, mediaId: String(id), mediaEntityId: `${s}:${String(id)}` };
}
