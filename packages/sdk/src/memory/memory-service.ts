// Stable memory: writes through the rules, proposals, the per-run snapshot and the chat commands.
import { randomUUID } from 'node:crypto';
import type { ActorRole } from '../core/actor';
import type { JsonValue } from '../core/records';
import type { Clock } from '../ports/clock';
import type { MemoryScope, MemoryStore } from '../ports/memory-store';
import { applyMemoryOperations, type MemoryOperation } from './apply-operations';
import { hasDrifted } from './drift-guard';
import {
  codePointLength,
  joinEntries,
  MEMORY_BUDGETS,
  memoryFileName,
  parseEntries,
  usageOf,
  type MemoryTarget,
} from './entries';
import { MemoryError } from './errors';
import { MEMORY_COMMAND_HELP, parseMemoryCommand } from './memory-commands';
import { parseMemoryInput } from './memory-input';
import {
  describeProposal,
  isProposal,
  MAX_PENDING_PROPOSALS,
  MAX_PROPOSAL_BYTES,
  summarizeProposal,
  type MemoryProposal,
  type MemoryProposalSummary,
} from './proposals';
import { searchMemory, type SearchMemoryResult } from './search-memory';
import { maskEntries, renderMemorySnapshot } from './snapshot';
import { memoryUserKey } from './user-key';
import { personActor } from '../core/person-id';

/** The role an actor has for memory (the host's `ActorRole`): administrators also write the global memory. @public */
export type MemoryRole = ActorRole;

/** What a `MemoryService` is built from. @public */
export interface MemoryServiceDeps {
  /** Where memory lives. */
  store: MemoryStore;
  /** Time of proposals. */
  clock: Clock;
  /** The role of an actor (the host's identity port). */
  roleOf: (actor: string) => MemoryRole | Promise<MemoryRole>;
  /**
   * Longest run of a `search_memory` regular expression, in ms.
   * @defaultValue 1000
   */
  regexDeadlineMs?: number;
}

/** What a successful memory write returns (the tool result). @public */
export interface MemoryWriteResult {
  /** Always true. */
  success: true;
  /** Terminal: the update is complete and must not be repeated. */
  done: true;
  /** False when nothing changed (e.g. the entry was already there). */
  changed: boolean;
  /** The file written. */
  target: MemoryTarget;
  /** Entries now in the file. */
  entry_count: number;
  /** `cur/limit` in code points. */
  usage: string;
  /** The whole entries replaced or removed. */
  previous_entries: string[];
  /** Says the update is complete, and when it reaches the prompt. */
  note: string;
}

/** What a staged background change returns. @public */
export interface MemoryStagedResult {
  /** Always true. */
  success: true;
  /** Always true: the change waits for the user. */
  staged: true;
  /** The proposal's id. */
  pending_id: string;
  /** Tells the user how to review it. */
  message: string;
}

/** What approving a proposal did. @public */
export interface MemoryApproveResult {
  /** The file's state after the change. */
  result: MemoryWriteResult;
  /** The change was written but the proposal could not be deleted. */
  cleanup_pending: boolean;
}

/** Options of one write. @public */
export interface MemoryWriteOptions {
  /**
   * A background review (no person in the loop): a call with any replace or remove is staged as a
   * proposal instead of written.
   * @defaultValue false
   */
  background?: boolean;
}

/** The actor a role is resolved for: a person in its actor form (`alice` is `user:alice`), other actors as given. */
function actorForRole(actor: unknown): string {
  return typeof actor === 'string' && /^(apikey|agent|system):/.test(actor) ? actor : personActor(actor, 'actor');
}

/** @throws {@link MemoryError} `MEMORY_INPUT_INVALID` unless the write options are absent or `{ background?: boolean }` */
function checkWriteOptions(options: unknown): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new MemoryError('MEMORY_INPUT_INVALID', 'options must be an object { background?: boolean }');
  for (const [key, value] of Object.entries(options))
    if (key !== 'background' || (value !== undefined && typeof value !== 'boolean'))
      throw new MemoryError(
        'MEMORY_INPUT_INVALID',
        key === 'background'
          ? 'options.background must be a boolean'
          : `options.${key} is not a write option (background)`,
      );
}

/** @throws {@link MemoryError} `MEMORY_INPUT_INVALID` unless the proposal id is a string */
function checkProposalId(id: unknown): void {
  if (typeof id !== 'string')
    throw new MemoryError(
      'MEMORY_INPUT_INVALID',
      `a proposal id is a string of 32 lowercase hex characters; got ${typeof id}`,
    );
}

const NOTE = 'Memory updated; this is complete, do not repeat it. The change reaches the prompt from the next run.';
const UNCHANGED_NOTE = 'Already in memory; nothing changed. This is complete, do not repeat it.';

/**
 * Stable memory of one host: each user's `MEMORY.md` (environment facts) and `USER.md`
 * (preferences), the global `MEMORY.md` only administrators write, pending proposals, the run's
 * frozen snapshot, the `/memory` chat commands and `search_memory`.
 *
 * @remarks
 * A person is named as `user:<id>` or the bare `<id>`: both are the same person and reach the same
 * memory (see docs/memory.md#whose-memory); another actor kind has no personal memory
 * (`MEMORY_USER_REQUIRED` for writes and proposals, the global memory only for reads), and a malformed or
 * wrong-typed actor is refused with `PERSON_ID_INVALID`.
 *
 * Every write is validated in full on a copy — threat scan, `old_text` matching, the budget on the
 * final state, the drift guard — and written atomically, or not at all. Memory is evidence: nothing
 * here grants permissions.
 * @example
 * ```ts
 * const memory = new MemoryService({ store: new MarkdownMemoryStore(dir), clock: new SystemClock(), roleOf: () => 'user' });
 * await memory.write('user:42', { action: 'add', target: 'user', content: 'Prefers 1080p, no HDR' });
 * console.log(await memory.snapshot('user:42'));
 * ```
 * @public
 */
export class MemoryService {
  readonly #deps: MemoryServiceDeps;

  /** @param deps - store, clock, role resolution */
  constructor(deps: MemoryServiceDeps) {
    this.#deps = deps;
  }

  /**
   * Applies a `memory` tool call to the actor's own memory (`target` picks `MEMORY.md` or `USER.md`).
   * `action: "pending"` lists the actor's proposals (read only; approving is the user's command).
   * @param actor - `user:<id>` or the bare `<id>`
   * @param input - the tool input (see `MemoryToolInputSchema`)
   * @throws {@link MemoryError} `MEMORY_INPUT_INVALID`, `MEMORY_USER_REQUIRED`, `MEMORY_READ_FAILED`,
   *   `MEMORY_DRIFT`, `MEMORY_THREAT_DETECTED`, `MEMORY_ENTRY_NOT_FOUND`, `MEMORY_ENTRY_AMBIGUOUS`,
   *   `MEMORY_EMPTY_BATCH`, `MEMORY_OVER_BUDGET`, `MEMORY_PROPOSAL_LIMIT` — nothing written
   */
  async write(
    actor: string,
    input: unknown,
    options?: MemoryWriteOptions,
  ): Promise<MemoryWriteResult | MemoryStagedResult | { success: true; proposals: MemoryProposalSummary[] }> {
    const userKey = memoryUserKey(actor);
    checkWriteOptions(options);
    const request = parseMemoryInput(input);
    if (request.kind === 'pending') return { success: true, proposals: await this.listProposals(actor) };
    const scope: MemoryScope = { kind: 'user', userKey };
    const { target, operations, batch } = request;
    const staging = options?.background === true && operations.some((op) => op.action !== 'add');
    return this.#deps.store.withLock(scope, async () => {
      const { entries } = await this.#load(scope, target, operations);
      const budget = MEMORY_BUDGETS[target];
      // Only add-only calls get here with oversized entries (the drift guard stops the others).
      const uncounted = entries.filter((e) => codePointLength(e) > budget);
      const applied = applyMemoryOperations(entries, operations, { budget, batch, uncounted });
      if (staging) return this.#stage(userKey, { target, operations, previous: applied.previous, batch });
      if (applied.changed) await this.#deps.store.write(scope, memoryFileName(target), joinEntries(applied.entries));
      return this.#result(target, applied.entries, applied.changed, applied.previous);
    });
  }

  /**
   * Writes the global memory (every run reads it, before the user's).
   * @param actor - an administrator
   * @param input - a `memory` tool input; `target` must be `memory` (or absent)
   * @throws {@link MemoryError} `MEMORY_FORBIDDEN` for a non-administrator, and the codes of {@link MemoryService.write}
   */
  async writeGlobal(actor: string, input: unknown): Promise<MemoryWriteResult> {
    if ((await this.#deps.roleOf(actorForRole(actor))) !== 'admin')
      throw new MemoryError('MEMORY_FORBIDDEN', 'only an administrator may write the global memory');
    const request = parseMemoryInput(input);
    if (request.kind !== 'write' || request.target !== 'memory')
      throw new MemoryError('MEMORY_INPUT_INVALID', 'the global memory has only MEMORY.md');
    const scope: MemoryScope = { kind: 'global' };
    return this.#deps.store.withLock(scope, async () => {
      const { entries } = await this.#load(scope, 'memory', request.operations);
      const applied = applyMemoryOperations(entries, request.operations, {
        budget: MEMORY_BUDGETS.memory,
        batch: request.batch,
      });
      if (applied.changed) await this.#deps.store.write(scope, 'MEMORY.md', joinEntries(applied.entries));
      return this.#result('memory', applied.entries, applied.changed, applied.previous);
    });
  }

  /**
   * The memory block for a run's system prompt, read now: the global memory first, then the actor's
   * `MEMORY.md` and `USER.md` (only the global memory for an actor that is not a user). Poisoned
   * entries are masked; the files are not changed.
   * @param actor - the run's actor: a person (`user:<id>` or `<id>`) or another actor kind (global memory only)
   * @throws `PERSON_ID_INVALID` for a malformed or wrong-typed actor
   */
  async snapshot(actor: string): Promise<string> {
    const read = (scope: MemoryScope, file: 'MEMORY.md' | 'USER.md') =>
      this.#deps.store.read(scope, file).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    const files = [
      {
        label: 'Global memory (MEMORY.md)',
        file: 'MEMORY.md',
        raw: await read({ kind: 'global' }, 'MEMORY.md'),
        budget: MEMORY_BUDGETS.memory,
      },
    ];
    const userKey = this.#userKeyOrUndefined(actor);
    if (userKey) {
      const scope: MemoryScope = { kind: 'user', userKey };
      files.push(
        {
          label: 'Your environment facts (MEMORY.md)',
          file: 'MEMORY.md',
          raw: await read(scope, 'MEMORY.md'),
          budget: MEMORY_BUDGETS.memory,
        },
        {
          label: 'Your preferences (USER.md)',
          file: 'USER.md',
          raw: await read(scope, 'USER.md'),
          budget: MEMORY_BUDGETS.user,
        },
      );
    }
    return renderMemorySnapshot(files);
  }

  /**
   * The actor's live entries of a file, masked (what an error may echo to the model); undefined for an actor
   * that is not a person or a file that cannot be read.
   * @throws `PERSON_ID_INVALID` for a malformed actor, {@link MemoryError} `MEMORY_INPUT_INVALID` for a target
   *   other than `memory` or `user`
   */
  async currentEntries(actor: string, target: MemoryTarget): Promise<string[] | undefined> {
    const userKey = this.#userKeyOrUndefined(actor);
    if (target !== 'memory' && target !== 'user')
      throw new MemoryError(
        'MEMORY_INPUT_INVALID',
        `target must be memory or user; got ${JSON.stringify(String(target))}`,
      );
    if (userKey === undefined) return undefined;
    try {
      const raw = await this.#deps.store.read({ kind: 'user', userKey }, memoryFileName(target));
      return maskEntries(parseEntries(raw ?? ''), memoryFileName(target));
    } catch {
      return undefined;
    }
  }

  /**
   * The actor's pending proposals, oldest first (at most 100).
   * @throws {@link MemoryError} `MEMORY_USER_REQUIRED`
   */
  async listProposals(actor: string): Promise<MemoryProposalSummary[]> {
    const all = await this.#proposals(memoryUserKey(actor));
    return all.map(summarizeProposal);
  }

  /**
   * One proposal of the actor, with its pinned original entries.
   * @throws {@link MemoryError} `MEMORY_PROPOSAL_NOT_FOUND`, `MEMORY_USER_REQUIRED`
   */
  async showProposal(actor: string, id: string): Promise<MemoryProposal> {
    const userKey = memoryUserKey(actor);
    checkProposalId(id);
    return this.#proposal(userKey, id);
  }

  /**
   * Applies a proposal: under the lock the file is read again and each replace or remove must find
   * its pinned original entry exactly; the threat scan, budget and drift guard run again. On
   * success the file is written and the proposal deleted.
   * @throws {@link MemoryError} `MEMORY_ORIGINAL_CHANGED` (the proposal is kept), `MEMORY_PROPOSAL_NOT_FOUND`,
   *   `MEMORY_DRIFT`, `MEMORY_OVER_BUDGET`, `MEMORY_THREAT_DETECTED`, `MEMORY_USER_REQUIRED`
   */
  async approveProposal(actor: string, id: string): Promise<MemoryApproveResult> {
    const userKey = memoryUserKey(actor);
    checkProposalId(id);
    const scope: MemoryScope = { kind: 'user', userKey };
    return this.#deps.store.withLock(scope, async () => {
      const p = await this.#proposal(userKey, id);
      const { entries } = await this.#load(scope, p.target, p.operations);
      const applied = applyMemoryOperations(entries, p.operations, {
        budget: MEMORY_BUDGETS[p.target],
        batch: p.batch,
        pinned: p.previous,
      });
      if (applied.changed) await this.#deps.store.write(scope, memoryFileName(p.target), joinEntries(applied.entries));
      const deleted = await this.#deps.store.deleteProposal(userKey, id).catch(() => false);
      return {
        result: this.#result(p.target, applied.entries, applied.changed, applied.previous),
        cleanup_pending: !deleted,
      };
    });
  }

  /**
   * Deletes a proposal unapplied.
   * @throws {@link MemoryError} `MEMORY_PROPOSAL_NOT_FOUND`, `MEMORY_USER_REQUIRED`
   */
  async discardProposal(actor: string, id: string): Promise<void> {
    const userKey = memoryUserKey(actor);
    checkProposalId(id);
    if (!(await this.#deps.store.deleteProposal(userKey, id)))
      throw new MemoryError('MEMORY_PROPOSAL_NOT_FOUND', `no pending proposal ${id}`);
  }

  /**
   * Answers a person's `/memory` chat command (list, show, approve, discard; a help line for other
   * `/memory…` text) without a model.
   * @param actor - the person who typed it (`user:<id>`)
   * @param text - their latest input
   * @returns the answer, or undefined when the text is not a memory command
   */
  async answerCommand(actor: string, text: string): Promise<string | undefined> {
    if (typeof text !== 'string')
      throw new MemoryError(
        'MEMORY_INPUT_INVALID',
        `text must be the person's message as a string; got ${typeof text}`,
      );
    const command = parseMemoryCommand(text);
    if (!command) return undefined;
    try {
      switch (command.kind) {
        case 'help':
          return MEMORY_COMMAND_HELP;
        case 'list': {
          const list = await this.listProposals(actor);
          if (list.length === 0) return 'No pending memory proposals.';
          return [
            `${list.length} pending memory proposal${list.length === 1 ? '' : 's'}:`,
            ...list.map(
              (p) => `${p.id} ${p.target} (${p.operationCount} op) ${maskEntries([p.preview], 'the proposal')[0]}`,
            ),
          ].join('\n');
        }
        case 'show': {
          // The answer joins the conversation: entries that match a threat pattern are masked there too.
          const p = await this.showProposal(actor, command.id);
          return describeProposal({
            ...p,
            previous: p.previous.map((e) => (e === null ? null : maskEntries([e], memoryFileName(p.target))[0]!)),
          });
        }
        case 'approve': {
          const done = await this.approveProposal(actor, command.id);
          return `Proposal ${command.id} applied (${done.result.usage}).${done.cleanup_pending ? ' The proposal file could not be deleted.' : ''}`;
        }
        case 'discard':
          await this.discardProposal(actor, command.id);
          return `Proposal ${command.id} discarded.`;
      }
    } catch (error) {
      if (error instanceof MemoryError) return `Refused (${error.code}): ${error.message}`;
      throw error;
    }
  }

  /**
   * Searches the global and the actor's Markdown memory (see `SearchMemoryInputSchema`).
   * @throws {@link MemoryError} `MEMORY_INPUT_INVALID` (bad input, an invalid regex, a path outside the
   *   visible memory), `MEMORY_SEARCH_TIMEOUT` (a regex past its deadline)
   */
  search(actor: string, input: unknown): Promise<SearchMemoryResult> {
    return searchMemory(this.#deps.store, this.#userKeyOrUndefined(actor), input, this.#deps.regexDeadlineMs ?? 1000);
  }

  /** The person's memory key; undefined for another actor kind (global memory only); throws for a malformed actor. */
  #userKeyOrUndefined(actor: string): string | undefined {
    try {
      return memoryUserKey(actor);
    } catch (error) {
      if (error instanceof MemoryError && error.code === 'MEMORY_USER_REQUIRED') return undefined;
      throw error;
    }
  }

  /** Reads a file for a write; runs the drift guard before any replace or remove (copying the raw text aside). */
  async #load(
    scope: MemoryScope,
    target: MemoryTarget,
    operations: readonly MemoryOperation[],
  ): Promise<{ entries: string[] }> {
    const file = memoryFileName(target);
    const raw = await this.#deps.store.read(scope, file);
    if (raw !== null && operations.some((op) => op.action !== 'add') && hasDrifted(raw, MEMORY_BUDGETS[target])) {
      const copy = await this.#deps.store.backup(scope, file, raw);
      throw new MemoryError(
        'MEMORY_DRIFT',
        `${file} was edited outside the memory tool; it was copied to ${copy} and not changed — ask the user to tidy it into entries separated by a line with §`,
        { backup: copy },
      );
    }
    return { entries: parseEntries(raw ?? '') };
  }

  async #stage(
    userKey: string,
    change: Pick<MemoryProposal, 'target' | 'operations' | 'previous' | 'batch'>,
  ): Promise<MemoryStagedResult> {
    const existing = await this.#deps.store.listProposals(userKey);
    if (existing.length >= MAX_PENDING_PROPOSALS)
      throw new MemoryError('MEMORY_PROPOSAL_LIMIT', `${MAX_PENDING_PROPOSALS} proposals are already pending`);
    const proposal: MemoryProposal = {
      id: randomUUID().replaceAll('-', ''),
      ...change,
      createdAt: this.#deps.clock.now(),
    };
    if (Buffer.byteLength(JSON.stringify(proposal)) > MAX_PROPOSAL_BYTES)
      throw new MemoryError('MEMORY_PROPOSAL_LIMIT', 'the proposal is larger than 64 KiB');
    await this.#deps.store.putProposal(userKey, proposal.id, proposal as unknown as JsonValue);
    return {
      success: true,
      staged: true,
      pending_id: proposal.id,
      message: `Staged for the user: /memory pending to list, /memory approve ${proposal.id} to apply, /memory discard ${proposal.id} to drop.`,
    };
  }

  async #proposals(userKey: string): Promise<MemoryProposal[]> {
    const all = ((await this.#deps.store.listProposals(userKey)) as unknown[]).filter(isProposal);
    return all.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id)).slice(0, MAX_PENDING_PROPOSALS);
  }

  async #proposal(userKey: string, id: string): Promise<MemoryProposal> {
    const p = /^[0-9a-f]{32}$/.test(id) ? await this.#deps.store.getProposal(userKey, id) : undefined;
    if (!isProposal(p)) throw new MemoryError('MEMORY_PROPOSAL_NOT_FOUND', `no pending proposal ${id}`);
    return p;
  }

  #result(target: MemoryTarget, entries: string[], changed: boolean, previous: (string | null)[]): MemoryWriteResult {
    return {
      success: true,
      done: true,
      changed,
      target,
      entry_count: entries.length,
      usage: usageOf(entries, MEMORY_BUDGETS[target]),
      previous_entries: maskEntries(
        previous.filter((p): p is string => p !== null),
        memoryFileName(target),
      ),
      note: changed ? NOTE : UNCHANGED_NOTE,
    };
  }
}
