// Builds the host's stable memory from its `memory` option.
import { parseActor } from '../core/actor';
import { resolveRole } from '../authorization/roles';
import type { IdentityResolver } from '../ports/identity';
import { MediaAgentError } from '../core/errors';
import { MarkdownMemoryStore } from '../memory/markdown-memory-store';
import type { MemoryOptions } from '../memory/memory-options';
import { MemoryService, type MemoryRole } from '../memory/memory-service';
import type { Clock } from '../ports/clock';

/** The methods a memory store must have (`MemoryStore`). */
const STORE_METHODS = [
  'read',
  'write',
  'backup',
  'withLock',
  'putProposal',
  'getProposal',
  'listProposals',
  'deleteProposal',
  'listMarkdown',
  'readMarkdown',
] as const;

/**
 * The memory service of a host.
 * @throws {@link MediaAgentError} `OPTIONS_INVALID` when neither `dataDir` nor `store` is given, `dataDir` is not
 * a string, `store` lacks a method of `MemoryStore`, or the deadline is not positive
 */
export function memoryServiceFor(options: MemoryOptions, clock: Clock, identity: IdentityResolver): MemoryService {
  if (options.store !== undefined) {
    const missing = STORE_METHODS.filter(
      (m) => typeof (options.store as unknown as Record<string, unknown> | null)?.[m] !== 'function',
    );
    if (missing.length > 0)
      throw new MediaAgentError(
        'OPTIONS_INVALID',
        `option memory.store is not a MemoryStore: no ${missing.join(', ')}`,
        {
          option: 'memory.store',
        },
      );
  } else if (options.dataDir !== undefined && typeof options.dataDir !== 'string')
    throw new MediaAgentError('OPTIONS_INVALID', 'option memory.dataDir must be a folder path (a string)', {
      option: 'memory.dataDir',
    });
  const store = options.store ?? (options.dataDir ? new MarkdownMemoryStore(options.dataDir) : undefined);
  if (!store)
    throw new MediaAgentError('OPTIONS_INVALID', 'option memory needs dataDir or store', { option: 'memory' });
  const deadline = options.regexDeadlineMs ?? 1000;
  if (!(Number.isFinite(deadline) && deadline > 0))
    throw new MediaAgentError('OPTIONS_INVALID', 'option memory.regexDeadlineMs must be a positive number', {
      option: 'memory.regexDeadlineMs',
    });
  // Administrators (people whose role the host's identity port says is `admin`) write the global memory.
  const roleOf = async (actor: string): Promise<MemoryRole> =>
    parseActor(actor).kind === 'user' ? resolveRole(identity, actor) : 'user';
  return new MemoryService({ store, clock, roleOf, regexDeadlineMs: deadline });
}
