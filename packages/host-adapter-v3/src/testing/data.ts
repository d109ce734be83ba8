/** A title in the simulator's metadata catalog. @public */
export interface SimTitle {
  /** V3 media source, e.g. `themoviedb`. */
  media_source: string;
  /** Source-native id. */
  media_id: string;
  /** Display title. */
  title: string;
  /** Original title. */
  original_title: string;
  /** Chinese title. */
  cn_title: string | null;
  /** Year. */
  year: number;
  /** `电影` (film) or `电视剧` (series), MoviePilot's MediaType values. */
  type: '电影' | '电视剧';
  /** Overview. */
  overview: string;
}

/** A release (torrent) the simulator's indexers offer. @public */
export interface SimRelease {
  /** Identity of the title it belongs to (`<media_source>:<media_id>`), or null when unrecognizable. */
  media: string | null;
  /** Torrent title as published. */
  title: string;
  /** Description. */
  description: string;
  /** Download URL (the host hashes it into the torrent hash). */
  enclosure: string;
  /** Site name. */
  site_name: string;
  /** Size in bytes. */
  size: number;
  /** Seeders. */
  seeders: number;
  /** Resolution, e.g. `2160p`. */
  resource_pix: string;
  /** Source, e.g. `WEB-DL`. */
  resource_type: string;
  /** Codec, e.g. `H.265`. */
  video_encode: string;
  /** Publish date `YYYY-MM-DD HH:mm:ss`. */
  pubdate: string;
}

/** The default catalog of the simulator. @public */
export const SIM_TITLES: readonly SimTitle[] = Object.freeze([
  {
    media_source: 'themoviedb',
    media_id: '693134',
    title: 'Dune: Part Two',
    original_title: 'Dune: Part Two',
    cn_title: '沙丘2',
    year: 2024,
    type: '电影',
    overview: 'Paul Atreides unites with the Fremen.',
  },
  {
    media_source: 'themoviedb',
    media_id: '438631',
    title: 'Dune',
    original_title: 'Dune',
    cn_title: '沙丘',
    year: 2021,
    type: '电影',
    overview: 'Paul Atreides travels to Arrakis.',
  },
  {
    media_source: 'themoviedb',
    media_id: '335984',
    title: 'Blade Runner 2049',
    original_title: 'Blade Runner 2049',
    cn_title: '银翼杀手2049',
    year: 2017,
    type: '电影',
    overview: 'A new blade runner unearths a secret.',
  },
  {
    media_source: 'themoviedb',
    media_id: '329865',
    title: 'Arrival',
    original_title: 'Arrival',
    cn_title: '降临',
    year: 2016,
    type: '电影',
    overview: 'A linguist works with the military to talk to aliens.',
  },
  {
    media_source: 'themoviedb',
    media_id: '95396',
    title: 'Severance',
    original_title: 'Severance',
    cn_title: '人生切割术',
    year: 2022,
    type: '电视剧',
    overview: 'Workers have their memories surgically divided.',
  },
]);

/** Titles in the simulator's library at start. @public */
export const SIM_DEFAULT_LIBRARY: readonly string[] = Object.freeze(['themoviedb:329865']);

/** The default releases of the simulator. @public */
export const SIM_RELEASES: readonly SimRelease[] = Object.freeze([
  {
    media: 'themoviedb:693134',
    title: 'Dune.Part.Two.2024.2160p.WEB-DL.H265.HDR-MP',
    description: '沙丘2 4K HDR',
    enclosure: 'https://pt.example/download/1001',
    site_name: 'PTSite',
    size: 21_474_836_480,
    seeders: 320,
    resource_pix: '2160p',
    resource_type: 'WEB-DL',
    video_encode: 'H.265',
    pubdate: '2024-05-01 10:00:00',
  },
  {
    media: 'themoviedb:693134',
    title: 'Dune.Part.Two.2024.1080p.BluRay.H264-MP',
    description: '沙丘2 1080p',
    enclosure: 'https://pt.example/download/1002',
    site_name: 'PTSite',
    size: 12_884_901_888,
    seeders: 540,
    resource_pix: '1080p',
    resource_type: 'BluRay',
    video_encode: 'H.264',
    pubdate: '2024-05-20 10:00:00',
  },
  {
    media: 'themoviedb:438631',
    title: 'Dune.2021.2160p.BluRay.H265-MP',
    description: '沙丘 4K',
    enclosure: 'https://pt.example/download/2001',
    site_name: 'PTSite',
    size: 25_769_803_776,
    seeders: 210,
    resource_pix: '2160p',
    resource_type: 'BluRay',
    video_encode: 'H.265',
    pubdate: '2022-01-10 10:00:00',
  },
  {
    media: 'themoviedb:335984',
    title: 'Blade.Runner.2049.2017.1080p.BluRay.H264-MP',
    description: '银翼杀手2049',
    enclosure: 'https://pt.example/download/3001',
    site_name: 'OtherPT',
    size: 15_032_385_536,
    seeders: 150,
    resource_pix: '1080p',
    resource_type: 'BluRay',
    video_encode: 'H.264',
    pubdate: '2018-01-10 10:00:00',
  },
]);
