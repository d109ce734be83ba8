import { HOST_ERROR_CODES } from '@media-agent/host-adapter-kit';

/**
 * Every stable code the MoviePilot 3.x adapter throws besides the SDK's `ERROR_CODES`, each with one
 * sentence saying what it means (listed in `docs/errors.md`): the codes both adapters share
 * (`HOST_ERROR_CODES` of `@media-agent/host-adapter-kit`, one meaning on both generations) and those only
 * this adapter throws (its catalog's `HOST_UNKNOWN_OPERATION`, `HOST_REQUEST_INVALID`,
 * `HOST_REQUIRES_CONFIRMATION`, and its simulator's `SIM_*`).
 *
 * @remarks
 * The adapter's errors extend `MediaAgentError<V3ErrorCode>` (the shared classes
 * `MediaAgentError<HostErrorCode>`), so a misspelt code fails the type check. The adapter also throws
 * SDK codes (`MEDIA_*`, `OUTCOME_UNKNOWN`, `CAPABILITY_*`) through the SDK's error classes.
 * @public
 */
export const V3_ERROR_CODES = {
  ...HOST_ERROR_CODES,
  HOST_UNKNOWN_OPERATION: 'No operation with this id is in the V3 catalog; nothing was sent.',
  HOST_REQUEST_INVALID: 'A request to the host lacks a required path parameter; nothing was sent.',
  HOST_REQUIRES_CONFIRMATION:
    'The host could not recognise the media, so the plan was revised; a person must approve the new revision before submitting again.',
  SIM_CONTRACT_VIOLATION:
    'Testing: a request reached the V3 host simulator that a real MoviePilot 3.x host would reject.',
  SIM_NOT_STARTED: 'Testing: the V3 host simulator was used before `start()`.',
} as const satisfies Record<string, string>;

/** One code of {@link V3_ERROR_CODES}: the `code` type of the adapter's errors. @public */
export type V3ErrorCode = keyof typeof V3_ERROR_CODES;
