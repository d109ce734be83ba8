import type { DependencyContainer } from 'tsyringe';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Logger } from '../ports/logger';
import type { StorageAdapter } from '../storage/storage-adapter';

/**
 * Options of `createAgentContainer` / `createAgentHost`. Every field is optional; defaults suit a
 * test or a small embedded host.
 * @public
 */
export interface AgentOptions {
  /** Storage (default: a new {@link MemoryStorage}; use `SqliteStorage` from `@media-agent/sdk/sqlite` to persist). */
  storage?: StorageAdapter;
  /** Time source (default {@link SystemClock}). */
  clock?: Clock;
  /** Id source (default {@link RandomIdGenerator}). */
  ids?: IdGenerator;
  /** Logger (default {@link ConsoleLogger} at `warn`). */
  logger?: Logger;
  /** Largest accepted input JSON, in bytes (default 1 MiB = {@link DEFAULT_MAX_INPUT_BYTES}). */
  maxInputBytes?: number;
  /** Lifetime of a new approval in ms (default 24 h = {@link DEFAULT_APPROVAL_TTL_MS}). */
  approvalTtlMs?: number;
  /** Ledger retention in ms for settled entries; 0 turns cleanup off (default 0). `running`/`unknown` are never deleted. */
  ledgerRetentionMs?: number;
  /** Called after the defaults are registered: register replacements for any token here. */
  configure?: (container: DependencyContainer) => void;
}

/** Options after defaults were applied. @public */
export interface ResolvedAgentOptions {
  /** See {@link AgentOptions.maxInputBytes}. */
  maxInputBytes: number;
  /** See {@link AgentOptions.approvalTtlMs}. */
  approvalTtlMs: number;
  /** See {@link AgentOptions.ledgerRetentionMs}. */
  ledgerRetentionMs: number;
}

/** Identity of the run a child container serves. @public */
export interface RunScope {
  /** Run id. */
  runId: string;
  /** The run's actor, `agent:<runId>` by default. */
  actor: string;
}
