import { MediaAgentError } from '@media-agent/sdk';
import type { V2ErrorCode } from './error-codes';

// The errors both adapters throw are one set of classes, in @media-agent/host-adapter-kit; this file
// keeps what only the 2.x adapter throws (it reads the host's OpenAPI document and its version).
export * from '@media-agent/host-adapter-kit/errors';

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
 * The id names both a film and a series on the host's metadata source (TMDB film and series ids share one
 * number space) and nothing said which: look the title up with its kind (`catalog.lookup` with `kind`)
 * first, then search. Nothing was searched.
 *
 * Code: `HOST_MEDIA_AMBIGUOUS`.
 * @public
 */
export class HostMediaAmbiguousError extends MediaAgentError<V2ErrorCode> {
  /** @param message - both titles and what to do @param details - `title` (the id), `kinds` */
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('HOST_MEDIA_AMBIGUOUS', message, details);
  }
}
