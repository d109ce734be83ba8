import { MediaAgentError } from '../../core/errors';
import {
  StorageAuthError,
  StorageError,
  StorageFullError,
  StorageLockedError,
  StorageReadOnlyError,
  StorageTimeoutError,
  StorageUnavailableError,
} from '../errors';

/** SQLSTATEs after which `transaction()` runs the transaction again: serialization failure, deadlock. @internal */
export const RETRYABLE_SQLSTATES: ReadonlySet<string> = new Set(['40001', '40P01']);

/** Node socket error codes of a server that cannot be reached. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

/** The SQLSTATE (`code` of a node-postgres `DatabaseError`, five characters), or undefined. @internal */
export function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * Whether `error` says the connection is gone or could not be made: a socket error, a connection exception
 * (SQLSTATE class 08), the server shutting down or starting (57P01–57P03), too many connections (53300), or
 * node-postgres's own "Connection terminated" errors.
 * @internal
 */
export function isConnectionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  const state = sqlState(error);
  if (state !== undefined)
    return state.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03' || state === '53300';
  const message = error instanceof Error ? error.message : '';
  if (/Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(message))
    return true;
  // AggregateError of a connect() that tried several addresses (IPv4 and IPv6)
  const errors = (error as { errors?: unknown }).errors;
  return Array.isArray(errors) && errors.length > 0 && errors.every(isConnectionError);
}

/**
 * Maps a node-postgres error to the SDK's typed storage errors: a lost or refused connection →
 * `StorageUnavailableError`, refused credentials (28P01, 28000) → `StorageAuthError`, a cancelled statement
 * (57014, statement timeout) or a session ended for idling in a transaction (25P03) → `StorageTimeoutError`, a lock wait past `lock_timeout` (55P03) →
 * `StorageLockedError`, anything else → `StorageError` (the SQLSTATE in the message). SDK errors pass through.
 * @param error - what was thrown
 * @param location - the server, as `host:port/database` (never credentials)
 * @param timeouts - the adapter's statement and idle-in-transaction timeouts in ms, for the timeout error's details
 * @internal
 */
export function toStorageError(
  error: unknown,
  location: string,
  timeouts: { statementMs: number; idleInTransactionMs: number },
): MediaAgentError {
  if (error instanceof MediaAgentError) return error;
  const state = sqlState(error);
  const message = error instanceof Error ? error.message || String(error) : String(error);
  if (isConnectionError(error)) {
    const detail = state ?? (error as { code?: unknown }).code ?? '';
    return new StorageUnavailableError(
      `the PostgreSQL server at ${location} is unavailable (${detail ? `${String(detail)}: ` : ''}${message || 'connection failed'})`,
      { cause: error },
    );
  }
  if (state === '28P01' || state === '28000')
    return new StorageAuthError(`the PostgreSQL server at ${location} refused the credentials (${state}: ${message})`, {
      cause: error,
    });
  if (state === '57014')
    return new StorageTimeoutError(
      `a statement on the PostgreSQL server at ${location} was cancelled after the statement timeout (${message})`,
      timeouts.statementMs,
      { cause: error },
    );
  if (state === '25P03')
    return new StorageTimeoutError(
      `the PostgreSQL server at ${location} ended a transaction left idle past the idle-in-transaction timeout (${message})`,
      timeouts.idleInTransactionMs,
      { cause: error },
    );
  if (state === '25006')
    return new StorageReadOnlyError(`the PostgreSQL store at ${location} is read-only (${message})`, { cause: error });
  if (state === '53100')
    return new StorageFullError(`the PostgreSQL server at ${location} is out of disk space (${message})`, {
      cause: error,
    });
  if (state === '55P03')
    return new StorageLockedError(`PostgreSQL store at ${location}: a lock wait timed out (${message})`, {
      cause: error,
    });
  return new StorageError(`PostgreSQL store at ${location}: ${state ? `${state}: ` : ''}${message}`, { cause: error });
}
