// Stable memory: the public surface of this folder.
export { applyMemoryOperations, type AppliedOperations, type MemoryOperation } from './apply-operations';
export { hasDrifted } from './drift-guard';
export {
  codePointLength,
  ENTRY_SEPARATOR,
  joinEntries,
  MEMORY_BUDGETS,
  memoryFileName,
  parseEntries,
  usageOf,
  type MemoryTarget,
} from './entries';
export { MemoryError, type MemoryErrorCode } from './errors';
export { locateEntry } from './locate-entry';
export { MarkdownMemoryStore } from './markdown-memory-store';
export { MEMORY_COMMAND_HELP, parseMemoryCommand, type MemoryCommand } from './memory-commands';
export {
  MAX_MEMORY_OPERATIONS,
  MemoryToolInputSchema,
  parseMemoryInput,
  type MemoryRequest,
  type MemoryToolInput,
} from './memory-input';
export {
  MemoryService,
  type MemoryApproveResult,
  type MemoryRole,
  type MemoryServiceDeps,
  type MemoryStagedResult,
  type MemoryWriteOptions,
  type MemoryWriteResult,
} from './memory-service';
export {
  describeProposal,
  MAX_PENDING_PROPOSALS,
  MAX_PROPOSAL_BYTES,
  summarizeProposal,
  type MemoryProposal,
  type MemoryProposalSummary,
} from './proposals';
export {
  SEARCH_MEMORY_MAX_FILE_BYTES,
  SearchMemoryInputSchema,
  searchMemory,
  type SearchMemoryEntry,
  type SearchMemoryInput,
  type SearchMemoryResult,
} from './search-memory';
export {
  blockedEntry,
  maskEntries,
  MAX_SNAPSHOT_FILE_BYTES,
  renderMemorySnapshot,
  type SnapshotFile,
} from './snapshot';
export { scanThreats, THREAT_SCAN_WINDOW, type ThreatFinding } from './threat-scan';
export { THREAT_PATTERNS, type ThreatPattern, type ThreatScope } from './threat-patterns';
export { memoryUserKey } from './user-key';
export type { MemoryOptions } from './memory-options';
