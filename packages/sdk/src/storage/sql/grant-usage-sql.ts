/**
 * The grant usage counters table for both SQL stores (per grant, per UTC day).
 * @packageDocumentation
 */
import type { GrantUsageRepository } from '../../ports/storage-adapter';
import type { SqlDialect } from './dialect';
import { perDialect, row, type Statements } from './query';
import type { Row } from './table-mapping';

/**
 * The grant usage repository's statements in dialect `d`. Where reads lock ({@link SqlDialect.lockReads}), the
 * budget check reads the counters with their row locked (created at zero when the day has none yet), so a
 * concurrent claim in another process charging the same grant waits for this transaction and then reads its
 * charge: the check and the charge stay atomic across processes.
 * @internal
 */
export const grantUsageStatements = perDialect((d: SqlDialect): Statements<GrantUsageRepository> => {
  const table = d.table('grant_usage');
  const getSql = d.lockReads
    ? `INSERT INTO ${table} AS u (grant_id, day, invocations, bytes) VALUES (@grantId, @day, 0, 0)
  ON CONFLICT (grant_id, day) DO UPDATE SET invocations = u.invocations
  RETURNING invocations, bytes`
    : `SELECT invocations, bytes FROM ${table} WHERE grant_id = @grantId AND day = @day`;
  const addSql = `INSERT INTO ${table} AS u (grant_id, day, invocations, bytes) VALUES (@grantId, @day, @invocations, @bytes)
  ON CONFLICT (grant_id, day) DO UPDATE SET invocations = u.invocations + excluded.invocations, bytes = u.bytes + excluded.bytes
  RETURNING invocations, bytes`;
  const usage = (grantId: string, day: number) => (r: Row | undefined) => ({
    grantId,
    day,
    invocations: Number(r?.invocations ?? 0),
    bytes: Number(r?.bytes ?? 0),
  });
  return {
    get: (grantId, day) => row(getSql, { grantId, day }, usage(grantId, day)),
    add: (grantId, day, invocations, bytes) => row(addSql, { grantId, day, invocations, bytes }, usage(grantId, day)),
  };
});
