import { matchV3Route } from './catalog';

/**
 * The built-in `MediaSource` values of MoviePilot 3.x (MoviePilot's `docs/mcp-api.md`, `contracts/v3-notes.md` §6); plugins may
 * register more.
 * @public
 */
export const V3_MEDIA_SOURCES = [
  'themoviedb',
  'douban',
  'bangumi',
  'anilist',
  'imdb',
  'tvdb',
  'musicbrainz',
  'theaudiodb',
  'doubanmusic',
] as const;

/** A request as it reaches the host, for {@link validateV3Request}. @public */
export interface V3WireRequest {
  /** HTTP method. */
  method: string;
  /** Path without the query. */
  path: string;
  /** Query parameters. */
  query: URLSearchParams;
  /** Request headers (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, `undefined` when there is none. */
  body: unknown;
}

/** Outcome of {@link validateV3Request}: the operation matched (when any) and every rule broken. @public */
export interface V3RequestCheck {
  /** Operation id the request was matched to, or undefined when no route matches. */
  operationId: string | undefined;
  /** Path parameters bound by the route. */
  params: Record<string, string>;
  /** Rules the request breaks (empty when the real host would accept its shape). */
  violations: string[];
}

/** Query/body fields a key operation requires (`contracts/v3-notes.md` §7 and the catalog notes). @internal */
const REQUIRED: Record<string, { query?: string[]; body?: string[] }> = {
  'media.search': { query: ['title'] },
  'media.person.search': { query: ['title', 'type'] },
  'media.recognize': { query: ['title'] },
  'media.detail': { query: ['media_source', 'type_name'] },
  'search.torrents': { query: ['media_source'] },
  'subscription.find': { query: ['media_source'] },
  'download.add': { body: ['torrent_in'] },
  'transfer.file': { body: ['fileitem'] },
  'subscription.add': { body: ['name'] },
};

/** Operations whose path carries `media_id` and whose query carries its `media_source`. @internal */
const PATH_IDENTITY = new Set([
  'media.detail',
  'search.torrents',
  'subscription.find',
  'subtitle.search.media',
  'subscription.delete_by_media',
]);

const PERSON_SOURCES = new Set(['tmdb', 'douban', 'bangumi', 'anilist']);

function isInt(v: string): boolean {
  return /^-?\d+$/.test(v);
}

/** Checks `media_source`/`media_id` pairing in one place (query or body object). */
function checkPair(where: string, source: unknown, id: unknown, violations: string[]): void {
  const hasSource = source !== undefined && source !== null && source !== '';
  const hasId = id !== undefined && id !== null && id !== '';
  if (hasSource !== hasId)
    violations.push(
      `${where}: media_source and media_id must be sent together (got ${hasSource ? 'media_source only' : 'media_id only'})`,
    );
  if (hasSource && !(V3_MEDIA_SOURCES as readonly string[]).includes(String(source)))
    violations.push(
      `${where}: media_source ${JSON.stringify(source)} is not a MediaSource (${V3_MEDIA_SOURCES.join(', ')})`,
    );
  if (hasId && /^[a-z]+:/.test(String(id)))
    violations.push(`${where}: media_id ${JSON.stringify(id)} must be the source-native id without a prefix`);
}

/**
 * Validates one incoming request against the MoviePilot 3.x contract: the route
 * exists in the catalog for that method; authentication is present (`X-API-KEY`,
 * `Authorization: Bearer`, `?apikey=` or `?token=`); path parameters are non-empty; `media_source` + `media_id` are
 * paired wherever they appear (query, body, `torrent_in`) and use a known source; paging is within
 * bounds (`page` ≥ 1, `count` 1–200, `page_size` 1–100 for `transfer.manual_reviews`); the key
 * operations' required fields are present; GET requests carry no body.
 *
 * @param req - the request as received
 * @returns the matched operation and the list of violations
 * @public
 */
export function validateV3Request(req: V3WireRequest): V3RequestCheck {
  const violations: string[] = [];
  const matches = matchV3Route(req.method, req.path);
  if (req.path === '/api/v1/login/access-token' && req.method === 'POST')
    return { operationId: 'login.access_token', params: {}, violations };
  if (matches.length === 0)
    return {
      operationId: undefined,
      params: {},
      violations: [`no catalog operation serves ${req.method} ${req.path}`],
    };
  const auth =
    req.headers['x-api-key'] ?? req.headers.authorization ?? req.query.get('apikey') ?? req.query.get('token');
  if (!auth) violations.push('no credentials: X-API-KEY, Authorization: Bearer, ?apikey= or ?token= is required');
  // Routes shared by several operations: media.search vs media.person.search (type=person).
  let match = matches[0]!;
  if (matches.length > 1 && matches.some((m) => m.operation.operation_id === 'media.person.search')) {
    match =
      matches.find(
        (m) =>
          m.operation.operation_id === (req.query.get('type') === 'person' ? 'media.person.search' : 'media.search'),
      ) ?? match;
  }
  const op = match.operation;
  for (const [name, value] of Object.entries(match.params))
    if (!value.trim()) violations.push(`path parameter ${name} is empty`);
  if (op.operation_id === 'media.person.credits' && !PERSON_SOURCES.has(match.params.source ?? ''))
    violations.push(`media.person.credits: path source must be one of ${[...PERSON_SOURCES].join(', ')}`);
  if (req.method === 'GET' && req.body !== undefined)
    violations.push('GET requests carry no body (the gateway merges it into the query)');

  // identity
  if (PATH_IDENTITY.has(op.operation_id)) {
    checkPair('path+query', req.query.get('media_source') ?? undefined, match.params.media_id, violations);
    if (req.query.has('media_id')) violations.push('media_id is in the path; do not repeat it in the query');
  } else if (req.query.has('media_source') || req.query.has('media_id')) {
    const sources = req.query.getAll('media_source');
    if (op.operation_id === 'media.search' || op.operation_id === 'media.person.search') {
      for (const s of sources)
        if (!(V3_MEDIA_SOURCES as readonly string[]).includes(s))
          violations.push(`query: media_source ${JSON.stringify(s)} is not a MediaSource`);
    } else
      checkPair(
        'query',
        req.query.get('media_source') ?? undefined,
        req.query.get('media_id') ?? undefined,
        violations,
      );
  }
  if (req.body && typeof req.body === 'object' && !Array.isArray(req.body)) {
    const b = req.body as Record<string, unknown>;
    if ('media_source' in b || 'media_id' in b) checkPair('body', b.media_source, b.media_id, violations);
    const torrent = b.torrent_in as Record<string, unknown> | undefined;
    if (op.operation_id === 'download.add') {
      if (!torrent || typeof torrent !== 'object') violations.push('download.add: body.torrent_in is required');
      else
        for (const f of ['title', 'enclosure'])
          if (typeof torrent[f] !== 'string' || !torrent[f])
            violations.push(`download.add: body.torrent_in.${f} is required`);
      if (b.allow_unrecognized !== undefined && typeof b.allow_unrecognized !== 'boolean')
        violations.push('download.add: allow_unrecognized must be a boolean');
      if (b.save_path !== undefined && !/^[^:]+:.+/.test(String(b.save_path)))
        violations.push('download.add: save_path must be <storage>:<path>');
    }
  }

  // paging
  for (const [name, max] of [
    ['page', Infinity],
    ['count', op.operation_id === 'transfer.manual_reviews' ? Infinity : 200],
    ['page_size', 100],
  ] as const) {
    const v = req.query.get(name);
    if (v === null) continue;
    if (!isInt(v)) violations.push(`${name} must be an integer, got ${JSON.stringify(v)}`);
    else if (Number(v) < 1 || Number(v) > max)
      violations.push(`${name} ${v} is out of bounds (${name === 'page' ? '≥ 1' : `1–${max}`})`);
  }

  // required fields
  const required = REQUIRED[op.operation_id];
  for (const q of required?.query ?? [])
    if (!req.query.get(q)) violations.push(`${op.operation_id}: query ${q} is required`);
  for (const f of required?.body ?? []) {
    const b = req.body as Record<string, unknown> | undefined;
    if (!b || typeof b !== 'object' || b[f] === undefined || b[f] === null)
      violations.push(`${op.operation_id}: body.${f} is required`);
  }
  if (op.operation_id === 'media.person.search' && req.query.get('type') !== 'person')
    violations.push('media.person.search: type must be person');
  return { operationId: op.operation_id, params: match.params, violations };
}
