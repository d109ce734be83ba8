// `session_search` input: its schema and the checks that run before any storage access.
import Type, { type Static } from 'typebox';
import { compileSchema } from '../capabilities/schema-validator';
import { HistoryInputError } from './errors';
import type { HistoryRole } from './history-store';
import { parseTimeBound } from './time-bounds';

/** The `session_search` input schema (also what the model is offered). */
export const SESSION_SEARCH_INPUT = Type.Object(
  {
    query: Type.Optional(
      Type.String({ maxLength: 1024, description: 'Words to find. Empty: browse recent sessions.' }),
    ),
    session_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'Read this session (or scroll it with around_message_id).',
      }),
    ),
    around_message_id: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Scroll: the message id to centre on (needs session_id).' }),
    ),
    window: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 20, description: 'Scroll: messages each side (default 5).' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, description: 'Sessions to return (default 3).' })),
    sort: Type.Optional(
      Type.Union([Type.Literal(''), Type.Literal('newest'), Type.Literal('oldest')], {
        description: 'Default: relevance.',
      }),
    ),
    detail: Type.Optional(
      Type.Union([Type.Literal('adaptive'), Type.Literal('full')], {
        description: 'adaptive (default): context around the first hit only.',
      }),
    ),
    role_filter: Type.Optional(
      Type.String({ maxLength: 64, description: 'Comma list of user, assistant, tool (default user,assistant).' }),
    ),
    after: Type.Optional(
      Type.String({ maxLength: 40, description: 'Sessions started at or after: ISO date/datetime or 12h / 3d / 2w.' }),
    ),
    before: Type.Optional(Type.String({ maxLength: 40, description: 'Sessions started before (same forms).' })),
    exclude_session_ids: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
        maxItems: 20,
        description: 'Sessions already inspected; their lineages are skipped.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The raw input. */
export type SessionSearchInput = Static<typeof SESSION_SEARCH_INPUT>;

/** A checked request, its shape chosen. */
export type SessionSearchRequest =
  | { mode: 'scroll'; sessionId: string; anchor: number; window: number }
  | { mode: 'read'; sessionId: string }
  | { mode: 'browse'; limit: number }
  | {
      mode: 'discover';
      query: string;
      limit: number;
      sort: '' | 'newest' | 'oldest';
      detail: 'adaptive' | 'full';
      roles: HistoryRole[];
      after: number | undefined;
      before: number | undefined;
      exclude: string[];
    };

const ROLES = new Set<HistoryRole>(['user', 'assistant', 'tool']);

/**
 * Checks a `session_search` input and picks its shape: `session_id` + `around_message_id` scroll,
 * `session_id` read, no query browse, else discover.
 * @param input - the raw input
 * @param now - the current time, epoch ms (relative bounds count back from it)
 * @throws `HISTORY_INPUT_INVALID` naming the field: extra fields, an anchor without a session,
 *   `window` outside 1–20, `limit` outside 1–10, unknown or no roles, unparsable or inverted time bounds
 */
export function parseSearchInput(input: unknown, now: number): SessionSearchRequest {
  const value = input ?? {};
  const check = compileSchema(SESSION_SEARCH_INPUT);
  if (!check.check(value)) {
    const issue = check.issues(value)[0];
    const field = issue?.path.replace(/^\//, '').split('/')[0] || 'input';
    throw new HistoryInputError(field, issue?.message ?? 'invalid');
  }
  const v = value as SessionSearchInput;
  const anchor = v.around_message_id ?? 0;
  if (anchor > 0 && !v.session_id) throw new HistoryInputError('around_message_id', 'needs session_id');
  const roles = (v.role_filter ?? 'user,assistant')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  if (roles.length === 0) throw new HistoryInputError('role_filter', 'name at least one of user, assistant, tool');
  const unknown = roles.filter((r) => !ROLES.has(r as HistoryRole));
  if (unknown.length > 0) throw new HistoryInputError('role_filter', `unknown role(s) ${unknown.join(', ')}`);
  const bound = (field: 'after' | 'before') => {
    const raw = v[field];
    if (raw === undefined || raw.trim() === '') return undefined;
    const ms = parseTimeBound(raw, now);
    if (ms === undefined) throw new HistoryInputError(field, 'use an ISO date or datetime, or Nh / Nd / Nw');
    return ms;
  };
  const after = bound('after');
  const before = bound('before');
  if (after !== undefined && before !== undefined && after >= before)
    throw new HistoryInputError('after', 'must be earlier than before');
  if (v.session_id && anchor > 0) return { mode: 'scroll', sessionId: v.session_id, anchor, window: v.window ?? 5 };
  if (v.session_id) return { mode: 'read', sessionId: v.session_id };
  // U+0000 is never text anyone searches for, and PostgreSQL refuses it in a statement: it separates words.
  const query = (v.query ?? '').replaceAll('\u0000', ' ').trim();
  if (!query) return { mode: 'browse', limit: v.limit ?? 3 };
  return {
    mode: 'discover',
    query,
    limit: v.limit ?? 3,
    sort: v.sort ?? '',
    detail: v.detail ?? 'adaptive',
    roles: [...new Set(roles)] as HistoryRole[],
    after,
    before,
    exclude: v.exclude_session_ids ?? [],
  };
}
