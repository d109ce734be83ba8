/**
 * Sealing the audit rows written before the chain existed (schema 10, docs/audit.md): once, inside the migration to
 * 10, in `seq` order, page by page (each store links a page with `linkAuditRows` and writes the links). After that a row without a hash is never sealed again — only something other
 * than the SDK can have written it, and the verifier reports it.
 * @packageDocumentation
 */
import { AUDIT_CONTENT_FIELDS } from '../../core/audit-chain';
import type { AuditRecord } from '../../core/records';
import type { Row } from './table-mapping';

/** Rows read and sealed per page (the table is never held in memory at once). @internal */
export const AUDIT_SEAL_PAGE_ROWS = 500;

/** `SELECT` of one page of rows to seal: every content column, `seq > @after`, oldest first (positional form). @internal */
export function auditSealPageSql(table: string, param: (n: number) => string): string {
  const columns = AUDIT_CONTENT_FIELDS.map((f) => `"${f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}"`);
  return `SELECT seq, ${columns.join(', ')} FROM ${table} WHERE seq > ${param(1)} ORDER BY seq LIMIT ${AUDIT_SEAL_PAGE_ROWS}`;
}

/** A row of {@link auditSealPageSql} as an audit record (`at` and `seq` as numbers: PostgreSQL returns bigint as text). @internal */
export function sealRowRecord(row: Row): AuditRecord {
  const out: Row = { seq: Number(row.seq) };
  for (const field of AUDIT_CONTENT_FIELDS) {
    const value = row[field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
    out[field] = field === 'at' ? Number(value) : (value ?? null);
  }
  return out as unknown as AuditRecord;
}
