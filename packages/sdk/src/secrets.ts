/**
 * `@media-agent/sdk/secrets`: the one redaction step — the redactor, the patterns and names it knows, the
 * secret holder a capability or provider declares — and the redacting wrapper of each port (storage,
 * logger, model provider, history store).
 *
 * @remarks
 * `createAgentHost` wraps its ports in these wrappers itself; a host uses this entry when it builds a port
 * of its own outside the host, or to redact its own text the same way. See docs/secrets.md.
 *
 * @example
 * ```ts
 * import { SecretRedactor, REDACTED_MARKER } from '@media-agent/sdk/secrets';
 *
 * const redactor = new SecretRedactor();
 * redactor.add('s3cr3t-api-key-value');
 * console.log(redactor.text('key=s3cr3t-api-key-value') === `key=${REDACTED_MARKER}`); // true
 * ```
 *
 * @packageDocumentation
 */
export {
  isSecretHolder,
  MIN_SECRET_LENGTH,
  REDACTED_MARKER,
  SecretRedactor,
  secretsOfHeaders,
  secretsOfUrl,
  secretSpellings,
  type RedactOptions,
  type SecretHolder,
  type SecretRedactorOptions,
} from './core/secret-redactor';
export { SECRET_HEADER_NAME, SECRET_PARAM_NAME, SECRET_TEXT_PATTERNS } from './core/secret-patterns';
export { redactingStorage, unredactedStorage } from './storage/redacting-storage';
export { redactingLogger } from './ports/redacting-logger';
export { redactingProvider } from './models/redacting-provider';
export { redactingHistoryStore } from './history/redacting-history-store';
