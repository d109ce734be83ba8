import { MediaAgentError } from '@media-agent/sdk';
import type { V3ErrorCode } from './error-codes';

/** One item of a MoviePilot 3.x 422 answer (`ValidationIssue{location, message, error_type}`, `contracts/v3-notes.md` §4). @public */
export interface V3ValidationIssue {
  /** Where: e.g. `["query", "media_source"]`. */
  location: Array<string | number>;
  /** What is wrong. */
  message: string;
  /** Pydantic error type, e.g. `missing`. */
  error_type: string;
}

/**
 * The host answered with an error status or `success:false` (business failure). Carries the host's
 * HTTP status and localised message. Code `HOST_OPERATION_FAILED`.
 * @public
 */
export class V3HostError extends MediaAgentError<V3ErrorCode> {
  /** HTTP status the host answered with. */
  readonly status: number;
  /** Operation id. */
  readonly operationId: string;
  /** The envelope's `data` (e.g. `{requires_confirmation: true}`), when any. */
  readonly data: unknown;
  /** @param operationId - operation; @param status - HTTP status; @param message - the host's message; @param data - envelope data; @param code - stable code (default `HOST_OPERATION_FAILED`) */
  constructor(
    operationId: string,
    status: number,
    message: string,
    data: unknown = null,
    code: V3ErrorCode = 'HOST_OPERATION_FAILED',
  ) {
    super(code, `MoviePilot ${operationId} failed (HTTP ${status}): ${message || 'no message'}`, {
      operationId,
      status,
      hostMessage: message,
    });
    this.status = status;
    this.operationId = operationId;
    this.data = data;
  }
}

/**
 * HTTP 422: the host rejected the request's shape; `issues` is its `ValidationIssue` list.
 * Code `HOST_VALIDATION_FAILED`.
 * @public
 */
export class V3ValidationError extends V3HostError {
  /** The host's issue list. */
  readonly issues: readonly V3ValidationIssue[];
  /** @param operationId - operation; @param message - the host's message; @param issues - the 422 issue list */
  constructor(operationId: string, message: string, issues: V3ValidationIssue[]) {
    super(
      operationId,
      422,
      `${message}${issues.length ? `: ${issues.map((i) => `${i.location.join('.')}: ${i.message}`).join('; ')}` : ''}`,
      issues,
      'HOST_VALIDATION_FAILED',
    );
    this.issues = issues;
  }
}

/**
 * The host refused because the user is not a superuser (HTTP 400 "用户权限不足", `contracts/v3-notes.md` §4), or
 * the adapter refused an admin-only operation before sending it. Code `HOST_PERMISSION_DENIED`.
 * @public
 */
export class V3PermissionDeniedError extends V3HostError {
  /** @param operationId - operation; @param message - the host's message */
  constructor(operationId: string, message = '用户权限不足') {
    super(operationId, 400, message, null, 'HOST_PERMISSION_DENIED');
  }
}

/**
 * Authentication failed: no or a bad API key (401), a bad JWT (403), a login that failed, or a 401
 * that persisted after one token refresh. Never contains the credential. Code `HOST_AUTH_FAILED`.
 * @public
 */
export class V3AuthError extends V3HostError {
  /** @param operationId - operation (or `login.access_token`); @param status - HTTP status; @param message - the host's message */
  constructor(operationId: string, status: number, message: string) {
    super(operationId, status, message, null, 'HOST_AUTH_FAILED');
  }
}

/**
 * The request got no answer and was certainly or harmlessly not applied, with the 2.x adapter's codes:
 * `HOST_UNREACHABLE` when it never reached the host (connection refused, name not resolved, connect
 * timeout: nothing was sent), `HOST_TRANSPORT_FAILED` for a read that was sent and failed on every
 * attempt. A write that was sent and lost its answer is the SDK's `OutcomeUnknownError` instead.
 * @public
 */
export class V3TransportError extends MediaAgentError<V3ErrorCode> {
  /**
   * @param operationId - operation
   * @param message - what failed
   * @param options - `{ cause }`
   * @param sent - whether the request left this process (default false: `HOST_UNREACHABLE`)
   */
  constructor(operationId: string, message: string, options?: ErrorOptions, sent = false) {
    super(
      sent ? 'HOST_TRANSPORT_FAILED' : 'HOST_UNREACHABLE',
      `MoviePilot ${operationId}: ${message}`,
      { operationId },
      options,
    );
  }
}

/**
 * The standard capability has no operation in the V3 catalog to serve this request (e.g. pausing a
 * torrent: `download.start/stop` left the catalog for the `downloader-operation` skill). Code
 * `HOST_OPERATION_UNSUPPORTED`.
 * @public
 */
export class V3UnsupportedError extends MediaAgentError<V3ErrorCode> {
  /** @param capabilityId - the capability; @param reason - why the catalog cannot serve it */
  constructor(capabilityId: string, reason: string) {
    super('HOST_OPERATION_UNSUPPORTED', `${capabilityId} is not available on MoviePilot V3: ${reason}`, {
      capabilityId,
    });
  }
}

/**
 * The adapter's options are invalid (no or a bad URL, no credentials, half a login). The 2.x adapter's
 * code. Code `HOST_OPTIONS_INVALID`.
 * @public
 */
export class V3OptionsError extends MediaAgentError<V3ErrorCode> {
  /** @param message - what is wrong and how to fix it */
  constructor(message: string) {
    super('HOST_OPTIONS_INVALID', message);
  }
}

/**
 * The host answered outside the protocol the adapter speaks: for MoviePilot 3.x, an answer that is
 * not the `{success, message, data}` envelope (a bare JSON list or object, an all-null model, an HTML
 * page, a file body, an empty body), or whose `data` is not of the shape the operation declares (a
 * list where a list is declared, an object with its required fields). Such an answer is never taken
 * as a success. The message names the operation and the kind of body that came back (never its
 * content). Code `HOST_PROTOCOL_ERROR`.
 * @public
 */
export class HostProtocolError extends MediaAgentError<V3ErrorCode> {
  /** The operation whose answer broke the protocol, e.g. `download.clients`. */
  readonly operation: string;
  /**
   * @param operation - operation id
   * @param message - what came back and what was expected (kind, not content)
   * @param details - structured facts: `status` (HTTP), `kind` (e.g. `bare-list`, `html`, `file`), `received` (the kind in words), `contentType` (never the body)
   */
  constructor(operation: string, message: string, details: Record<string, unknown> = {}) {
    super('HOST_PROTOCOL_ERROR', message, { operation, ...details });
    this.operation = operation;
  }
}

/**
 * The host is of another generation than the adapter serves, e.g. a MoviePilot 2.x host behind the
 * 3.x adapter: `host.start()` refuses it before anything runs. Code `HOST_GENERATION_MISMATCH`.
 * @public
 */
export class HostGenerationError extends MediaAgentError<V3ErrorCode> {
  /** The generation the adapter serves. */
  readonly expected: 'v2' | 'v3';
  /** What the adapter found, e.g. `MoviePilot v2.5.6 (a 2.x host)`. */
  readonly found: string;
  /**
   * @param expected - the generation the adapter serves (`v3` here)
   * @param found - what the host turned out to be, in words
   * @param message - what was found, how, and what to use instead
   */
  constructor(expected: 'v2' | 'v3', found: string, message: string) {
    super('HOST_GENERATION_MISMATCH', message, { expected, found });
    this.expected = expected;
    this.found = found;
  }
}
