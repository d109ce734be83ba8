/**
 * Structured logger port. Implementations must never receive secrets: the SDK passes only
 * redacted fields.
 *
 * @public
 */
export interface Logger {
  /** Verbose diagnostics. */
  debug(message: string, fields?: Record<string, unknown>): void;
  /** Normal operation worth recording. */
  info(message: string, fields?: Record<string, unknown>): void;
  /** Something unexpected that the SDK handled. */
  warn(message: string, fields?: Record<string, unknown>): void;
  /** A failure the host should look at. */
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Log levels in increasing severity. @public */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/**
 * Default {@link Logger}: one JSON line per entry on stderr, at or above `level` (default `warn`).
 *
 * @public
 */
export class ConsoleLogger implements Logger {
  /** @param level - the lowest level written (default `warn`) */
  constructor(private readonly level: LogLevel = 'warn') {}
  #write(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
    if (order[level] < order[this.level]) return;
    // The entry's own level and message win over fields of the same name (kept as `fields`).
    const clash = fields !== undefined && ('level' in fields || 'message' in fields);
    const line = clash ? { level, message, fields } : { level, message, ...fields };
    process.stderr.write(`${JSON.stringify(line)}\n`);
  }
  /** {@inheritDoc Logger.debug} */
  debug(message: string, fields?: Record<string, unknown>): void {
    this.#write('debug', message, fields);
  }
  /** {@inheritDoc Logger.info} */
  info(message: string, fields?: Record<string, unknown>): void {
    this.#write('info', message, fields);
  }
  /** {@inheritDoc Logger.warn} */
  warn(message: string, fields?: Record<string, unknown>): void {
    this.#write('warn', message, fields);
  }
  /** {@inheritDoc Logger.error} */
  error(message: string, fields?: Record<string, unknown>): void {
    this.#write('error', message, fields);
  }
}
