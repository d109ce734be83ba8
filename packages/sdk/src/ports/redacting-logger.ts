// The log side of the redaction boundary: every message and field a Logger is given passes through the
// host's SecretRedactor first (docs/secrets.md).
import type { SecretRedactor } from '../core/secret-redactor';
import type { Logger } from './logger';

/**
 * A logger that redacts each message and its fields (strings at any depth, `Error` messages) before
 * passing them to `logger`.
 * @param logger - the host's logger
 * @param redactor - the host's redaction step
 * @returns the redacting logger
 * @public
 */
export function redactingLogger(logger: Logger, redactor: SecretRedactor): Logger {
  const fieldsOf = (fields: Record<string, unknown> | undefined) => {
    if (fields === undefined) return undefined;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields))
      out[k] = v instanceof Error ? redactedError(v, redactor) : redactor.value(v);
    return out;
  };
  const call =
    (level: keyof Logger) =>
    (message: string, fields?: Record<string, unknown>): void => {
      const f = fieldsOf(fields);
      if (f === undefined) logger[level](redactor.text(String(message)));
      else logger[level](redactor.text(String(message)), f);
    };
  return { debug: call('debug'), info: call('info'), warn: call('warn'), error: call('error') };
}

/** The error itself when its message holds no secret, else a copy (name, code, redacted message; no stack). */
function redactedError(error: Error, redactor: SecretRedactor): Error {
  const message = redactor.text(error.message);
  if (message === error.message) return error;
  const copy = new Error(message);
  copy.name = error.name;
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) Object.assign(copy, { code });
  copy.stack = `${error.name}: ${message}`;
  return copy;
}
