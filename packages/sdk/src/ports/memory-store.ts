import type { JsonValue } from '../core/records';

/**
 * Whose memory: the global memory every run reads (only administrators write it), or one user's,
 * under a key derived from the user's stable id (never a name, never chosen by a tool argument).
 * @public
 */
export type MemoryScope = { kind: 'global' } | { kind: 'user'; userKey: string };

/** A Markdown file of a memory scope, as listed for `search_memory`. @public */
export interface MemoryFileInfo {
  /** Path relative to the memory root (`MEMORY.md`, `users/<key>/notes/nas.md` …), `/`-separated. */
  path: string;
  /** `MEMORY.md` or `USER.md` at the scope's root. */
  primary: boolean;
  /** Size in bytes. */
  size: number;
}

/**
 * Where stable memory lives: the two primary files per scope, pending proposals per user, and the
 * topic Markdown `search_memory` reads. The default is `MarkdownMemoryStore` (files under a data
 * directory); a host may keep memory elsewhere by implementing this port.
 *
 * @remarks
 * `read` must throw when the file exists but cannot be read — a failed read is never reported as
 * an empty file. `write` must be atomic (a reader sees the old text or the new one, never a mix).
 * `withLock` serialises every read-modify-write of one scope.
 * @public
 */
export interface MemoryStore {
  /** The text of `MEMORY.md` / `USER.md` of a scope, or null when the file does not exist. @throws on a read failure */
  read(scope: MemoryScope, file: 'MEMORY.md' | 'USER.md'): Promise<string | null>;
  /** Replaces the file atomically. */
  write(scope: MemoryScope, file: 'MEMORY.md' | 'USER.md', text: string): Promise<void>;
  /** Copies raw text aside next to the file (`<file>.bak.<unique>`). @returns the copy's name */
  backup(scope: MemoryScope, file: 'MEMORY.md' | 'USER.md', raw: string): Promise<string>;
  /** Runs `fn` while no other read-modify-write of the scope runs. */
  withLock<T>(scope: MemoryScope, fn: () => Promise<T>): Promise<T>;
  /** Stores a proposal of a user under its id (32 lowercase hex). */
  putProposal(userKey: string, id: string, proposal: JsonValue): Promise<void>;
  /** A proposal, or undefined. */
  getProposal(userKey: string, id: string): Promise<JsonValue | undefined>;
  /** Every proposal of a user. */
  listProposals(userKey: string): Promise<JsonValue[]>;
  /** Deletes a proposal. @returns false when it was not there */
  deleteProposal(userKey: string, id: string): Promise<boolean>;
  /** The Markdown files of a scope (the global scope excludes `users/`; both exclude `activity/`). */
  listMarkdown(scope: MemoryScope): Promise<MemoryFileInfo[]>;
  /** The text of a listed Markdown file. @throws on a read failure */
  readMarkdown(path: string): Promise<string>;
}
