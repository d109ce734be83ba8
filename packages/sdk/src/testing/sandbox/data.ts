import type { MediaKind } from '../../media/identity';

/**
 * A title in the sandbox catalog (identity: TMDB id; other ids in `externalIds`).
 * @public
 */
export interface SandboxTitle {
  /** TMDB id. */
  mediaId: string;
  /** Film or series. */
  kind: MediaKind;
  /** English title. */
  title: string;
  /** Original-language title. */
  originalTitle: string;
  /** Chinese title. */
  localizedTitle: string | null;
  /** Year of release / first air. */
  year: number;
  /** Runtime in minutes (per episode for series); drives release sizes. */
  runtimeMin: number;
  /** Number of seasons (series), else null. */
  seasons: number | null;
  /** One-line synopsis. */
  overview: string;
  /** Ids at other sources (`douban`, `imdb`), resolved to this title by catalog.lookup. */
  externalIds: { douban?: string; imdb?: string };
}

/**
 * A release offered by the sandbox indexer.
 * @public
 */
export interface SandboxRelease {
  /** Release id. */
  releaseId: string;
  /** Torrent name. */
  name: string;
  /** TMDB id of the title it belongs to. */
  mediaId: string;
  /** Indexer site. */
  site: string;
  /** Size in bytes. */
  sizeBytes: number;
  /** Resolution. */
  resolution: '480p' | '720p' | '1080p' | '2160p';
  /** Source. */
  source: 'WEB-DL' | 'BluRay' | 'Remux' | 'HDTV';
  /** Codec. */
  codec: 'H.264' | 'H.265';
  /** HDR. */
  hdr: boolean;
  /** Season of a season pack, else null. */
  season: number | null;
  /** Seeders. */
  seeders: number;
  /** Free-leech on the site. */
  freeleech: boolean;
  /** Publication time, ms since the epoch. */
  publishedAt: number;
  /** NFO (description) text as the indexer publishes it, when it has one (`release.inspect` shows it). */
  nfo?: string;
}

/**
 * The default sandbox catalog: real films and series with their TMDB ids. The one list of the sandbox's
 * titles: the package README's "The sandbox catalog" table shows it, and host simulators that need the
 * same world import it from `@media-agent/sdk/testing`.
 * @public
 */
export const SANDBOX_TITLES: readonly SandboxTitle[] = Object.freeze([
  {
    mediaId: '693134',
    kind: 'movie',
    title: 'Dune: Part Two',
    originalTitle: 'Dune: Part Two',
    localizedTitle: '沙丘2',
    year: 2024,
    runtimeMin: 166,
    seasons: null,
    overview:
      'Paul Atreides unites with Chani and the Fremen while seeking revenge against the conspirators who destroyed his family.',
    externalIds: { douban: '35575567', imdb: 'tt15239678' },
  },
  {
    mediaId: '438631',
    kind: 'movie',
    title: 'Dune',
    originalTitle: 'Dune',
    localizedTitle: '沙丘',
    year: 2021,
    runtimeMin: 155,
    seasons: null,
    overview:
      'Paul Atreides, a brilliant and gifted young man born into a great destiny, must travel to the most dangerous planet in the universe.',
    externalIds: { imdb: 'tt1160419' },
  },
  {
    mediaId: '329865',
    kind: 'movie',
    title: 'Arrival',
    originalTitle: 'Arrival',
    localizedTitle: '降临',
    year: 2016,
    runtimeMin: 116,
    seasons: null,
    overview:
      'A linguist works with the military to communicate with alien lifeforms after twelve mysterious spacecraft appear around the world.',
    externalIds: { douban: '21324900', imdb: 'tt2543164' },
  },
  {
    mediaId: '157336',
    kind: 'movie',
    title: 'Interstellar',
    originalTitle: 'Interstellar',
    localizedTitle: '星际穿越',
    year: 2014,
    runtimeMin: 169,
    seasons: null,
    overview: "A team of explorers travels through a wormhole in space in an attempt to ensure humanity's survival.",
    externalIds: { douban: '1889243', imdb: 'tt0816692' },
  },
  {
    mediaId: '872585',
    kind: 'movie',
    title: 'Oppenheimer',
    originalTitle: 'Oppenheimer',
    localizedTitle: '奥本海默',
    year: 2023,
    runtimeMin: 180,
    seasons: null,
    overview: "The story of J. Robert Oppenheimer's role in the development of the atomic bomb during World War II.",
    externalIds: { imdb: 'tt15398776' },
  },
  {
    mediaId: '335984',
    kind: 'movie',
    title: 'Blade Runner 2049',
    originalTitle: 'Blade Runner 2049',
    localizedTitle: '银翼杀手2049',
    year: 2017,
    runtimeMin: 164,
    seasons: null,
    overview:
      "A young blade runner's discovery of a long-buried secret leads him to track down former blade runner Rick Deckard.",
    externalIds: { imdb: 'tt1856101' },
  },
  {
    mediaId: '129',
    kind: 'movie',
    title: 'Spirited Away',
    originalTitle: '千と千尋の神隠し',
    localizedTitle: '千与千寻',
    year: 2001,
    runtimeMin: 125,
    seasons: null,
    overview:
      'A young girl wanders into a world ruled by gods, witches and spirits, where humans are changed into beasts.',
    externalIds: { douban: '1291561', imdb: 'tt0245429' },
  },
  {
    mediaId: '372058',
    kind: 'movie',
    title: 'Your Name.',
    originalTitle: '君の名は。',
    localizedTitle: '你的名字。',
    year: 2016,
    runtimeMin: 106,
    seasons: null,
    overview: 'Two teenagers share a profound, magical connection upon discovering they are swapping bodies.',
    externalIds: { douban: '26683290', imdb: 'tt5311514' },
  },
  {
    mediaId: '842675',
    kind: 'movie',
    title: 'The Wandering Earth II',
    originalTitle: '流浪地球2',
    localizedTitle: '流浪地球2',
    year: 2023,
    runtimeMin: 173,
    seasons: null,
    overview: 'Humans build huge engines to move the Earth out of the solar system; a prequel to The Wandering Earth.',
    externalIds: { douban: '35267208' },
  },
  {
    mediaId: '1396',
    kind: 'tv',
    title: 'Breaking Bad',
    originalTitle: 'Breaking Bad',
    localizedTitle: '绝命毒师',
    year: 2008,
    runtimeMin: 47,
    seasons: 5,
    overview: 'A chemistry teacher diagnosed with terminal cancer turns to manufacturing methamphetamine.',
    externalIds: { imdb: 'tt0903747' },
  },
  {
    mediaId: '126308',
    kind: 'tv',
    title: 'Shōgun',
    originalTitle: 'Shōgun',
    localizedTitle: '幕府将军',
    year: 2024,
    runtimeMin: 60,
    seasons: 1,
    overview: 'In Japan in the year 1600, Lord Yoshii Toranaga fights for his life as his enemies unite against him.',
    externalIds: { imdb: 'tt2788316' },
  },
  {
    mediaId: '87108',
    kind: 'tv',
    title: 'Chernobyl',
    originalTitle: 'Chernobyl',
    localizedTitle: '切尔诺贝利',
    year: 2019,
    runtimeMin: 65,
    seasons: 1,
    overview: 'The true story of one of the worst man-made catastrophes in history.',
    externalIds: { imdb: 'tt7366338' },
  },
  {
    mediaId: '95396',
    kind: 'tv',
    title: 'Severance',
    originalTitle: 'Severance',
    localizedTitle: '人生切割术',
    year: 2022,
    runtimeMin: 50,
    seasons: 2,
    overview:
      'Employees of Lumon Industries have their memories surgically divided between their work and personal lives.',
    externalIds: { imdb: 'tt11280740' },
  },
] satisfies SandboxTitle[]);

/** TMDB ids of the titles the default sandbox library starts with (Arrival, Interstellar, Breaking Bad). @public */
export const SANDBOX_DEFAULT_LIBRARY: readonly string[] = Object.freeze(['tmdb:329865', 'tmdb:157336', 'tmdb:1396']);

const SITES = ['hdsky', 'ourbits', 'audiences', 'chdbits', 'pthome'];
const MOVIE_VARIANTS = [
  {
    tag: '2160p.UHD.BluRay.REMUX.HDR.HEVC.TrueHD.Atmos.7.1-FGT',
    resolution: '2160p',
    source: 'Remux',
    codec: 'H.265',
    hdr: true,
    gbPerMin: 0.47,
  },
  {
    tag: '2160p.WEB-DL.DDP5.1.Atmos.DV.HDR.H.265-FLUX',
    resolution: '2160p',
    source: 'WEB-DL',
    codec: 'H.265',
    hdr: true,
    gbPerMin: 0.11,
  },
  {
    tag: '1080p.BluRay.x264.DTS-HD.MA.7.1-SPARKS',
    resolution: '1080p',
    source: 'BluRay',
    codec: 'H.264',
    hdr: false,
    gbPerMin: 0.085,
  },
  {
    tag: '1080p.WEB-DL.DDP5.1.H.264-NTb',
    resolution: '1080p',
    source: 'WEB-DL',
    codec: 'H.264',
    hdr: false,
    gbPerMin: 0.048,
  },
  {
    tag: '720p.WEB-DL.DD5.1.H.264-NTb',
    resolution: '720p',
    source: 'WEB-DL',
    codec: 'H.264',
    hdr: false,
    gbPerMin: 0.024,
  },
] as const;
const TV_VARIANTS = [
  {
    tag: '2160p.WEB-DL.DDP5.1.DV.HDR.H.265-NTb',
    resolution: '2160p',
    source: 'WEB-DL',
    codec: 'H.265',
    hdr: true,
    gbPerMin: 0.09,
  },
  {
    tag: '1080p.WEB-DL.DDP5.1.H.264-NTb',
    resolution: '1080p',
    source: 'WEB-DL',
    codec: 'H.264',
    hdr: false,
    gbPerMin: 0.035,
  },
] as const;

/** Dotted release-name form of a title: `Dune: Part Two` → `Dune.Part.Two`. @internal */
export function dotted(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '.')
    .replace(/^\.|\.$/g, '');
}

/**
 * The releases the sandbox indexer offers for a catalog (deterministic: same catalog, same releases).
 * Films get five (2160p remux to 720p web), series two season packs per season (up to two seasons).
 * @param titles - the catalog
 * @returns releases with ids `rel-<tmdbId>-<n>`
 * @public
 */
export function sandboxReleases(titles: readonly SandboxTitle[]): SandboxRelease[] {
  const out: SandboxRelease[] = [];
  for (const t of titles) {
    const seed = [...t.mediaId].reduce((a, c) => a * 31 + c.charCodeAt(0), 7) % 1000;
    const name = dotted(t.title) || `tmdb.${t.mediaId}`;
    const published = Date.UTC(Math.max(t.year, 2010), 5, 1);
    let n = 0;
    const push = (
      v: (typeof MOVIE_VARIANTS)[number] | (typeof TV_VARIANTS)[number],
      season: number | null,
      minutes: number,
      label: string,
    ) => {
      n += 1;
      out.push({
        releaseId: `rel-${t.mediaId}-${n}`,
        name: `${name}.${label}.${v.tag}`,
        mediaId: t.mediaId,
        site: SITES[(seed + n) % SITES.length]!,
        sizeBytes: Math.round(minutes * v.gbPerMin * 1000) * 1_000_000,
        resolution: v.resolution,
        source: v.source,
        codec: v.codec,
        hdr: v.hdr,
        season,
        seeders: 5 + ((seed * (n + 3)) % 180),
        freeleech: (seed + n) % 4 === 0,
        publishedAt: published + n * 86_400_000,
      });
    };
    if (t.kind === 'movie') for (const v of MOVIE_VARIANTS) push(v, null, t.runtimeMin, String(t.year));
    else
      for (let s = 1; s <= Math.min(t.seasons ?? 1, 2); s++)
        for (const v of TV_VARIANTS) push(v, s, t.runtimeMin * 9, `S${String(s).padStart(2, '0')}`);
  }
  return out;
}

/**
 * A disk volume of the sandbox world: the directories on it, its capacity and the free bytes it has when the world
 * is created (with the seeded library on it).
 * @public
 */
export interface SandboxVolume {
  /** Volume name, e.g. `volume1`. */
  id: string;
  /** Directories mounted on it (absolute, no trailing slash); a path under one of them lives on this volume. */
  paths: string[];
  /** Capacity in bytes. */
  capacityBytes: number;
  /** Free bytes when the world is created, after the seeded library; the rest is the household's other data. */
  freeBytes: number;
}

/**
 * The default disk of the sandbox world: one 4 TB volume holding the library (`/media`, with `/media/library`) and
 * the download folder (`/downloads`), so hardlinks work between them, with 412 GB free at creation.
 * @public
 */
export const SANDBOX_VOLUMES: readonly SandboxVolume[] = Object.freeze([
  { id: 'volume1', paths: ['/media', '/downloads'], capacityBytes: 4_000_000_000_000, freeBytes: 412_000_000_000 },
]);

/**
 * Days the sandbox world keeps deleted and overwritten files in its quarantine folder (`<volume>/.quarantine`, e.g.
 * `/media/.quarantine`) before purging them for good.
 * @public
 */
export const SANDBOX_QUARANTINE_DAYS = 14;

/** Download folder of the sandbox downloader. @internal */
export const SANDBOX_DOWNLOAD_ROOT = '/downloads';

/**
 * The files of a release as the downloader writes them: a film is one file, a season pack one file per episode
 * (nine), each with its episode code (`S01E03`); sizes add up to the release's size.
 * @param release - the release
 * @returns paths relative to the download folder, sizes in bytes, and the episode code (null for a film)
 * @public
 */
export function sandboxReleaseFiles(
  release: Pick<SandboxRelease, 'name' | 'sizeBytes' | 'season'>,
): Array<{ path: string; sizeBytes: number; episode: string | null }> {
  const r = release;
  if (r.season === null) return [{ path: `${r.name}/${r.name}.mkv`, sizeBytes: r.sizeBytes, episode: null }];
  const each = Math.floor(r.sizeBytes / 9);
  return Array.from({ length: 9 }, (_, i) => {
    const episode = `S${String(r.season).padStart(2, '0')}E${String(i + 1).padStart(2, '0')}`;
    return {
      path: `${r.name}/${r.name.replace(/S\d\d/, episode)}.mkv`,
      sizeBytes: i === 8 ? r.sizeBytes - each * 8 : each,
      episode,
    };
  });
}
