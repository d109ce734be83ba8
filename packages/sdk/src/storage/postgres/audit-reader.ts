/**
 * A read-only reader of a PostgreSQL store's audit rows, for the `media-agent audit` command line: one connection,
 * reads only (never migrating), paging through the rows in `seq` order.
 * @packageDocumentation
 */
import pg from 'pg';
import { MediaAgentError } from '../../core/errors';
import { STORAGE_SCHEMA_VERSION } from '../../ports/storage-adapter';
import { StorageSchemaTooNewError, StorageSchemaTooOldError } from '../errors';
import { auditPageSql, auditRowOf } from '../sql/audit-rows';
import { AUDIT_CHAIN_SCHEMA_VERSION, type AuditStoreReader } from '../sqlite/audit-reader';
import { readSchemaVersion } from './migrations';
import { toStorageError } from './postgres-errors';
import { SqlCompiler } from './postgres-executor';
import { channelOf, DEFAULT_POSTGRES_SCHEMA } from './postgres-options';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** The reader sets no statement or idle timeout of its own. */
const NO_TIMEOUTS = { statementMs: 0, idleInTransactionMs: 0 };

/**
 * The connection string without its `schema` parameter, and that schema (default `media_agent`, the
 * `PostgresStorage` default): `postgres://u@host/db?schema=media_agent`.
 * @throws `OPTIONS_INVALID` for a schema that is not a lowercase identifier
 * @internal
 */
export function splitSchema(url: string): { connectionString: string; schema: string } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? DEFAULT_POSTGRES_SCHEMA;
  parsed.searchParams.delete('schema');
  if (!SCHEMA_NAME.test(schema))
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      `schema must be a lowercase identifier; got ${JSON.stringify(schema)}`,
      {
        option: 'schema',
      },
    );
  return { connectionString: parsed.toString(), schema };
}

/**
 * Connects (one client, read-only transactions) and checks the schema's version.
 * @param url - `postgres://…` or `postgresql://…`, optionally with `?schema=`
 * @param connectionTimeoutMs - how long to wait for the server (default 10 000)
 * @throws `STORAGE_UNAVAILABLE`, `STORAGE_AUTH_FAILED`, `STORAGE_SCHEMA_TOO_NEW`, `STORAGE_SCHEMA_TOO_OLD`
 * @internal
 */
export async function openPostgresAuditReader(url: string, connectionTimeoutMs = 10_000): Promise<AuditStoreReader> {
  const { connectionString, schema } = splitSchema(url);
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: connectionTimeoutMs });
  const location = `${new URL(connectionString).host}${new URL(connectionString).pathname}`;
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SET default_transaction_read_only = on');
  } catch (error) {
    await client.end().catch(() => undefined);
    throw toStorageError(error, location, NO_TIMEOUTS);
  }
  const compiler = new SqlCompiler(schema, channelOf(schema));
  try {
    const version = await readSchemaVersion(client, compiler);
    if (version > STORAGE_SCHEMA_VERSION) throw new StorageSchemaTooNewError(version, STORAGE_SCHEMA_VERSION);
    if (version < AUDIT_CHAIN_SCHEMA_VERSION) throw new StorageSchemaTooOldError(version, AUDIT_CHAIN_SCHEMA_VERSION);
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error instanceof MediaAgentError ? error : toStorageError(error, location, NO_TIMEOUTS);
  }
  const select = compiler.compile(auditPageSql('"{schema}".audit', (n) => `$${n}`, true)).text;
  return {
    read: async (after, limit) => {
      try {
        return (await client.query(select, [after, limit])).rows.map(auditRowOf);
      } catch (error) {
        throw toStorageError(error, location, NO_TIMEOUTS);
      }
    },
    close: () => client.end().catch(() => undefined),
  };
}
