import { MediaAgentError } from '@media-agent/sdk';

/**
 * The host answered an enveloped operation with `success: false` (MoviePilot 2.x `schemas.Response`).
 * Carries the host's message unchanged.
 *
 * Code: `HOST_OPERATION_FAILED`.
 * @public
 */
export class HostOperationError extends MediaAgentError {
  /** The host's `message` (may be empty). */
  readonly hostMessage: string;
  /**
   * @param operation - operation id of the adapter's table (e.g. `download.add`), or `METHOD path`
   * @param hostMessage - the host's message
   * @param data - the envelope's `data`, when any
   */
  constructor(operation: string, hostMessage: string, data?: unknown) {
    super('HOST_OPERATION_FAILED', `MoviePilot refused ${operation}: ${hostMessage || '(no message)'}`, { operation, hostMessage, ...(data !== undefined ? { data } : {}) });
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
export class HostHttpError extends MediaAgentError {
  /** HTTP status. */
  readonly status: number;
  /**
   * @param operation - operation id or `METHOD path`
   * @param status - HTTP status
   * @param detail - the host's `detail` (string or validation issues), when it sent one
   */
  constructor(operation: string, status: number, detail: unknown) {
    super('HOST_HTTP_ERROR', `MoviePilot answered ${operation} with HTTP ${status}${detail !== undefined ? `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}` : ''}`, {
      operation,
      status,
      ...(detail !== undefined ? { detail } : {}),
    });
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
export class HostAuthError extends MediaAgentError {
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
export class HostTransportError extends MediaAgentError {
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
export class HostOptionsError extends MediaAgentError {
  /** @param message - what is wrong */
  constructor(message: string) {
    super('HOST_OPTIONS_INVALID', message);
  }
}
