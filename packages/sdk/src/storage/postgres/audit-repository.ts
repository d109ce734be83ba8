import type { AuditRecord } from '../../core/records';
import type { AuditRepository } from '../../ports/storage-adapter';
import { TableMapping, type Row } from '../sqlite/table-mapping';
import type { PgQueries } from './sql-queries';

const AUDIT = new TableMapping<AuditRecord>('"{schema}".audit', {
  id: 'value',
  seq: 'value',
  at: 'value',
  action: 'value',
  actor: 'value',
  capabilityId: 'value',
  invocationId: 'value',
  runId: 'value',
  taskId: 'value',
  outcome: 'value',
  approvalId: 'value',
  grantId: 'value',
  idempotencyKey: 'value',
  inputSummary: 'value',
  reason: 'value',
});

/** The columns an audit insert writes (every one but `seq`, an identity column), in this order. */
const COLUMNS = AUDIT.columns.filter((c) => c.field !== 'seq');

const AUDIT_INSERT_SQL = `INSERT INTO "{schema}".audit (${COLUMNS.map((c) => `"${c.column}"`).join(', ')})
  VALUES (${COLUMNS.map((c) => `@${c.field}`).join(', ')}) RETURNING seq`;

/**
 * Many audit rows in one statement, one array parameter per column: `seq` is assigned in array order.
 * @internal
 */
export const AUDIT_INSERT_MANY_SQL = `INSERT INTO "{schema}".audit (${COLUMNS.map((c) => `"${c.column}"`).join(', ')})
  SELECT ${COLUMNS.map((c) => `r."${c.column}"`).join(', ')}
  FROM unnest(${COLUMNS.map((c) => `@${c.field}::${c.field === 'at' ? 'bigint' : 'text'}[]`).join(', ')}) WITH ORDINALITY
    AS r(${COLUMNS.map((c) => `"${c.column}"`).join(', ')}, ord)
  ORDER BY r.ord`;

/** The named parameters of {@link AUDIT_INSERT_MANY_SQL} for `records` (one array per column). @internal */
export function auditInsertManyParams(records: readonly AuditRecord[]): Row {
  const params: Row = {};
  for (const c of COLUMNS) params[c.field] = records.map((r) => (r as unknown as Row)[c.field] ?? null);
  return params;
}

const AUDIT_LIST_SQL = `SELECT * FROM "{schema}".audit WHERE seq > @after AND (@action::text IS NULL OR action = @action) AND (@capabilityId::text IS NULL OR capability_id = @capabilityId) AND (@invocationId::text IS NULL OR invocation_id = @invocationId) ORDER BY seq LIMIT @limit`;

/** The audit log repository (append-only, `seq` from an identity column). @internal */
export function pgAuditRepository(q: PgQueries): AuditRepository {
  const { one, all, limit } = q;
  return {
    append: async (record) => {
      const row = await one(AUDIT_INSERT_SQL, AUDIT.toParams(record));
      return { ...record, seq: Number(row!.seq) };
    },
    list: async (filter = {}) =>
      (
        await all(AUDIT_LIST_SQL, {
          after: filter.after ?? 0,
          action: filter.action ?? null,
          capabilityId: filter.capabilityId ?? null,
          invocationId: filter.invocationId ?? null,
          limit: limit(filter.limit ?? 100),
        })
      ).map((r) => AUDIT.fromRow(r)),
  };
}
