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
  /** Keeps one `debug` call as one line ({@link Logger}'s `debug`). */
  debug(message: string, fields?: Record<string, unknown>): void {
    this.#write('debug', message, fields);
  }
  /** Keeps one `info` call as one line ({@link Logger}'s `info`). */
  info(message: string, fields?: Record<string, unknown>): void {
    this.#write('info', message, fields);
  }
  /** Keeps one `warn` call as one line ({@link Logger}'s `warn`). */
  warn(message: string, fields?: Record<string, unknown>): void {
    this.#write('warn', message, fields);
  }
  /** Keeps one `error` call as one line ({@link Logger}'s `error`). */
  error(message: string, fields?: Record<string, unknown>): void {
    this.#write('error', message, fields);
  }
}
