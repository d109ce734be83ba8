import { HOST_ERROR_CODES } from '@media-agent/host-adapter-kit';

/**
 * Every stable code the MoviePilot 2.x adapter throws besides the SDK's `ERROR_CODES`, each with one
 * sentence saying what it means (listed in `docs/errors.md`): the codes both adapters share
 * (`HOST_ERROR_CODES` of `@media-agent/host-adapter-kit`, one meaning on both generations) and those
 * only this adapter throws (`HOST_CONTRACT_INVALID`, `HOST_VERSION_UNSUPPORTED`,
 * `HOST_MEDIA_AMBIGUOUS`).
 *
 * @remarks
 * The adapter's errors extend `MediaAgentError<V2ErrorCode>` (the shared classes
 * `MediaAgentError<HostErrorCode>`), so a misspelt code fails the type check. The adapter also throws
 * SDK codes (`MEDIA_*`, `OUTCOME_UNKNOWN`, `CAPABILITY_*`) through the SDK's error classes.
 * @public
 */
export const V2_ERROR_CODES = {
  ...HOST_ERROR_CODES,
  HOST_CONTRACT_INVALID:
    "The host's OpenAPI document (`GET /api/v1/openapi.json`) could not be read or is not an OpenAPI document.",
  HOST_VERSION_UNSUPPORTED:
    'The host runs a MoviePilot 2.x version the adapter does not support (older than `V2_MIN_VERSION`, or 1.x); a 3.x host is HOST_GENERATION_MISMATCH.',
  HOST_MEDIA_AMBIGUOUS:
    'The id names both a film and a series on TMDB (their ids share one number space) and nothing said which: look it up with its kind first; nothing was searched.',
} as const satisfies Record<string, string>;

/** One code of {@link V2_ERROR_CODES}: the `code` type of the adapter's errors. @public */
export type V2ErrorCode = keyof typeof V2_ERROR_CODES;
