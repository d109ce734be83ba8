import { MediaAgentError } from '../core/errors';

/**
 * Standard capabilities are missing from a registration. Nothing was registered.
 * @public
 */
export class StandardCapabilitiesMissingError extends MediaAgentError {
  /** The standard ids that were not given. */
  readonly missing: readonly string[];
  /** @param missing - the standard ids that were not given */
  constructor(missing: readonly string[]) {
    super(
      'MEDIA_STANDARD_CAPABILITIES_MISSING',
      `${missing.length} standard media capabilit${missing.length === 1 ? 'y is' : 'ies are'} missing: ${missing.join(', ')}`,
      {
        missing: [...missing],
      },
    );
    this.missing = Object.freeze([...missing]);
  }
}

/**
 * A capability given as a standard one does not match its contract (unknown id, or a kind, replay
 * policy, version, policy kind or schema different from the contract). Nothing was registered.
 * @public
 */
export class StandardCapabilityMismatchError extends MediaAgentError {
  /** @param id - the capability id; @param reason - what differs */
  constructor(id: string, reason: string) {
    super(
      'MEDIA_STANDARD_CAPABILITY_MISMATCH',
      `capability ${JSON.stringify(id)} does not match the standard contract: ${reason}`,
      { capabilityId: id, reason },
    );
  }
}

/**
 * Stable codes of {@link MediaStateError}:
 * `MEDIA_NOT_FOUND` (no such title, release, plan, download or task),
 * `MEDIA_ALREADY_IN_LIBRARY` (the title is in the library: nothing to download),
 * `MEDIA_ALREADY_DOWNLOADING` (an active download of that title exists),
 * `MEDIA_PLAN_CONFLICT` (the plan is of another type, already executed, or changed since it was frozen),
 * `MEDIA_INVALID_STATE` (the task is not in a state that allows the action).
 * @public
 */
export type MediaStateCode =
  | 'MEDIA_NOT_FOUND'
  | 'MEDIA_ALREADY_IN_LIBRARY'
  | 'MEDIA_ALREADY_DOWNLOADING'
  | 'MEDIA_PLAN_CONFLICT'
  | 'MEDIA_INVALID_STATE';

/**
 * A standard media capability refused the request because of the media world's state. Thrown by
 * handlers; the invocation result is `failed` with this code, so the model sees the reason.
 * @public
 */
export class MediaStateError extends MediaAgentError {
  /** @param code - one of {@link MediaStateCode}; @param message - what is wrong, for the model; @param details - ids involved */
  constructor(code: MediaStateCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
  }
}
