/**
 * The audit chain's hash rule (docs/audit.md): what every store computes when it appends an audit row, and what a
 * verifier recomputes.
 * @packageDocumentation
 */
import { hash } from 'node:crypto';
import { CanonicalJsonError, canonicalJson } from './canonical-json';
import type { AuditRecord } from './records';

/**
 * The `prevHash` of the first row of a chain: 64 `0`s.
 * @public
 */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);

/** The hash algorithm of the chain, as export headers name it. @public */
export const AUDIT_HASH_ALGORITHM = 'sha256';

/**
 * The fields of an audit row a chain hash covers, in the order docs/audit.md lists them (the canonical JSON sorts
 * them anyway): every field but `seq`, `prevHash` and `hash`.
 * @public
 */
export const AUDIT_CONTENT_FIELDS = [
  'id',
  'at',
  'action',
  'actor',
  'capabilityId',
  'invocationId',
  'runId',
  'taskId',
  'outcome',
  'approvalId',
  'grantId',
  'idempotencyKey',
  'inputSummary',
  'reason',
] as const satisfies ReadonlyArray<keyof AuditRecord>;

/** The content of an audit row: what its hash covers. @public */
export type AuditContent = Pick<AuditRecord, (typeof AUDIT_CONTENT_FIELDS)[number]>;

/**
 * The content of `record` as hashed: the fields of {@link AUDIT_CONTENT_FIELDS}, an absent (`undefined`) nullable
 * field as `null` — what a store reads back — so a record appended without its optional fields hashes like the row
 * read later.
 * @param record - a row (or a record about to be appended)
 * @returns a new object with exactly those fields
 * @public
 */
export function auditContent(record: AuditContent): AuditContent {
  const out: Record<string, unknown> = {};
  for (const field of AUDIT_CONTENT_FIELDS) out[field] = record[field] ?? null;
  return out as unknown as AuditContent;
}

/**
 * The chain hash of one row: lowercase hex SHA-256 of the UTF-8 bytes of `prevHash + "\n" + canonicalJson(content)`.
 * @param prevHash - the hash of the row before (in `seq` order), or {@link AUDIT_GENESIS_HASH} for the first
 * @param record - the row (only its content fields count, see {@link auditContent})
 * @returns 64 lowercase hex characters
 * @throws `CANONICAL_JSON_INVALID` when a field has no JSON form (a non-finite `at`)
 * @public
 */
export function auditRowHash(prevHash: string, record: AuditContent): string {
  return hash('sha256', `${prevHash}\n${auditContentJson(record)}`, 'hex');
}

/** The content fields in canonical JSON key order (UTF-16 code units), each with its quoted key. */
const SORTED_KEYS = [...AUDIT_CONTENT_FIELDS].sort().map((field) => ({ field, key: `${JSON.stringify(field)}:` }));

/**
 * `canonicalJson(auditContent(record))`, written directly: the fields are known and flat (strings, one number,
 * nulls), so this skips the general writer's checks — the same text (tested), at a fraction of the cost of every
 * append. A value of another type falls back to the general writer (which rejects what has no JSON form).
 * @internal
 */
export function auditContentJson(record: AuditContent): string {
  let out = '{';
  for (const { field, key } of SORTED_KEYS) {
    const value: unknown = record[field] ?? null;
    let text: string;
    if (value === null) text = 'null';
    else if (typeof value === 'string') text = JSON.stringify(value);
    else if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`/${field}`, 'non-finite number');
      text = Object.is(value, -0) ? '0' : JSON.stringify(value);
    } else return canonicalJson(auditContent(record));
    out += out.length === 1 ? key + text : `,${key}${text}`;
  }
  return `${out}}`;
}

/**
 * Links `records` onto a chain whose head is `head`, in order: each gets `prevHash` (the hash before it) and
 * `hash`. What a store does inside the transaction that appends them.
 * @param head - the hash of the newest row of the chain, or {@link AUDIT_GENESIS_HASH} when it has none
 * @param records - the rows to append, in `seq` order
 * @returns copies of `records` with `prevHash` and `hash`, and the new head
 * @public
 */
export function linkAuditRows<R extends AuditContent>(
  head: string,
  records: readonly R[],
): { rows: Array<R & { prevHash: string; hash: string }>; head: string } {
  const rows: Array<R & { prevHash: string; hash: string }> = [];
  let prev = head;
  for (const record of records) {
    const next = auditRowHash(prev, record);
    rows.push({ ...record, prevHash: prev, hash: next });
    prev = next;
  }
  return { rows, head: prev };
}
