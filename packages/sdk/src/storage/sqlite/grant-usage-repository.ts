import type { StorageSession } from '../../ports/storage-adapter';
import type { SqlQueries, SyncRepository } from './sql-queries';

const GRANT_USAGE_GET_SQL = `SELECT invocations, bytes FROM grant_usage WHERE grant_id = @grantId AND day = @day`;

const GRANT_USAGE_ADD_SQL = `INSERT INTO grant_usage (grant_id, day, invocations, bytes) VALUES (@grantId, @day, @invocations, @bytes)
  ON CONFLICT (grant_id, day) DO UPDATE SET invocations = grant_usage.invocations + excluded.invocations, bytes = grant_usage.bytes + excluded.bytes
  RETURNING invocations, bytes`;

/** The grant usage counters repository. Synchronous, over one connection's prepared statements. @internal */
export function sqliteGrantUsageRepository(q: SqlQueries): SyncRepository<StorageSession['grantUsage']> {
  const { one } = q;
  return {
    get: (grantId, day) => {
      const row = one(GRANT_USAGE_GET_SQL, { grantId, day });
      return { grantId, day, invocations: Number(row?.invocations ?? 0), bytes: Number(row?.bytes ?? 0) };
    },
    add: (grantId, day, invocations, bytes) => {
      const row = one(GRANT_USAGE_ADD_SQL, { grantId, day, invocations, bytes })!;
      return { grantId, day, invocations: Number(row.invocations), bytes: Number(row.bytes) };
    },
  };
}
