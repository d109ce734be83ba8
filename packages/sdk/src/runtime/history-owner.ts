// Whose history a run's messages belong to.
import { parseActor } from '../core/actor';

/**
 * The stable user id that owns a run's history: the `<id>` of a `user:<id>` starter, else undefined
 * (API keys, system jobs and subagents have no personal history). Text in messages never changes it.
 * @param startedBy - the run's `startedBy` actor
 */
export function historyOwnerOf(startedBy: string): string | undefined {
  try {
    const actor = parseActor(startedBy);
    return actor.kind === 'user' ? actor.id : undefined;
  } catch {
    return undefined;
  }
}
