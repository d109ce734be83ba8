import type { ErrorCode } from './error-codes';

/**
 * Base class of every error the SDK throws on purpose.
 *
 * @remarks
 * Callers switch on {@link MediaAgentError.code}, a stable string that never changes between
 * releases (the message may). Codes are upper snake case and prefixed by area, e.g.
 * `CAPABILITY_NOT_FOUND`, `LEDGER_STALE_EXECUTOR`, `STORAGE_LOCKED`; every code and its meaning is
 * listed in {@link ERROR_CODES} and in `docs/errors.md`.
 *
 * `Code` is the union of codes this error may carry: the SDK's {@link ErrorCode} unless a package
 * with its own registry says otherwise (a host adapter's errors extend `MediaAgentError<V2ErrorCode>`).
 * The constructor does not infer `Code` from its argument, so a misspelt code fails the type check.
 *
 * @example
 * ```ts
 * import { MediaAgentError } from '@media-agent/sdk';
 *
 * throw new MediaAgentError('INPUT_INVALID', 'title must not be empty', { capabilityId: 'catalog.lookup' });
 * ```
 * @public
 */
export class MediaAgentError<Code extends string = ErrorCode> extends Error {
  /** Stable machine-readable code of this error (see `docs/errors.md`). */
  readonly code: Code;
  /** Structured facts about the failure (never secrets). */
  readonly details: Readonly<Record<string, unknown>>;

  /**
   * @param code - stable error code, one of `Code`
   * @param message - human-readable explanation
   * @param details - structured facts for programs and logs (must not contain secrets)
   * @param options - standard `ErrorOptions`, e.g. `{ cause }`
   */
  constructor(code: NoInfer<Code>, message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.details = Object.freeze({ ...details });
  }

  /** A plain JSON form `{ name, code, message, details }` for logs, events and tool results. */
  toJSON(): { name: string; code: Code; message: string; details: Readonly<Record<string, unknown>> } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

/**
 * Returns true when `error` is a {@link MediaAgentError}, optionally with the given `code`.
 *
 * @param error - any caught value
 * @param code - when given, the code the error must carry; an SDK {@link ErrorCode} unless `Code` is
 *   given explicitly, e.g. `isMediaAgentError<V3ErrorCode>(error, 'HOST_AUTH_FAILED')`
 * @public
 */
export function isMediaAgentError<Code extends string = ErrorCode>(
  error: unknown,
  code?: NoInfer<Code>,
): error is MediaAgentError<Code> {
  return error instanceof MediaAgentError && (code === undefined || error.code === code);
}
