/**
 * Raw audit rows read page by page straight from a SQL store (its own SQL, not the repositories): what sealing the
 * rows written before schema 10 (the migration's code step) and the read-only `media-agent audit` command line read.
 * @packageDocumentation
 */
import { AUDIT_CONTENT_FIELDS } from '../../core/audit-chain';
import type { AuditRecord } from '../../core/records';
import type { Row } from './table-mapping';

/** Rows read per page by sealing (the table is never held in memory at once). @internal */
export const AUDIT_SEAL_PAGE_ROWS = 500;

const column = (field: string): string => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * `SELECT` of one page of audit rows, `seq > <first parameter>`, oldest first, at most `<second parameter>` rows:
 * `seq`, every content column and, with `chain`, `prev_hash` and `hash`.
 * @param table - the table as the statement names it
 * @param param - how the store writes positional parameter `n` (`?` or `$n`)
 * @param chain - whether to read the chain columns (absent before schema 10)
 * @internal
 */
export function auditPageSql(table: string, param: (n: number) => string, chain: boolean): string {
  const columns = ['seq', ...AUDIT_CONTENT_FIELDS.map(column), ...(chain ? ['prev_hash', 'hash'] : [])];
  return `SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM ${table} WHERE seq > ${param(1)} ORDER BY seq LIMIT ${param(2)}`;
}

/**
 * A row of {@link auditPageSql} as an audit record: `seq` and `at` as numbers (PostgreSQL's driver returns bigint as
 * text by default), null for an absent value; `prevHash`/`hash` only when the row has those columns.
 * @internal
 */
export function auditRowOf(row: Row): AuditRecord {
  const out: Row = { seq: Number(row.seq) };
  for (const field of AUDIT_CONTENT_FIELDS) {
    const value = row[column(field)];
    out[field] = field === 'at' ? Number(value) : (value ?? null);
  }
  if ('hash' in row) {
    out.prevHash = row.prev_hash ?? null;
    out.hash = row.hash ?? null;
  }
  return out as unknown as AuditRecord;
}
