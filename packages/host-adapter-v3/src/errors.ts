import {
  HostAuthError,
  HostOperationError,
  HostOptionsError,
  HostPermissionError,
  HostTransportError,
  HostUnreachableError,
  HostUnsupportedError,
  HostValidationError,
  type HostErrorCode,
  type HostValidationIssue,
} from '@media-agent/host-adapter-kit';

// The errors both adapters throw are one set of classes, in @media-agent/host-adapter-kit. The former
// V3 classes stay for one minor version as deprecated subclasses with their old constructors; `instanceof`
// with a former name holds for the kit's class it stood for. The functions below build the kit's classes
// with the 3.x adapter's messages.
export { HostGenerationError, HostProtocolError } from '@media-agent/host-adapter-kit';

/** A former name, kept for one minor version.
 * @deprecated Use `HostValidationIssue` from `@media-agent/host-adapter-kit`. @public */
export type V3ValidationIssue = HostValidationIssue;

/**
 * The 3.x adapter's former class of a refusal by the host, kept for one minor version with its old
 * constructor. `error instanceof V3HostError` holds for every `HostOperationError` (and its validation and
 * permission subclasses) and every `HostAuthError`, as it held for their former 3.x classes.
 * @deprecated Use `HostOperationError` from `@media-agent/host-adapter-kit`.
 * @public
 */
export class V3HostError extends HostOperationError {
  /** Whether `value` is an error the 3.x adapter's `V3HostError` stood for. @param value - anything */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass of the former name is matched as classes are: only its own instances.
    if (this !== V3HostError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return value instanceof HostOperationError || value instanceof HostAuthError;
  }
  /**
   * @param operationId - the operation
   * @param status - the HTTP status
   * @param message - the host's message
   * @param data - the envelope's data
   * @param code - the code (default `HOST_OPERATION_FAILED`)
   */
  constructor(
    operationId: string,
    status: number,
    message: string,
    data: unknown = null,
    code: HostErrorCode = 'HOST_OPERATION_FAILED',
  ) {
    super(operationId, message, { status, data }, code);
  }
}

/**
 * The 3.x adapter's former class of the host's 422 validation list, kept for one minor version.
 * @deprecated Use `HostValidationError` from `@media-agent/host-adapter-kit`.
 * @public
 */
export class V3ValidationError extends HostValidationError {
  /** Whether `value` is a `HostValidationError`. @param value - anything */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass of the former name is matched as classes are: only its own instances.
    if (this !== V3ValidationError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return value instanceof HostValidationError;
  }
}

/**
 * The 3.x adapter's former class of an admin-only refusal, kept for one minor version.
 * @deprecated Use `HostPermissionError` from `@media-agent/host-adapter-kit`.
 * @public
 */
export class V3PermissionDeniedError extends HostPermissionError {
  /** Whether `value` is a `HostPermissionError`. @param value - anything */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass of the former name is matched as classes are: only its own instances.
    if (this !== V3PermissionDeniedError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return value instanceof HostPermissionError;
  }
}

/**
 * The 3.x adapter's former class of refused credentials, kept for one minor version with its old constructor.
 * @deprecated Use `HostAuthError` from `@media-agent/host-adapter-kit`.
 * @public
 */
export class V3AuthError extends HostAuthError {
  /** Whether `value` is a `HostAuthError`. @param value - anything */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass of the former name is matched as classes are: only its own instances.
    if (this !== V3AuthError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return value instanceof HostAuthError;
  }
  /** @param operationId - the operation (or `login.access_token`) @param status - the HTTP status @param message - the host's message */
  constructor(operationId: string, status: number, message: string) {
    super(authMessage(operationId, status, message), { operation: operationId, status, hostMessage: message });
  }
}

/**
 * The 3.x adapter's former class of a request without an answer, kept for one minor version with its old
 * constructor (`sent` false: `HOST_UNREACHABLE`, true: `HOST_TRANSPORT_FAILED`).
 * @deprecated Use `HostTransportError` / `HostUnreachableError` from `@media-agent/host-adapter-kit`.
 * @public
 */
export class V3TransportError extends HostTransportError {
  /** Whether `value` is a `HostTransportError` (`HostUnreachableError` included). @param value - anything */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass of the former name is matched as classes are: only its own instances.
    if (this !== V3TransportError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return value instanceof HostTransportError;
  }
  /**
   * @param operationId - the operation
   * @param message - what failed
   * @param options - `{ cause }`
   * @param sent - whether the request left this process (default false)
   */
  constructor(operationId: string, message: string, options?: ErrorOptions, sent = false) {
    super(operationId, message, options, sent ? 'HOST_TRANSPORT_FAILED' : 'HOST_UNREACHABLE');
  }
}

/**
 * The 3.x adapter's former class of a capability no catalog operation serves, kept for one minor version with its old constructor.
 * @deprecated Use `HostUnsupportedError` from `@media-agent/host-adapter-kit`.
 * @public
 */
export class V3UnsupportedError extends HostUnsupportedError {
  /** Whether `value` is a `HostUnsupportedError`. @param value - anything */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass of the former name is matched as classes are: only its own instances.
    if (this !== V3UnsupportedError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return value instanceof HostUnsupportedError;
  }
  /** @param capabilityId - the capability @param reason - why the catalog cannot serve it */
  constructor(capabilityId: string, reason: string) {
    super(capabilityId, unsupportedMessage(capabilityId, reason), { capabilityId });
  }
}

/**
 * The 3.x adapter's former class of invalid options, kept for one minor version.
 * @deprecated Use `HostOptionsError` from `@media-agent/host-adapter-kit`.
 * @public
 */
export class V3OptionsError extends HostOptionsError {
  /** Whether `value` is a `HostOptionsError`. @param value - anything */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass of the former name is matched as classes are: only its own instances.
    if (this !== V3OptionsError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return value instanceof HostOptionsError;
  }
}

const authMessage = (operation: string, status: number, hostMessage: string) =>
  `MoviePilot ${operation} failed (HTTP ${status}): ${hostMessage || 'no message'}`;
const unsupportedMessage = (capabilityId: string, reason: string) =>
  `${capabilityId} is not available on MoviePilot V3: ${reason}`;

/**
 * The host refused credentials for an operation (`HOST_AUTH_FAILED`), with the 3.x adapter's message.
 * @param operation - the operation (or `login.access_token`)
 * @param status - the HTTP status
 * @param hostMessage - the host's message
 * @internal
 */
export function v3AuthFailed(operation: string, status: number, hostMessage: string): HostAuthError {
  return new HostAuthError(authMessage(operation, status, hostMessage), {
    operation,
    status,
    hostMessage,
  });
}

/**
 * No catalog operation can serve a capability on this host (`HOST_OPERATION_UNSUPPORTED`).
 * @param capabilityId - the capability
 * @param reason - why the catalog cannot serve it
 * @internal
 */
export function v3Unsupported(capabilityId: string, reason: string): HostUnsupportedError {
  return new HostUnsupportedError(capabilityId, unsupportedMessage(capabilityId, reason), { capabilityId });
}

/**
 * A request that got no answer: `HOST_UNREACHABLE` when nothing was sent, `HOST_TRANSPORT_FAILED` when it was.
 * @param operation - the operation
 * @param message - what failed
 * @param options - `{ cause }`
 * @param sent - whether the request left this process (default false)
 * @internal
 */
export function v3TransportFailed(
  operation: string,
  message: string,
  options?: ErrorOptions,
  sent = false,
): HostTransportError {
  return sent
    ? new HostTransportError(operation, message, options)
    : new HostUnreachableError(operation, message, options);
}
