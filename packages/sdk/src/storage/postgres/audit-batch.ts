import type { AuditRecord } from '../../core/records';
import { AUDIT_INSERT_FIELDS, auditInsertHead } from '../sql/audit-sql';
import type { Row } from '../sql/table-mapping';

/**
 * Many audit rows in one statement, one array parameter per column: `seq` is assigned in array order.
 * @internal
 */
export const AUDIT_INSERT_MANY_SQL = `${auditInsertHead('"{schema}".audit')}
  SELECT ${AUDIT_INSERT_FIELDS.map((c) => `r."${c.column}"`).join(', ')}
  FROM unnest(${AUDIT_INSERT_FIELDS.map((c) => `@${c.field}::${c.field === 'at' ? 'bigint' : 'text'}[]`).join(', ')}) WITH ORDINALITY
    AS r(${AUDIT_INSERT_FIELDS.map((c) => `"${c.column}"`).join(', ')}, ord)
  ORDER BY r.ord`;

/** The named parameters of {@link AUDIT_INSERT_MANY_SQL} for `records` (one array per column). @internal */
export function auditInsertManyParams(records: readonly AuditRecord[]): Row {
  const params: Row = {};
  for (const c of AUDIT_INSERT_FIELDS) params[c.field] = records.map((r) => (r as unknown as Row)[c.field] ?? null);
  return params;
}
