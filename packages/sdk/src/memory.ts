/**
 * `@media-agent/sdk/memory`: stable memory — per-user `MEMORY.md` / `USER.md` and the global
 * `MEMORY.md` — for code that works with it below the host: the Markdown store, the `MemoryStore` port
 * a store of your own implements, the service behind `host.memory` with its proposals and results,
 * the character budgets and the `MEMORY_*` error class.
 *
 * @remarks
 * A host turns memory on with `createAgentHost({ memory: { dataDir } })` (`MemoryOptions`, in this
 * entry) and reads `host.memory`; see docs/memory.md.
 *
 * @example
 * ```ts
 * import { createAgentHost } from '@media-agent/sdk';
 * import { MarkdownMemoryStore, type MemoryProposalSummary } from '@media-agent/sdk/memory';
 *
 * const host = createAgentHost({ memory: { store: new MarkdownMemoryStore('/var/lib/media-agent/memory') } });
 * await host.start();
 * const pending: MemoryProposalSummary[] = (await host.memory?.listProposals('user:alice')) ?? [];
 * ```
 *
 * @packageDocumentation
 */
export {
  MarkdownMemoryStore,
  MemoryError,
  MemoryService,
  MEMORY_BUDGETS,
  type MemoryErrorCode,
  type MemoryOperation,
  type MemoryProposal,
  type MemoryProposalSummary,
  type MemoryRole,
  type MemoryServiceDeps,
  type MemoryStagedResult,
  type MemoryApproveResult,
  type MemoryWriteOptions,
  type MemoryWriteResult,
  type MemoryTarget,
  type SearchMemoryEntry,
  type SearchMemoryResult,
} from './memory/index';
export type { MemoryStore, MemoryScope, MemoryFileInfo } from './ports/memory-store';
// the host's `memory` option
export type { MemoryOptions } from './memory/memory-options';
