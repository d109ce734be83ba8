import type { Logger } from '../ports/logger';

/**
 * A {@link Logger} that keeps every call, debug included, as one line of JSON text
 * (`{"level":…,"message":…,"fields":…}`), for tests that assert what reaches the log: a warning that must, a
 * secret that must not.
 *
 * @public
 */
export class CapturingLogger implements Logger {
  /** Every call so far, oldest first, one JSON text each. */
  readonly lines: string[] = [];
  #write(level: string, message: string, fields?: Record<string, unknown>): void {
    this.lines.push(JSON.stringify({ level, message, fields }));
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
