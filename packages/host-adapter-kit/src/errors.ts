/**
 * `@media-agent/host-adapter-kit/errors`: the one set of error classes and codes both MoviePilot adapters
 * throw (each adapter re-exports this entry whole).
 *
 * @packageDocumentation
 */
import { MediaAgentError } from '@media-agent/sdk';
import type { HostErrorCode } from './error-codes';

export { HOST_ERROR_CODES, type HostErrorCode } from './error-codes';
export {
  PluginDefinitionError,
  PluginOperationError,
  type PluginDefinitionCode,
  type PluginRefusalCode,
} from './plugin-errors';

/**
 * The adapter's options are invalid (no or a bad URL, no credentials, half a login, both kinds of
 * credentials). Thrown by `createV2AgentHost` / `createV3AgentHost` before anything is sent.
 *
 * Code: `HOST_OPTIONS_INVALID`.
 * @public
 */
export class HostOptionsError extends MediaAgentError<HostErrorCode> {
  /** @param message - what is wrong and how to fix it */
  constructor(message: string) {
    super('HOST_OPTIONS_INVALID', message);
  }
}

/**
 * Authentication failed or is impossible: login refused, a missing or bad API key or token after one
 * refresh, or an operation whose declared security accepts none of the configured credentials.
 *
 * Code: `HOST_AUTH_FAILED`.
 * @public
 */
export class HostAuthError extends MediaAgentError<HostErrorCode> {
  /** The HTTP status the host answered with, when it answered. */
  readonly status: number | undefined;
  /**
   * @param message - what failed (never contains a credential)
   * @param details - `operation`, `status` when the host answered
   */
  constructor(message: string, details: { operation?: string; status?: number } & Record<string, unknown> = {}) {
    super('HOST_AUTH_FAILED', message, details);
    this.status = details.status;
  }

  /** A former name, kept for one minor version.
   * @deprecated The 3.x adapter's name of the operation; read `details.operation`. */
  get operationId(): string | undefined {
    return this.details.operation as string | undefined;
  }
}

/** One issue of the host's 422 validation list (FastAPI / pydantic). @public */
export interface HostValidationIssue {
  /** Where: e.g. `["query", "media_source"]`. */
  location: Array<string | number>;
  /** What is wrong. */
  message: string;
  /** Pydantic error type, e.g. `missing`. */
  error_type: string;
}

/** Options of a {@link HostOperationError}. @public */
export interface HostOperationErrorOptions {
  /** The HTTP status the host answered with (omitted when the refusal came in a 200 envelope). */
  status?: number;
  /** The envelope's `data` (e.g. `{ requires_confirmation: true }`), when any. */
  data?: unknown;
}

/**
 * Whether a value is {@link HostOperationErrorOptions} — a non-empty object of `status` (a number) and
 * `data` only — rather than bare envelope data (the 2.x adapter's former third argument).
 */
function isOperationOptions(value: unknown): value is HostOperationErrorOptions {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const status = (value as { status?: unknown }).status;
  return (
    keys.length > 0 &&
    keys.every((k) => k === 'status' || k === 'data') &&
    (status === undefined || typeof status === 'number')
  );
}

/**
 * The host refused the operation: an envelope with `success: false`, or an error status where the
 * adapter keeps the host's own message. Carries the host's message unchanged.
 *
 * Code: `HOST_OPERATION_FAILED` (subclasses: `HOST_VALIDATION_FAILED`, `HOST_PERMISSION_DENIED`).
 * @public
 */
export class HostOperationError extends MediaAgentError<HostErrorCode> {
  /** The operation: an id of the adapter's table or catalog (e.g. `download.add`), or `METHOD path`. */
  readonly operation: string;
  /** The host's message (may be empty). */
  readonly hostMessage: string;
  /** The HTTP status, when the host answered with an error status. */
  readonly status: number | undefined;
  /** The envelope's `data`, when any (`null` when none). */
  readonly data: unknown;
  /**
   * @param operation - the operation
   * @param hostMessage - the host's message
   * @param optionsOrData - HTTP status and envelope data; any other value is taken as the envelope's data (the
   *   2.x adapter's former third argument)
   * @param code - for subclasses (default `HOST_OPERATION_FAILED`)
   */
  constructor(
    operation: string,
    hostMessage: string,
    optionsOrData: HostOperationErrorOptions | unknown = {},
    code: HostErrorCode = 'HOST_OPERATION_FAILED',
  ) {
    const options = isOperationOptions(optionsOrData) ? optionsOrData : { data: optionsOrData };
    super(
      code,
      `MoviePilot refused ${operation}${options.status !== undefined ? ` (HTTP ${options.status})` : ''}: ${hostMessage || '(no message)'}`,
      {
        operation,
        operationId: operation, // the 3.x adapter's former name of the same fact
        hostMessage,
        ...(options.status !== undefined ? { status: options.status } : {}),
        ...(options.data !== undefined ? { data: options.data } : {}),
      },
    );
    this.operation = operation;
    this.hostMessage = hostMessage;
    this.status = options.status;
    this.data = options.data ?? null;
  }

  /** A former name, kept for one minor version.
   * @deprecated The 3.x adapter's name of {@link HostOperationError.operation}. */
  get operationId(): string {
    return this.operation;
  }
}

/**
 * The host rejected the request's shape (HTTP 422, FastAPI validation); `issues` holds its list.
 *
 * Code: `HOST_VALIDATION_FAILED`.
 * @public
 */
export class HostValidationError extends HostOperationError {
  /** The host's issue list. */
  readonly issues: readonly HostValidationIssue[];
  /** @param operation - the operation @param message - the host's message @param issues - the 422 issue list */
  constructor(operation: string, message: string, issues: HostValidationIssue[]) {
    super(
      operation,
      `${message}${issues.length ? `: ${issues.map((i) => `${i.location.join('.')}: ${i.message}`).join('; ')}` : ''}`,
      { status: 422, data: issues },
      'HOST_VALIDATION_FAILED',
    );
    this.issues = issues;
  }
}

/**
 * The host (or the adapter, before sending) refused an admin-only operation for a user who is not a
 * superuser.
 *
 * Code: `HOST_PERMISSION_DENIED`.
 * @public
 */
export class HostPermissionError extends HostOperationError {
  /** @param operation - the operation @param message - the host's message (default its `用户权限不足`) */
  constructor(operation: string, message = '用户权限不足') {
    super(operation, message, { status: 400 }, 'HOST_PERMISSION_DENIED');
  }
}

/**
 * The host answered with an HTTP error status the adapter does not map to a more precise error. A 422
 * carries FastAPI's validation `detail` list.
 *
 * Code: `HOST_HTTP_ERROR`.
 * @public
 */
export class HostHttpError extends MediaAgentError<HostErrorCode> {
  /** HTTP status. */
  readonly status: number;
  /**
   * @param operation - operation id or `METHOD path`
   * @param status - HTTP status
   * @param detail - the host's `detail` (string or validation issues), when it sent one
   * @param extra - more details, e.g. `envelope: true` when the error body was a `{success, message, data}` envelope
   */
  constructor(operation: string, status: number, detail: unknown, extra: Record<string, unknown> = {}) {
    super(
      'HOST_HTTP_ERROR',
      `MoviePilot answered ${operation} with HTTP ${status}${detail !== undefined ? `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}` : ''}`,
      { operation, status, ...(detail !== undefined ? { detail } : {}), ...extra },
    );
    this.status = status;
  }
}

/**
 * A request got no answer and was certainly or harmlessly not applied: a read whose retries are used
 * up, or a write that never connected. A write that was sent and lost its answer is the SDK's
 * `OutcomeUnknownError` instead.
 *
 * Code: `HOST_TRANSPORT_FAILED` ({@link HostUnreachableError}: `HOST_UNREACHABLE`).
 * @public
 */
export class HostTransportError extends MediaAgentError<HostErrorCode> {
  /**
   * @param operation - operation id or `METHOD path`
   * @param message - the transport failure
   * @param options - `{ cause }`
   * @param code - for {@link HostUnreachableError} (default `HOST_TRANSPORT_FAILED`)
   */
  constructor(
    operation: string,
    message: string,
    options?: ErrorOptions,
    code: 'HOST_TRANSPORT_FAILED' | 'HOST_UNREACHABLE' = 'HOST_TRANSPORT_FAILED',
  ) {
    // `operationId`: the 3.x adapter's former name of the same fact.
    super(code, `MoviePilot ${operation}: ${message}`, { operation, operationId: operation }, options);
  }
}

/**
 * The host could not be reached: the connection was refused, the name did not resolve, or the connect
 * timed out — nothing was sent.
 *
 * Code: `HOST_UNREACHABLE`.
 * @public
 */
export class HostUnreachableError extends HostTransportError {
  /** @param operation - operation id or `METHOD path` @param message - what failed @param options - `{ cause }` */
  constructor(operation: string, message: string, options?: ErrorOptions) {
    super(operation, message, options, 'HOST_UNREACHABLE');
  }
}

/**
 * The host's version does not serve the operation (its OpenAPI document or catalog does not list it, or
 * no operation can serve the request), so nothing is sent.
 *
 * Code: `HOST_OPERATION_UNSUPPORTED`.
 * @public
 */
export class HostUnsupportedError extends MediaAgentError<HostErrorCode> {
  /**
   * @param operation - the operation or capability id
   * @param message - why (which route the host does not serve, and the host's version when known)
   * @param details - more facts, e.g. `capabilityId`
   */
  constructor(operation: string, message: string, details: Record<string, unknown> = {}) {
    super('HOST_OPERATION_UNSUPPORTED', message, { operation, ...details });
  }
}

/**
 * The host is a MoviePilot of another generation than the adapter speaks: the 2.x adapter pointed at a
 * 3.x host or the 3.x adapter at a 2.x host (its version, or the shape of its answers, shows it). Refused
 * at `host.start()`, before anything runs.
 *
 * Code: `HOST_GENERATION_MISMATCH`.
 * @public
 */
export class HostGenerationError extends MediaAgentError<HostErrorCode> {
  /** The generation the adapter speaks. */
  readonly expected: 'v2' | 'v3';
  /** What the host showed: its version (`v2.5.6`) or, in words, the shape of its answer. */
  readonly found: string;
  /**
   * @param expected - the generation the adapter speaks
   * @param found - the host's version, or the shape of its answer that shows its generation
   * @param message - what was found, how, and which adapter to use instead
   */
  constructor(expected: 'v2' | 'v3', found: string, message: string) {
    super('HOST_GENERATION_MISMATCH', message, { expected, found });
    this.expected = expected;
    this.found = found;
  }
}

/**
 * The host answered, but not what its contract declares for the operation: a body that is not JSON
 * where JSON is declared, an enveloped route answering without its envelope, a bare list or an all-null
 * model where the 3.x envelope is due, data not of the declared shape. Nothing is taken from such an
 * answer: it is never a success.
 *
 * Code: `HOST_PROTOCOL_ERROR`.
 * @public
 */
export class HostProtocolError extends MediaAgentError<HostErrorCode> {
  /** The operation whose answer broke the protocol. */
  readonly operation: string;
  /**
   * @param operation - operation id or `METHOD path`
   * @param message - what was declared and what came instead (kind, never content)
   * @param details - e.g. `status`, `kind` (`bare-list`, `html`, `file`), `contentType` (never the body)
   */
  constructor(operation: string, message: string, details: Record<string, unknown> = {}) {
    super('HOST_PROTOCOL_ERROR', message, { operation, ...details });
    this.operation = operation;
  }
}

/**
 * The host has no usable indexer site: a resource search cannot find anything on it (no site is
 * active, or none is selected for search), whatever the title. Add or enable a site on the host.
 *
 * Code: `HOST_NO_INDEXERS`.
 * @public
 */
export class HostNoIndexersError extends MediaAgentError<HostErrorCode> {
  /** @param message - what the host showed and what to do @param details - e.g. the counts of sites seen */
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('HOST_NO_INDEXERS', message, details);
  }
}
