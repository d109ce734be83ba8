// Builds the host's stable memory from its `memory` option.
import { isHumanActor } from '../core/actor';
import { MediaAgentError } from '../core/errors';
import { MarkdownMemoryStore } from '../memory/markdown-memory-store';
import type { MemoryOptions } from '../memory/memory-options';
import { MemoryService, type MemoryRole } from '../memory/memory-service';
import type { Clock } from '../ports/clock';

/**
 * The role memory checks before a global write. The one place to swap for the host's identity
 * port: today every `user:*` actor is an administrator, any other actor an ordinary user.
 */
export function memoryRoleOf(actor: string): MemoryRole {
  try {
    return isHumanActor(actor) ? 'admin' : 'user';
  } catch {
    return 'user';
  }
}

/**
 * The memory service of a host.
 * @throws {@link MediaAgentError} `OPTIONS_INVALID` when neither `dataDir` nor `store` is given, or the deadline is not positive
 */
export function memoryServiceFor(options: MemoryOptions, clock: Clock): MemoryService {
  const store = options.store ?? (options.dataDir ? new MarkdownMemoryStore(options.dataDir) : undefined);
  if (!store)
    throw new MediaAgentError('OPTIONS_INVALID', 'option memory needs dataDir or store', { option: 'memory' });
  const deadline = options.regexDeadlineMs ?? 1000;
  if (!(Number.isFinite(deadline) && deadline > 0))
    throw new MediaAgentError('OPTIONS_INVALID', 'option memory.regexDeadlineMs must be a positive number', {
      option: 'memory.regexDeadlineMs',
    });
  return new MemoryService({ store, clock, roleOf: memoryRoleOf, regexDeadlineMs: deadline });
}
