import type { GrantUsageRepository } from '../../ports/storage-adapter';
import type { PgQueries } from './sql-queries';

const GRANT_USAGE_GET_SQL = `SELECT invocations, bytes FROM "{schema}".grant_usage WHERE grant_id = @grantId AND day = @day`;

/**
 * Inside a transaction the budget check reads the counters with their row locked (created at zero when the day has
 * none yet), so a concurrent claim in another process charging the same grant waits for this transaction and then
 * reads its charge: the check and the charge stay atomic across processes under READ COMMITTED.
 */
const GRANT_USAGE_LOCK_SQL = `INSERT INTO "{schema}".grant_usage AS u (grant_id, day, invocations, bytes) VALUES (@grantId, @day, 0, 0)
  ON CONFLICT (grant_id, day) DO UPDATE SET invocations = u.invocations
  RETURNING invocations, bytes`;

const GRANT_USAGE_ADD_SQL = `INSERT INTO "{schema}".grant_usage AS u (grant_id, day, invocations, bytes) VALUES (@grantId, @day, @invocations, @bytes)
  ON CONFLICT (grant_id, day) DO UPDATE SET invocations = u.invocations + excluded.invocations, bytes = u.bytes + excluded.bytes
  RETURNING invocations, bytes`;

/** The grant usage counters repository (per grant, per UTC day). @internal */
export function pgGrantUsageRepository(q: PgQueries): GrantUsageRepository {
  const { one } = q;
  return {
    get: async (grantId, day) => {
      const row = await one(q.inTransaction ? GRANT_USAGE_LOCK_SQL : GRANT_USAGE_GET_SQL, { grantId, day });
      return { grantId, day, invocations: Number(row?.invocations ?? 0), bytes: Number(row?.bytes ?? 0) };
    },
    add: async (grantId, day, invocations, bytes) => {
      const row = (await one(GRANT_USAGE_ADD_SQL, { grantId, day, invocations, bytes }))!;
      return { grantId, day, invocations: Number(row.invocations), bytes: Number(row.bytes) };
    },
  };
}
