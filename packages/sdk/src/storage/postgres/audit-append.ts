/**
 * Audit appends on PostgreSQL, linked into the chain (docs/audit.md): many processes append at once, so each
 * appending transaction first takes the chain's advisory lock, then reads the head, then inserts.
 * @packageDocumentation
 */
import { AUDIT_CONTENT_FIELDS, AUDIT_GENESIS_HASH, linkAuditRows } from '../../core/audit-chain';
import type { AuditRecord } from '../../core/records';
import { auditHeadSql, auditStatements } from '../sql/audit-sql';
import { count, type Query, row } from '../sql/query';
import { AUDIT_INSERT_MANY_SQL, auditInsertManyParams } from './audit-batch';
import { AUDIT_CHAIN_LOCK_CLASS } from './migrations';
import { POSTGRES_DIALECT } from './postgres-dialect';
import { pgParam } from './postgres-executor';

/**
 * The chain's transaction-level advisory lock, keyed by the schema: held until the appending transaction commits or
 * rolls back, so the next appender (in any process) reads a head that includes this one's rows. A transaction that
 * waits for it while holding a row lock another appender needs is a deadlock PostgreSQL detects (40P01): the
 * adapter runs such a transaction again, a bounded number of times (`maxTransactionAttempts`).
 */
const LOCK_CHAIN = row(
  `SELECT pg_advisory_xact_lock(${AUDIT_CHAIN_LOCK_CLASS}, hashtext('{schema}')) IS NULL AS locked`,
  {},
  () => undefined,
);

/**
 * The head, read by a statement of its own after the lock was granted: under READ COMMITTED its snapshot includes
 * every row the previous holder committed.
 */
const READ_HEAD = row(auditHeadSql('"{schema}".audit'), {}, (r) =>
  typeof r?.hash === 'string' ? r.hash : AUDIT_GENESIS_HASH,
);

/** `record` as PostgreSQL stores it (a `text` cannot hold U+0000: see `pgParam`), so its hash is over what is stored. */
function asStored(record: AuditRecord): AuditRecord {
  let out: AuditRecord | undefined;
  for (const field of AUDIT_CONTENT_FIELDS) {
    const value = record[field];
    const stored = pgParam(value);
    if (typeof value === 'string' && stored !== value) (out ??= { ...record })[field as 'id'] = stored as string;
  }
  return out ?? record;
}

/**
 * `audit.append` on PostgreSQL: lock, head, insert — three statements, so on the adapter it runs in a transaction
 * of its own. Must run inside a transaction.
 * @internal
 */
export async function pgAppendAudit(
  run: (query: Query<unknown>) => Promise<unknown>,
  record: AuditRecord,
): Promise<AuditRecord> {
  await run(LOCK_CHAIN);
  const head = (await run(READ_HEAD)) as string;
  const [linked] = linkAuditRows(head, [asStored(record)]).rows;
  return (await run(auditStatements(POSTGRES_DIALECT).append(linked!))) as AuditRecord;
}

/**
 * Batched audit rows on PostgreSQL: lock, head, then every row in one statement, linked in call order. Must run
 * inside a transaction.
 * @internal
 */
export async function pgAppendAuditBatch(
  run: (query: Query<unknown>) => Promise<unknown>,
  records: readonly AuditRecord[],
): Promise<void> {
  await run(LOCK_CHAIN);
  const head = (await run(READ_HEAD)) as string;
  const { rows } = linkAuditRows(head, records.map(asStored));
  await run(count(AUDIT_INSERT_MANY_SQL, auditInsertManyParams(rows), () => undefined));
}
