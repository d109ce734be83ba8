/** A title of the simulator's metadata catalog. @public */
export interface SimTitle {
  /** TMDB id. */
  tmdbId: number;
  /** Douban id. */
  doubanId: string;
  /** `movie` or `tv`. */
  kind: 'movie' | 'tv';
  /** English title. */
  title: string;
  /** Original-language title. */
  originalTitle: string;
  /** Chinese title. */
  localizedTitle: string;
  /** Year. */
  year: number;
  /** Overview. */
  overview: string;
  /** Seasons (series only). */
  seasons: number | null;
}

/** A release (torrent) an indexer site offers in the simulator. @public */
export interface SimRelease {
  /** TMDB id of the title it is a release of. */
  tmdbId: number;
  /** Torrent title as published. */
  title: string;
  /** Size in bytes. */
  size: number;
  /** Seeders. */
  seeders: number;
  /** Site name. */
  site: string;
  /** Site id. */
  siteId: number;
  /** Download link (a magnet with the info hash). */
  enclosure: string;
  /** Details page. */
  pageUrl: string;
  /** Subtitle / description. */
  description: string;
  /**
   * The kind of the title it is a release of, when a movie and a series share its TMDB id (TMDB movie and
   * TV ids are separate number spaces); default: any title with that id.
   */
  kind?: 'movie' | 'tv';
}

/** The default catalog: four titles (Dune: Part Two, Dune, Arrival, Shōgun). @public */
export const SIM_TITLES: readonly SimTitle[] = Object.freeze([
  {
    tmdbId: 693134,
    doubanId: '35575567',
    kind: 'movie',
    title: 'Dune: Part Two',
    originalTitle: 'Dune: Part Two',
    localizedTitle: '沙丘2',
    year: 2024,
    overview: 'Paul Atreides unites with the Fremen.',
    seasons: null,
  },
  {
    tmdbId: 438631,
    doubanId: '3001114',
    kind: 'movie',
    title: 'Dune',
    originalTitle: 'Dune',
    localizedTitle: '沙丘',
    year: 2021,
    overview: 'A noble family becomes embroiled in a war for Arrakis.',
    seasons: null,
  },
  {
    tmdbId: 329865,
    doubanId: '21324900',
    kind: 'movie',
    title: 'Arrival',
    originalTitle: 'Arrival',
    localizedTitle: '降临',
    year: 2016,
    overview: 'A linguist works with the military to communicate with alien lifeforms.',
    seasons: null,
  },
  {
    tmdbId: 126308,
    doubanId: '35435093',
    kind: 'tv',
    title: 'Shōgun',
    originalTitle: 'Shōgun',
    localizedTitle: '幕府将军',
    year: 2024,
    overview: 'An English navigator is shipwrecked in feudal Japan.',
    seasons: 1,
  },
] satisfies SimTitle[]);

const GB = 1024 ** 3;
const hash = (n: number) => n.toString(16).padStart(40, 'a');

/** The default releases: three of Dune: Part Two, two of Dune, one season pack of Shōgun. @public */
export const SIM_RELEASES: readonly SimRelease[] = Object.freeze([
  {
    tmdbId: 693134,
    title: 'Dune.Part.Two.2024.2160p.UHD.BluRay.x265.HDR-FRDS',
    size: Math.round(28.4 * GB),
    seeders: 312,
    site: 'HDSky',
    siteId: 1,
    enclosure: `magnet:?xt=urn:btih:${hash(1)}`,
    pageUrl: 'https://hdsky.example/details.php?id=1',
    description: '沙丘2 4K HDR',
  },
  {
    tmdbId: 693134,
    title: 'Dune.Part.Two.2024.1080p.WEB-DL.H264-CHD',
    size: Math.round(9.1 * GB),
    seeders: 540,
    site: 'CHDBits',
    siteId: 2,
    enclosure: `magnet:?xt=urn:btih:${hash(2)}`,
    pageUrl: 'https://chd.example/details.php?id=2',
    description: '沙丘2 1080p',
  },
  {
    tmdbId: 693134,
    title: 'Dune.Part.Two.2024.720p.WEB-DL.H264',
    size: Math.round(4.2 * GB),
    seeders: 88,
    site: 'CHDBits',
    siteId: 2,
    enclosure: `magnet:?xt=urn:btih:${hash(3)}`,
    pageUrl: 'https://chd.example/details.php?id=3',
    description: '沙丘2 720p',
  },
  {
    tmdbId: 438631,
    title: 'Dune.2021.2160p.BluRay.REMUX.HEVC-FGT',
    size: Math.round(58 * GB),
    seeders: 120,
    site: 'HDSky',
    siteId: 1,
    enclosure: `magnet:?xt=urn:btih:${hash(4)}`,
    pageUrl: 'https://hdsky.example/details.php?id=4',
    description: '沙丘 Remux',
  },
  {
    tmdbId: 438631,
    title: 'Dune.2021.1080p.BluRay.x264-SPARKS',
    size: Math.round(12 * GB),
    seeders: 230,
    site: 'CHDBits',
    siteId: 2,
    enclosure: `magnet:?xt=urn:btih:${hash(5)}`,
    pageUrl: 'https://chd.example/details.php?id=5',
    description: '沙丘 1080p',
  },
  {
    tmdbId: 126308,
    title: 'Shogun.2024.S01.1080p.WEB-DL.H265-NTb',
    size: Math.round(22 * GB),
    seeders: 150,
    site: 'HDSky',
    siteId: 1,
    enclosure: `magnet:?xt=urn:btih:${hash(6)}`,
    pageUrl: 'https://hdsky.example/details.php?id=6',
    description: '幕府将军 第一季',
  },
] satisfies SimRelease[]);
