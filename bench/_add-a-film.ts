/**
 * The add-a-film workload every loop benchmark runs, on every side (media-agent and each peer):
 * a goal, then {@link FILM_TURNS} model turns — five that each say a short sentence and call one tool
 * (two reads: `catalog.lookup`, `release.search`; then `download.plan`, `download.submit`,
 * `download.status`) and a last one with the final text. Handlers are trivial (they return the fixed
 * objects below), so what is measured is the loop around them.
 *
 * The model double is the same on every side: it answers turn `n` (the number of assistant messages
 * already in the request) whole — its text and its one tool call in a single response, no
 * streaming, no request copies — and derives token usage from the request size the same way.
 *
 * This file holds only data and pure functions; each side's adapter (ours in `_add-a-film-ours.ts`,
 * the peers in `peers/`) turns them into its own SDK's model and tool shapes.
 */

/** One model turn: its text, and the tool it calls (none on the last turn). */
export interface FilmTurn {
  text: string;
  call?: { tool: FilmTool; input: Record<string, unknown> };
}

/** The workload's tools, by their dotted capability id. */
export type FilmTool = 'catalog.lookup' | 'release.search' | 'download.plan' | 'download.submit' | 'download.status';

/** Title the workload adds. */
export const FILM_TITLE = 'Dune: Part Two';

/** The goal each run starts with. */
export const FILM_GOAL = `Add ${FILM_TITLE} to the library.`;

/** The conversation. */
export const FILM_SCRIPT: readonly FilmTurn[] = [
  {
    text: `Looking up "${FILM_TITLE}".`,
    call: { tool: 'catalog.lookup', input: { query: FILM_TITLE, limit: 1 } },
  },
  {
    text: 'Found it (TMDB 693134); searching releases.',
    call: { tool: 'release.search', input: { mediaSource: 'tmdb', mediaId: '693134', limit: 5 } },
  },
  {
    text: 'Planning the best release.',
    call: { tool: 'download.plan', input: { mediaSource: 'tmdb', mediaId: '693134', releaseId: 'rel-2160p-1' } },
  },
  {
    text: 'Submitting the plan.',
    call: { tool: 'download.submit', input: { planId: 'plan-1' } },
  },
  {
    text: 'Checking the download.',
    call: { tool: 'download.status', input: { downloadId: 'dl-1' } },
  },
  { text: `${FILM_TITLE} is downloading (12%); it is done once imported into the library.` },
];

/** Model turns per run. */
export const FILM_TURNS = FILM_SCRIPT.length;
/** Tool calls per run. */
export const FILM_TOOL_CALLS = FILM_SCRIPT.filter((t) => t.call).length;
/** The final text every run must end with. */
export const FILM_FINAL_TEXT = FILM_SCRIPT[FILM_SCRIPT.length - 1]!.text;

/** What each tool's trivial handler returns (the same object on every side). */
export const FILM_RESULTS: Readonly<Record<FilmTool, Record<string, unknown>>> = {
  'catalog.lookup': {
    items: [{ mediaSource: 'tmdb', mediaId: '693134', kind: 'movie', title: FILM_TITLE, year: 2024 }],
    total: 1,
  },
  'release.search': {
    releases: [
      {
        releaseId: 'rel-2160p-1',
        title: 'Dune.Part.Two.2024.2160p.WEB-DL.DDP5.1.HDR.H.265',
        sizeBytes: 58_200_000_000,
        seeders: 412,
      },
      {
        releaseId: 'rel-1080p-1',
        title: 'Dune.Part.Two.2024.1080p.BluRay.x264',
        sizeBytes: 14_100_000_000,
        seeders: 980,
      },
      { releaseId: 'rel-720p-1', title: 'Dune.Part.Two.2024.720p.WEB-DL.x264', sizeBytes: 4_300_000_000, seeders: 133 },
    ],
  },
  'download.plan': {
    planId: 'plan-1',
    releaseId: 'rel-2160p-1',
    sizeBytes: 58_200_000_000,
    destination: '/media/movies',
  },
  'download.submit': { downloadId: 'dl-1', status: 'queued' },
  'download.status': { downloadId: 'dl-1', status: 'downloading', progress: 0.12 },
};

/** The model-facing name of a tool: dots become underscores (what OpenAI-style tool names allow). */
export const toolName = (tool: FilmTool): string => tool.replace(/\./g, '_');

/** The turn the double answers for a request that already holds `assistantTurns` assistant messages. */
export function filmTurn(assistantTurns: number): FilmTurn {
  const turn = FILM_SCRIPT[assistantTurns];
  if (!turn) throw new Error(`the add-a-film model double has no turn ${assistantTurns}`);
  return turn;
}

/** Token usage the double reports, the same rule on every side: request characters / 4, output characters / 4. */
export function filmUsage(requestChars: number, turn: FilmTurn): { inputTokens: number; outputTokens: number } {
  const out = turn.text.length + (turn.call ? JSON.stringify(turn.call.input).length : 0);
  return { inputTokens: Math.ceil(requestChars / 4), outputTokens: Math.ceil(out / 4) };
}
