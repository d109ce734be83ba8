import { MediaAgentError } from '@media-agent/sdk';
import type { V2ErrorCode } from './error-codes';

/**
 * The host answered an enveloped operation with `success: false` (MoviePilot 2.x `schemas.Response`).
 * Carries the host's message unchanged.
 *
 * Code: `HOST_OPERATION_FAILED`.
 * @public
 */
export class HostOperationError extends MediaAgentError<V2ErrorCode> {
  /** The host's `message` (may be empty). */
  readonly hostMessage: string;
  /**
   * @param operation - operation id of the adapter's table (e.g. `download.add`), or `METHOD path`
   * @param hostMessage - the host's message
   * @param data - the envelope's `data`, when any
   */
  constructor(operation: string, hostMessage: string, data?: unknown) {
    super('HOST_OPERATION_FAILED', `MoviePilot refused ${operation}: ${hostMessage || '(no message)'}`, {
      operation,
      hostMessage,
      ...(data !== undefined ? { data } : {}),
    });
    this.hostMessage = hostMessage;
  }
}

/**
 * The host answered with an HTTP error status (4xx/5xx other than a handled 401). A 422 carries
 * FastAPI's validation `detail` list.
 *
 * Code: `HOST_HTTP_ERROR`.
 * @public
 */
export class HostHttpError extends MediaAgentError<V2ErrorCode> {
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
      {
        operation,
        status,
        ...(detail !== undefined ? { detail } : {}),
        ...extra,
      },
    );
    this.status = status;
  }
}

/**
 * Authentication failed or is impossible: login refused, a 401 after one refresh, or an operation
 * whose declared security accepts none of the configured credentials (e.g. a plugin route that
 * accepts only an API key while the adapter logged in with a user name and password).
 *
 * Code: `HOST_AUTH_FAILED`.
 * @public
 */
export class HostAuthError extends MediaAgentError<V2ErrorCode> {
  /** @param message - what failed (never contains a credential) @param details - operation, status */
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('HOST_AUTH_FAILED', message, details);
  }
}

/**
 * The request never got an answer and was certainly or harmlessly not applied: a read whose
 * retries are used up, or a write that could not connect (nothing was sent). A write that was sent
 * and lost its answer is an `OutcomeUnknownError` from the SDK instead.
 *
 * Code: `HOST_TRANSPORT_FAILED`.
 * @public
 */
export class HostTransportError extends MediaAgentError<V2ErrorCode> {
  /** @param operation - operation id or `METHOD path` @param message - transport failure @param options - `{ cause }` */
  constructor(operation: string, message: string, options?: ErrorOptions) {
    super('HOST_TRANSPORT_FAILED', `MoviePilot ${operation}: ${message}`, { operation }, options);
  }
}

/**
 * The adapter's options are invalid (no URL, no credentials, both kinds of credentials).
 *
 * Code: `HOST_OPTIONS_INVALID`.
 * @public
 */
export class HostOptionsError extends MediaAgentError<V2ErrorCode> {
  /** @param message - what is wrong */
  constructor(message: string) {
    super('HOST_OPTIONS_INVALID', message);
  }
}

/**
 * The host could not be reached: the connection was refused, the name did not resolve, or the
 * connect timed out — nothing was sent. The same code as the V3 adapter's transport failure.
 *
 * Code: `HOST_UNREACHABLE`.
 * @public
 */
export class HostUnreachableError extends MediaAgentError<V2ErrorCode> {
  /** @param operation - operation id or `METHOD path` @param message - what failed @param options - `{ cause }` */
  constructor(operation: string, message: string, options?: ErrorOptions) {
    super('HOST_UNREACHABLE', `MoviePilot ${operation}: ${message}`, { operation }, options);
  }
}

/**
 * The operation does not exist on this host's version (its live OpenAPI document does not list it), so
 * nothing is sent. The same code as the V3 adapter's.
 *
 * Code: `HOST_OPERATION_UNSUPPORTED`.
 * @public
 */
export class HostUnsupportedError extends MediaAgentError<V2ErrorCode> {
  /**
   * @param operation - operation id or `METHOD path`
   * @param message - why (which route the host does not serve, and the host's version when known)
   */
  constructor(operation: string, message: string) {
    super('HOST_OPERATION_UNSUPPORTED', message, { operation });
  }
}

/**
 * The host's OpenAPI document (`GET /api/v1/openapi.json`) could not be read or is not an OpenAPI
 * document: the adapter takes each route's authentication and existence from it and does not guess.
 *
 * Code: `HOST_CONTRACT_INVALID`.
 * @public
 */
export class HostContractError extends MediaAgentError<V2ErrorCode> {
  /** @param message - what is wrong @param details - status, when the host answered one @param options - `{ cause }` */
  constructor(message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super('HOST_CONTRACT_INVALID', message, details, options);
  }
}

/**
 * The host runs a MoviePilot 2.x version this adapter does not support (older than
 * `V2_MIN_VERSION`, or a 1.x). A 3.x host is {@link HostGenerationError} instead.
 *
 * Code: `HOST_VERSION_UNSUPPORTED`.
 * @public
 */
export class HostVersionError extends MediaAgentError<V2ErrorCode> {
  /** @param version - the host's version @param message - what is supported */
  constructor(version: string, message: string) {
    super('HOST_VERSION_UNSUPPORTED', message, { version });
  }
}

/**
 * The host is a MoviePilot of another generation than this adapter speaks: the 2.x adapter pointed at a
 * 3.x host (its version says 3.x, or it answers with the 3.x `{success, message, data}` envelope where a
 * 2.x host answers otherwise). Refused at `host.start()`, before anything runs. The same class and code as
 * the 3.x adapter's.
 *
 * Code: `HOST_GENERATION_MISMATCH`.
 * @public
 */
export class HostGenerationError extends MediaAgentError<V2ErrorCode> {
  /** The generation this adapter speaks. */
  readonly expected: 'v2' | 'v3';
  /** What the host showed: its version (`v3.0.3`) or a description of its answer's shape. */
  readonly found: string;
  /**
   * @param expected - the generation the adapter speaks (`v2` here)
   * @param found - the host's version, or the shape of its answer that shows its generation
   * @param message - what was found and which adapter to use instead
   */
  constructor(expected: 'v2' | 'v3', found: string, message: string) {
    super('HOST_GENERATION_MISMATCH', message, { expected, found });
    this.expected = expected;
    this.found = found;
  }
}

/**
 * The host answered, but not what its contract declares for the operation: a body that is not JSON where
 * JSON is declared, or an enveloped route (`schemas.Response`) answering without the `{success, message,
 * data}` envelope. Nothing is taken from such an answer (a read is not reported as a success). The same
 * class and code as the 3.x adapter's.
 *
 * Code: `HOST_PROTOCOL_ERROR`.
 * @public
 */
export class HostProtocolError extends MediaAgentError<V2ErrorCode> {
  /**
   * @param operation - operation id or `METHOD path`
   * @param message - what was declared and what came instead
   * @param details - e.g. the HTTP status (never the body)
   */
  constructor(operation: string, message: string, details: Record<string, unknown> = {}) {
    super('HOST_PROTOCOL_ERROR', message, { operation, ...details });
  }
}

/**
 * The host has no usable indexer site: a resource search cannot find anything on it (no site is
 * active, or none is selected for search), whatever the title. Add or enable a site on the host.
 *
 * Code: `HOST_NO_INDEXERS`.
 * @public
 */
export class HostNoIndexersError extends MediaAgentError<V2ErrorCode> {
  /** @param message - what the host showed and what to do @param details - e.g. the counts of sites seen */
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('HOST_NO_INDEXERS', message, details);
  }
}
