/**
 * Base class of every error the SDK throws on purpose.
 *
 * @remarks
 * Callers switch on {@link MediaAgentError.code}, a stable string that never changes between
 * releases (the message may). Codes are upper snake case and prefixed by area, e.g.
 * `CAPABILITY_NOT_FOUND`, `LEDGER_STALE_EXECUTOR`, `STORAGE_LOCKED`.
 *
 * @public
 */
export class MediaAgentError extends Error {
  /** Stable machine-readable code of this error. */
  readonly code: string;
  /** Structured facts about the failure (never secrets). */
  readonly details: Readonly<Record<string, unknown>>;

  /**
   * @param code - stable error code
   * @param message - human-readable explanation
   * @param details - structured facts for programs and logs (must not contain secrets)
   * @param options - standard `ErrorOptions`, e.g. `{ cause }`
   */
  constructor(code: string, message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.details = Object.freeze({ ...details });
  }

  /** A plain JSON form `{ name, code, message, details }` for logs, events and tool results. */
  toJSON(): { name: string; code: string; message: string; details: Readonly<Record<string, unknown>> } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

/**
 * Returns true when `error` is a {@link MediaAgentError}, optionally with the given `code`.
 *
 * @param error - any caught value
 * @param code - when given, the code the error must carry
 * @public
 */
export function isMediaAgentError(error: unknown, code?: string): error is MediaAgentError {
  return error instanceof MediaAgentError && (code === undefined || error.code === code);
}
