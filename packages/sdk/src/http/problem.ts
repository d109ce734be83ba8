import { ERROR_CODES, type ErrorCode } from '../core/error-codes';
import { isMediaAgentError, MediaAgentError } from '../core/errors';

/** The media type of every error response of the HTTP surface (RFC 9457). @public */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * An error response body (RFC 9457 problem details) with the SDK's stable `code`.
 * @public
 */
export interface HttpProblem {
  /** `urn:media-agent:error:<code>`: one URI per code, documented in docs/errors.md. */
  type: string;
  /** The code's one-sentence meaning from `ERROR_CODES`. */
  title: string;
  /** The HTTP status code. */
  status: number;
  /** What went wrong with this request. */
  detail: string;
  /** The stable code (see docs/errors.md), e.g. `RUN_NOT_FOUND`. */
  code: string;
  /** Structured facts of the error (never secrets). */
  details?: Readonly<Record<string, unknown>>;
}

const CONFLICTS: readonly string[] = [
  'APPROVAL_HASH_MISMATCH',
  'APPROVAL_STATE',
  // An edit the approval cannot take: for another capability than the one it was asked for, or for one without a
  // plan payload schema to check it against.
  'APPROVAL_EDIT_WRONG_CAPABILITY',
  'APPROVAL_EDIT_UNSUPPORTED',
  'GRANT_WIDENING',
  'DECISION_CLOSED',
  'MEMORY_ORIGINAL_CHANGED',
  'RUN_PRUNED',
  'SCHEDULE_KEY_REUSED',
  // The run as it stands refuses a fork or an undo of its last turn (a subagent's run; not a conversation; no
  // person's message to undo, or the latest still queued): the request is well formed, the run's state is not.
  'FORK_SUBAGENT_RUN',
  'UNDO_NOT_INTERACTIVE',
  'UNDO_NO_TURN',
  'UNDO_MESSAGE_PENDING',
];
const FORBIDDEN: readonly string[] = [
  'ADMIN_FORBIDDEN',
  'MEMORY_USER_REQUIRED',
  'SCHEDULE_CAPABILITY_FORBIDDEN',
  'APPROVAL_EDIT_DENIED',
  'UNDO_FORBIDDEN',
];
const UNAVAILABLE: readonly string[] = ['HOST_STOPPED', 'HOST_NOT_STARTED', 'MODEL_NOT_CONFIGURED', 'MEMORY_BUSY'];
const TOO_MANY: readonly string[] = ['STREAM_LIMIT_REACHED', 'RUN_START_RATE_LIMITED'];

/**
 * The HTTP status for an SDK error code: 401 unauthenticated, 403 forbidden (also a schedule for a capability its
 * owner may not call, an approval's edit the capability's policy denies: `APPROVAL_EDIT_DENIED`, an undo of another
 * person's effect), 404 not found, 413 too large, 415 a body that is not declared JSON, 409 conflicts (wrong payload
 * hash, approval state, an edit for another capability or one the approval cannot take:
 * `APPROVAL_EDIT_WRONG_CAPABILITY`, `APPROVAL_EDIT_UNSUPPORTED`; grant widening, revision conflicts, a message to or a fork of a
 * pruned run, a schedule's client key reused for another definition, a run whose state refuses a fork or an undo of
 * its last turn: `FORK_SUBAGENT_RUN`, `UNDO_NOT_INTERACTIVE`, `UNDO_NO_TURN`, `UNDO_MESSAGE_PENDING`), 400 malformed HTTP input, 429 a limit of open
 * streams or run starts reached, 422 other invalid requests (`SCHEDULE_INVALID`, an edit that fails the plan payload
 * schema `APPROVAL_EDIT_INVALID`, a partial approval naming an unknown step `APPROVAL_STEP_UNKNOWN`, a fork's `atSeq` that is not a fork point
 * `FORK_POINT_INVALID` …), 503 host not
 * running.
 * @param code - an SDK error code
 * @returns the HTTP status
 * @public
 */
export function problemStatus(code: string): number {
  if (code === 'HTTP_UNAUTHENTICATED') return 401;
  if (FORBIDDEN.includes(code)) return 403;
  if (code.endsWith('_NOT_FOUND')) return 404;
  if (code === 'HTTP_BODY_TOO_LARGE') return 413;
  if (code === 'HTTP_CONTENT_TYPE_UNSUPPORTED') return 415;
  if (TOO_MANY.includes(code)) return 429;
  if (CONFLICTS.includes(code) || code.endsWith('_CONFLICT')) return 409;
  if (UNAVAILABLE.includes(code)) return 503;
  if (code === 'HTTP_BODY_INVALID' || code === 'HTTP_QUERY_INVALID') return 400;
  return 422;
}

/**
 * The problem details for a thrown value: a {@link MediaAgentError} keeps its code, message and details;
 * anything else is a 500 whose detail reveals nothing.
 * @public
 */
export function toProblem(error: unknown): HttpProblem {
  if (!isMediaAgentError(error) || !(error.code in ERROR_CODES))
    return {
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      detail: 'the server failed to handle the request',
      code: 'INTERNAL',
    };
  const code = error.code as ErrorCode;
  return {
    type: `urn:media-agent:error:${code}`,
    title: ERROR_CODES[code],
    status: problemStatus(code),
    detail: error.message,
    code,
    ...(Object.keys(error.details).length > 0 ? { details: error.details } : {}),
  };
}

/**
 * A `Response` carrying the problem details of `error`; a 429 says when to try again in `Retry-After`
 * (whole seconds, at least 1, from the error's `retryAfterMs`).
 * @internal
 */
export function problemResponse(error: unknown): Response {
  const problem = toProblem(error);
  const headers: Record<string, string> = { 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'no-store' };
  if (problem.status === 401) headers['www-authenticate'] = 'Bearer';
  const retryAfterMs = problem.details?.retryAfterMs;
  if (problem.status === 429 && typeof retryAfterMs === 'number')
    headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
  return new Response(JSON.stringify(problem), { status: problem.status, headers });
}

/** An HTTP-level error (authentication, body, query, route, decision source). @public */
export class HttpRequestError extends MediaAgentError {
  /** @param code - an `HTTP_*` code; @param message - what is wrong; @param details - structured facts */
  constructor(
    code:
      | 'HTTP_UNAUTHENTICATED'
      | 'HTTP_BODY_INVALID'
      | 'HTTP_BODY_TOO_LARGE'
      | 'HTTP_QUERY_INVALID'
      | 'HTTP_CONTENT_TYPE_UNSUPPORTED'
      | 'HTTP_ROUTE_NOT_FOUND',
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, details);
  }
}
