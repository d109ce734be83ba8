import {
  HostAuthError,
  HostOperationError,
  HostOptionsError,
  HostPermissionError,
  HostTransportError,
  HostUnreachableError,
  HostUnsupportedError,
  HostValidationError,
  type HostValidationIssue,
} from '@media-agent/host-adapter-kit';

// The errors both adapters throw are one set of classes, in @media-agent/host-adapter-kit. The V3
// names stay as deprecated names of the same classes (their constructors are the kit's); the functions
// below build them with the 3.x adapter's messages.
export { HostGenerationError, HostProtocolError } from '@media-agent/host-adapter-kit';

/** A former name, kept for one minor version.
 * @deprecated Use `HostValidationIssue` from `@media-agent/host-adapter-kit`. @public */
export type V3ValidationIssue = HostValidationIssue;

/** A former name, kept for one minor version.
 * @deprecated Use `HostOperationError` from `@media-agent/host-adapter-kit`: this is the same class. @public */
export const V3HostError = HostOperationError;
/** A former name, kept for one minor version.
 * @deprecated Use `HostOperationError` from `@media-agent/host-adapter-kit`. @public */
export type V3HostError = HostOperationError;

/** A former name, kept for one minor version.
 * @deprecated Use `HostValidationError` from `@media-agent/host-adapter-kit`: this is the same class. @public */
export const V3ValidationError = HostValidationError;
/** A former name, kept for one minor version.
 * @deprecated Use `HostValidationError` from `@media-agent/host-adapter-kit`. @public */
export type V3ValidationError = HostValidationError;

/** A former name, kept for one minor version.
 * @deprecated Use `HostPermissionError` from `@media-agent/host-adapter-kit`: this is the same class. @public */
export const V3PermissionDeniedError = HostPermissionError;
/** A former name, kept for one minor version.
 * @deprecated Use `HostPermissionError` from `@media-agent/host-adapter-kit`. @public */
export type V3PermissionDeniedError = HostPermissionError;

/** A former name, kept for one minor version.
 * @deprecated Use `HostAuthError` from `@media-agent/host-adapter-kit`: this is the same class. @public */
export const V3AuthError = HostAuthError;
/** A former name, kept for one minor version.
 * @deprecated Use `HostAuthError` from `@media-agent/host-adapter-kit`. @public */
export type V3AuthError = HostAuthError;

/** A former name, kept for one minor version.
 * @deprecated Use `HostTransportError` from `@media-agent/host-adapter-kit` (`HostUnreachableError` for `HOST_UNREACHABLE`): this is the same class. @public */
export const V3TransportError = HostTransportError;
/** A former name, kept for one minor version.
 * @deprecated Use `HostTransportError` from `@media-agent/host-adapter-kit`. @public */
export type V3TransportError = HostTransportError;

/** A former name, kept for one minor version.
 * @deprecated Use `HostUnsupportedError` from `@media-agent/host-adapter-kit`: this is the same class. @public */
export const V3UnsupportedError = HostUnsupportedError;
/** A former name, kept for one minor version.
 * @deprecated Use `HostUnsupportedError` from `@media-agent/host-adapter-kit`. @public */
export type V3UnsupportedError = HostUnsupportedError;

/** A former name, kept for one minor version.
 * @deprecated Use `HostOptionsError` from `@media-agent/host-adapter-kit`: this is the same class. @public */
export const V3OptionsError = HostOptionsError;
/** A former name, kept for one minor version.
 * @deprecated Use `HostOptionsError` from `@media-agent/host-adapter-kit`. @public */
export type V3OptionsError = HostOptionsError;

/**
 * The host refused credentials for an operation (`HOST_AUTH_FAILED`), with the 3.x adapter's message.
 * @param operation - the operation (or `login.access_token`)
 * @param status - the HTTP status
 * @param hostMessage - the host's message
 * @internal
 */
export function v3AuthFailed(operation: string, status: number, hostMessage: string): HostAuthError {
  return new HostAuthError(`MoviePilot ${operation} failed (HTTP ${status}): ${hostMessage || 'no message'}`, {
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
  return new HostUnsupportedError(capabilityId, `${capabilityId} is not available on MoviePilot V3: ${reason}`);
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
