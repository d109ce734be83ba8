/**
 * `@media-agent/sdk/storage`: the storage port a storage implementation fills in, the records it
 * stores, and the invocation ledger built on it.
 *
 * @remarks
 * A host picks a storage here (`MemoryStorage`, nothing persisted), `SqliteStorage` from
 * `@media-agent/sdk/sqlite` or `PostgresStorage` from `@media-agent/sdk/postgres`; the rest of this entry is for code that reads records, writes its own
 * storage, or resolves the ledger.
 *
 * @packageDocumentation
 */
export { MemoryStorage } from './storage/memory/memory-storage';
export {
  STORAGE_SCHEMA_VERSION,
  type StorageAdapter,
  type StorageTopic,
  type StorageSession,
  type LedgerRepository,
  type ApprovalListFilter,
  type ApprovalRepository,
  type GrantRepository,
  type PlanRepository,
  type PolicyRevisionRepository,
  type AuditRepository,
  type SettingsRepository,
  type GrantUsageRepository,
  type BudgetUsageRepository,
  type BudgetCounterKey,
  type RunPatch,
  type RunRepository,
  type RunEventRepository,
  type RunMessageRepository,
  type InboxRepository,
  type DecisionRepository,
  type DecisionFilter,
  type StorageCompaction,
  type StorageFileUsage,
} from './ports/storage-adapter';
export {
  RETENTION_KINDS,
  type MaintenanceRepository,
  type PruneBatch,
  type PruneCount,
  type PruneCriteria,
  type RetentionKind,
} from './ports/maintenance-repository';
export type * from './core/records';
export type * from './core/run-records';
export type * from './core/schedule-records';
export type { ScheduleFilter, ScheduleRepository } from './ports/schedule-repository';
export type { IntentRepository } from './ports/intent-repository';
export type { OutboxDueOptions, OutboxRepository } from './ports/outbox-repository';
export {
  OUTBOX_KINDS,
  type NewOutboxRecord,
  type OutboxChat,
  type OutboxKind,
  type OutboxPayload,
  type OutboxRecord,
  type OutboxStatus,
} from './ports/outbox-records';
export { type IntentRecord, intentKey } from './core/intent-records';
export { TERMINAL_RUN_STATUSES } from './core/run-records';
export type * from './core/budget-records';
export { HOUSEHOLD_SUBJECT } from './core/budget-records';
export {
  StorageAuthError,
  StorageClosedError,
  StorageConflictError,
  StorageCorruptError,
  StorageError,
  StorageLockedError,
  StorageReadOnlyError,
  StorageFullError,
  StoragePoolExhaustedError,
  StorageSchemaTooNewError,
  StorageTimeoutError,
  StorageUnavailableError,
} from './storage/errors';

// the invocation ledger
export type { InvocationLedger, ClaimRequest, ClaimResult, SettleOutcome } from './ledger/invocation-ledger';
export { canonicalJson, canonicalHash, CanonicalJsonError } from './core/canonical-json';
export {
  AUDIT_CONTENT_FIELDS,
  AUDIT_GENESIS_HASH,
  AUDIT_HASH_ALGORITHM,
  type AuditContent,
  auditContent,
  auditRowHash,
  linkAuditRows,
} from './core/audit-chain';
export {
  AUDIT_CHECKPOINT_ACTOR,
  AUDIT_CHECKPOINT_CAPABILITY,
  type AuditChainRow,
  AuditChainVerifier,
  type AuditChainVerifyOptions,
  type AuditCheckpoint,
  auditCheckpointOf,
  auditCheckpointSignature,
  verifyAuditChain,
} from './core/audit-verify';
export {
  AUDIT_PAGE_ROWS,
  type AuditPageReader,
  exportAuditLines,
  verifyAuditPages,
} from './runtime/audit-trail';
export {
  DryRunClaimError,
  IdempotencyConflictError,
  InvocationInProgressError,
  LedgerStaleExecutorError,
} from './ledger/errors';
