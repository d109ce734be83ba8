/**
 * The audit table for both SQL stores: append-only, `seq` assigned by the store, each row linked into one hash
 * chain (`prev_hash`, `hash`: docs/audit.md) by the store's append.
 * @packageDocumentation
 */
import type { AuditRecord } from '../../core/records';
import type { AuditRepository } from '../../ports/storage-adapter';
import type { SqlDialect } from './dialect';
import { type EqualityFilters, filteredList } from './filters';
import { limitParam, perDialect, row, type Statements } from './query';
import { type ColumnSpec, TableMapping } from './table-mapping';

const AUDIT_FIELDS: ColumnSpec<AuditRecord> = {
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
  prevHash: 'value',
  hash: 'value',
};

/** The list's filters (served by the indexes on `(capability_id, seq)` and `(invocation_id, seq)`). */
const AUDIT_FILTERS: EqualityFilters = [
  ['action', 'action'],
  ['capabilityId', 'capability_id'],
  ['invocationId', 'invocation_id'],
];

/**
 * The fields an audit insert writes — every one but `seq`, which the store assigns — in column order.
 * @internal
 */
export const AUDIT_INSERT_FIELDS: ReadonlyArray<{ field: keyof AuditRecord & string; column: string }> =
  new TableMapping<AuditRecord>('audit', AUDIT_FIELDS).columns.filter((c) => c.field !== 'seq');

/** `INSERT INTO <table> ("id", "at", …)`: the head of every audit insert (values follow). @internal */
export function auditInsertHead(table: string): string {
  return `INSERT INTO ${table} (${AUDIT_INSERT_FIELDS.map((c) => `"${c.column}"`).join(', ')})`;
}

/**
 * The hash of the newest chained row (the chain's head), read backwards along the primary key: `hash` of the row
 * with the highest `seq` that has one (a row without one was not appended by the SDK and is skipped, as the
 * verifier skips it). No row: the chain is empty.
 * @internal
 */
export function auditHeadSql(table: string): string {
  return `SELECT hash FROM ${table} WHERE hash IS NOT NULL ORDER BY seq DESC LIMIT 1`;
}

/**
 * The audit repository's statements in dialect `d`. `append` inserts the record as given, its `prevHash` and `hash`
 * included: each store links the record first, inside the transaction that serializes its appends.
 * @internal
 */
export const auditStatements = perDialect((d: SqlDialect): Statements<AuditRepository> => {
  const table = d.table('audit');
  const AUDIT = new TableMapping<AuditRecord>(table, AUDIT_FIELDS);
  const appendSql = `${auditInsertHead(table)} VALUES (${AUDIT_INSERT_FIELDS.map((c) => `@${c.field}`).join(', ')}) RETURNING seq`;
  const list = filteredList(AUDIT, {
    filters: AUDIT_FILTERS,
    nullIsAny: true,
    order: 'seq',
    limited: true,
    always: ['seq > @after'],
  });
  return {
    append: (record) => row(appendSql, AUDIT.toParams(record), (r) => ({ ...record, seq: Number(r!.seq) })),
    list: (filter = {}) =>
      list(filter, { after: filter.after ?? 0, limit: limitParam(filter.limit ?? 100, d.noLimit) }),
  };
});
