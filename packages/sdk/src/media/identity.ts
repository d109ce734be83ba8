import Type from 'typebox';
import { issuedId } from '../core/provenance-marks';

/**
 * Metadata sources a media identity may come from.
 * @public
 */
export const MEDIA_SOURCES = ['tmdb', 'douban', 'imdb', 'tvdb', 'bangumi'] as const;

/** One of {@link MEDIA_SOURCES}. @public */
export type MediaSource = (typeof MEDIA_SOURCES)[number];

/** Media kinds: a film (`movie`) or a series (`tv`). @public */
export type MediaKind = 'movie' | 'tv';

/** TypeBox schema of {@link MediaSource}. @public */
export const MediaSourceSchema = Type.Union(
  [Type.Literal('tmdb'), Type.Literal('douban'), Type.Literal('imdb'), Type.Literal('tvdb'), Type.Literal('bangumi')],
  { description: 'Metadata source of the id: tmdb, douban, imdb, tvdb or bangumi.' },
);

/** TypeBox schema of {@link MediaKind}. @public */
export const MediaKindSchema = Type.Union([Type.Literal('movie'), Type.Literal('tv')], {
  description: '`movie` (a film) or `tv` (a series).',
});

/**
 * TypeBox schema of a source-local media id: letters, digits, `_` and `-`, 1–64 characters (e.g. `693134`,
 * `tt15239678`). An issued id of namespace `media` (the catalog returns it; an effect's input must hold one a read
 * returned to the run, or one a person typed).
 * @public
 */
export const MediaIdSchema = Type.String({
  ...issuedId('media'),
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_-]+$',
  description: 'Id of the title at that source, e.g. 693134 for TMDB.',
});

/**
 * TypeBox schema of a media entity id: `<mediaSource>:<mediaId>`, e.g. `tmdb:693134`
 * (see {@link mediaEntityId}). An issued id of namespace `media-entity`.
 * @public
 */
export const MediaEntityIdSchema = Type.String({
  ...issuedId('media-entity'),
  pattern: `^(${MEDIA_SOURCES.join('|')}):[A-Za-z0-9_-]{1,64}$`,
  description: 'Media entity id `<source>:<id>`, e.g. tmdb:693134.',
});

/** A media identity as a `{ mediaSource, mediaId }` pair. @public */
export interface MediaRef {
  /** Metadata source. */
  mediaSource: MediaSource;
  /** Id at that source. */
  mediaId: string;
}

/**
 * The media entity id of a `{ mediaSource, mediaId }` pair: `<mediaSource>:<mediaId>`, e.g.
 * `tmdb:693134`. Grants scope by it (`scope.mediaEntityIds`) and plans record it.
 * @param ref - the pair
 * @returns the derived id
 * @public
 */
export function mediaEntityId(ref: MediaRef): string {
  return `${ref.mediaSource}:${ref.mediaId}`;
}

/**
 * Splits a media entity id into its pair.
 * @param id - e.g. `tmdb:693134`
 * @returns the pair, or `undefined` when `id` is not `<known source>:<id>`
 * @public
 */
export function parseMediaEntityId(id: string): MediaRef | undefined {
  const m = /^([a-z]+):([A-Za-z0-9_-]{1,64})$/.exec(id);
  if (!m || !(MEDIA_SOURCES as readonly string[]).includes(m[1]!)) return undefined;
  return { mediaSource: m[1] as MediaSource, mediaId: m[2]! };
}
