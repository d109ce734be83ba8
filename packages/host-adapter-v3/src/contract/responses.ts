import { HostProtocolError } from '../errors';

/**
 * The shape an operation declares for the envelope's `data` on success (`contracts/v3-notes.md` §4 and
 * §7, and the catalog's notes): `list` (data is a list), or `object` with the fields it must carry
 * (`required`: present and not null) and, where the model has them, fields whose type is fixed
 * (`lists`: arrays, `objects`: objects).
 * @public
 */
export type V3ResponseShape =
  | { kind: 'list' }
  | { kind: 'object'; required?: readonly string[]; lists?: readonly string[]; objects?: readonly string[] };

const LIST: V3ResponseShape = { kind: 'list' };

/**
 * The response declarations of the catalog operations that have one (the others are checked for the
 * envelope only). Lists: every catalog note that says "data is a list" / "data stays a list". Objects:
 * the page objects of `transfer.history` (`data.list`, `data.total`) and `transfer.manual_reviews`
 * (`data.items`, `data.total`), `library.exists` (`data.item`), `download.add` (`data.download_id`),
 * `subscription.add` (`data.id`), `media.detail` (a MediaInfo carrying `media_source` and `media_id`)
 * and `media.recognize` (a Context).
 * @public
 */
export const V3_RESPONSE_SHAPES: Readonly<Record<string, V3ResponseShape>> = Object.freeze({
  'media.search': LIST,
  'media.person.search': LIST,
  'media.person.credits': LIST,
  'search.torrents': LIST,
  'search.title': LIST,
  'subscription.history': LIST,
  'subscription.execution.list': LIST,
  'download.history.list': LIST,
  'library.latest': LIST,
  'library.exists': { kind: 'object', required: ['item'], objects: ['item'] },
  'transfer.history': { kind: 'object', required: ['list', 'total'], lists: ['list'] },
  'transfer.manual_reviews': { kind: 'object', required: ['items', 'total'], lists: ['items'] },
  'download.add': { kind: 'object', required: ['download_id'] },
  'subscription.add': { kind: 'object', required: ['id'] },
  'media.detail': { kind: 'object', required: ['media_source', 'media_id'] },
  'media.recognize': { kind: 'object' },
});

/** The three fields of the 3.x envelope, all required, nothing else (`extra=forbid`, `contracts/v3-notes.md` §4). */
const ENVELOPE_KEYS = ['success', 'message', 'data'];

/** A checked envelope. @internal */
export interface V3Envelope {
  success: boolean;
  message: string;
  data: unknown;
}

/** What came back, in words: the kind of body, never its content. @internal */
export function describeBody(text: string, contentType: string): { kind: string; words: string } {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const bytes = Buffer.byteLength(text);
  if (bytes === 0) return { kind: 'empty', words: 'an empty body' };
  let json: unknown;
  let parsed = false;
  try {
    json = JSON.parse(text);
    parsed = true;
  } catch {
    /* not JSON */
  }
  if (!parsed) {
    if (type === 'text/html' || /^\s*<(!doctype|html|head|body)/i.test(text))
      return { kind: 'html', words: `an HTML page (${bytes} bytes${type ? `, ${type}` : ''})` };
    if (type && type !== 'application/json' && !type.endsWith('+json') && type !== 'text/plain')
      return { kind: 'file', words: `a file body (${type}, ${bytes} bytes)` };
    return { kind: 'not-json', words: `a body that is not JSON (${type || 'no content type'}, ${bytes} bytes)` };
  }
  return describeJson(json);
}

function describeJson(json: unknown): { kind: string; words: string } {
  if (Array.isArray(json)) return { kind: 'bare-list', words: `a bare JSON list of ${json.length} item(s)` };
  if (json === null) return { kind: 'null', words: 'a bare JSON null' };
  if (typeof json !== 'object') return { kind: 'scalar', words: `a bare JSON ${typeof json}` };
  const keys = Object.keys(json);
  if (keys.length > 0 && keys.every((k) => (json as Record<string, unknown>)[k] === null))
    return { kind: 'all-null', words: `a JSON object whose ${keys.length} field(s) are all null` };
  return {
    kind: 'bare-object',
    words: `a JSON object with field(s) ${keys
      .slice(0, 6)
      .map((k) => JSON.stringify(k))
      .join(', ')}${keys.length > 6 ? ` and ${keys.length - 6} more` : ''}`,
  };
}

/**
 * Checks one answer of a catalog operation against the 3.x protocol: the body is JSON, the
 * `{success: boolean, message: string, data}` envelope with nothing else, and — on success — `data` of
 * the operation's declared shape ({@link V3_RESPONSE_SHAPES}). A 204 with no body is a success
 * without data.
 * @param operationId - the operation
 * @param status - HTTP status
 * @param contentType - the answer's content type
 * @param text - the body
 * @returns the envelope
 * @throws {@link HostProtocolError} (`HOST_PROTOCOL_ERROR`) naming the operation and the kind of body
 * @internal
 */
export function checkV3Answer(operationId: string, status: number, contentType: string, text: string): V3Envelope {
  if (status === 204 && text.length === 0) return { success: true, message: '', data: null };
  const fail = (words: string, kind: string): never => {
    throw new HostProtocolError(
      operationId,
      `MoviePilot ${operationId} answered HTTP ${status} with ${words}, not the MoviePilot 3.x envelope {success, message, data}: the host does not speak the 3.x protocol here (a 2.x host, a proxy page, or a file route)`,
      { status, kind, received: words, contentType: contentType.split(';')[0]!.trim() || null },
    );
  };
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    /* described below */
  }
  if (json === undefined || typeof json !== 'object' || json === null || Array.isArray(json)) {
    const d = json === undefined ? describeBody(text, contentType) : describeJson(json);
    return fail(d.words, d.kind);
  }
  const o = json as Record<string, unknown>;
  const keys = Object.keys(o);
  const envelope =
    ENVELOPE_KEYS.every((k) => k in o) &&
    keys.every((k) => ENVELOPE_KEYS.includes(k)) &&
    typeof o.success === 'boolean' &&
    typeof o.message === 'string';
  if (!envelope) {
    if ('success' in o) {
      const wrong = [
        typeof o.success !== 'boolean' ? 'success is not a boolean' : '',
        typeof o.message !== 'string' ? 'message is not a string' : '',
        'data' in o ? '' : 'data is missing',
        keys.filter((k) => !ENVELOPE_KEYS.includes(k)).length
          ? `extra field(s) ${keys
              .filter((k) => !ENVELOPE_KEYS.includes(k))
              .slice(0, 6)
              .map((k) => JSON.stringify(k))
              .join(', ')}`
          : '',
      ].filter(Boolean);
      return fail(`a malformed envelope (${wrong.join('; ')})`, 'malformed-envelope');
    }
    const d = describeJson(o);
    return fail(d.words, d.kind);
  }
  const e: V3Envelope = { success: o.success as boolean, message: o.message as string, data: o.data };
  if (!e.success || status >= 400) return e;
  const shape = V3_RESPONSE_SHAPES[operationId];
  if (!shape) return e;
  const data = e.data;
  const declared = (what: string, kind: string): never => {
    throw new HostProtocolError(
      operationId,
      `MoviePilot ${operationId} answered success with data that is ${what}, not the declared ${shape.kind === 'list' ? 'list' : 'object'}${shape.kind === 'object' && shape.required?.length ? ` with ${shape.required.join(', ')}` : ''}: the answer is not taken as a success`,
      { status, kind },
    );
  };
  const what =
    data === null
      ? 'null'
      : Array.isArray(data)
        ? 'a list'
        : typeof data === 'object'
          ? 'an object'
          : `a ${typeof data}`;
  if (shape.kind === 'list') {
    if (!Array.isArray(data)) return declared(what, 'shape');
    return e;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return declared(what, 'shape');
  const d = data as Record<string, unknown>;
  const fields = Object.keys(d);
  if (fields.length > 0 && fields.every((k) => d[k] === null)) return declared('an all-null model', 'all-null');
  const missing = (shape.required ?? []).filter((k) => d[k] === undefined || d[k] === null);
  if (missing.length) return declared(`an object without ${missing.join(', ')}`, 'shape');
  const notList = (shape.lists ?? []).filter((k) => !Array.isArray(d[k]));
  const notObject = (shape.objects ?? []).filter(
    (k) => d[k] === null || typeof d[k] !== 'object' || Array.isArray(d[k]),
  );
  if (notList.length || notObject.length)
    return declared(
      `an object whose ${[...notList.map((k) => `${k} is not a list`), ...notObject.map((k) => `${k} is not an object`)].join(', ')}`,
      'shape',
    );
  return e;
}
